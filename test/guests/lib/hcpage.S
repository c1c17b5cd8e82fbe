/*
 * hcpage.S: the hypercall page, for the tests that ask for one (GUEST_USE_HYPERCALL_PAGE() in
 * guest.h pulls this object out of the library). The XEN_ELFNOTE_HYPERCALL_PAGE note asks the
 * loader to fill the page with 32-byte stubs, one per hypercall (call hypercall_page + nr*32).
 * Until then it holds int3, so an unfilled page traps loudly instead of running zeroes.
 */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_HYPERCALL_PAGE, .quad hypercall_page

	.section .text.hcpage, "ax", @progbits
	.balign 4096
	.globl hypercall_page, want_hypercall_page
hypercall_page:
want_hypercall_page:
	.fill	4096, 1, 0xcc
