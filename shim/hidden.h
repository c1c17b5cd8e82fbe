/* hidden.h: included first in every shim source (shim/Makefile's -include). The image is linked
 * at a fixed address from position-independent code; -fvisibility=hidden covers what a file
 * defines, this covers what it declares, so that taking the address of a function of another
 * file is a RIP-relative lea, never a GOT load the static link cannot resolve. */
#ifndef __ASSEMBLY__
#pragma GCC visibility push(hidden)
#endif
