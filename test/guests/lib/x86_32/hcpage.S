/*
 * x86_32/hcpage.S: the hypercall page of the 32-bit build (see ../hcpage.S). A 32-bit guest's
 * stubs are `mov $nr, %eax; int $0x82; ret`; the note's value is 32 bits wide.
 */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_HYPERCALL_PAGE, .long hypercall_page

	.section .text.hcpage, "ax", @progbits
	.balign 4096
	.globl hypercall_page, want_hypercall_page
hypercall_page:
want_hypercall_page:
	.fill	4096, 1, 0xcc
