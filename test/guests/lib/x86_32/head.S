/*
 * x86_32/head.S: the start of day of the 32-bit PAE build (the `*-pv32-*` suite lines). A 32-bit
 * PV kernel runs in ring 1; Xen (or a shim) enters _start with esi = start_info and esp = the end
 * of its bootstrap stack, the flat ring-1 selectors loaded (xen-x86_32.h, "Start-of-day"). The
 * notes' values are 32 bits wide, and PAE_MODE says we run on PAE page tables: a 64-bit
 * hypervisor takes only PAE 32-bit guests (libelf refuses a kernel without it).
 */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_GUEST_OS,     .asciz "pvshim-test"
XEN_NOTE XEN_ELFNOTE_GUEST_VERSION, .asciz "0"
XEN_NOTE XEN_ELFNOTE_XEN_VERSION,  .asciz "xen-3.0"
XEN_NOTE XEN_ELFNOTE_LOADER,       .asciz "generic"
XEN_NOTE XEN_ELFNOTE_PAE_MODE,     .asciz "yes"
XEN_NOTE XEN_ELFNOTE_VIRT_BASE,    .long 0
XEN_NOTE XEN_ELFNOTE_PADDR_OFFSET, .long 0
XEN_NOTE XEN_ELFNOTE_ENTRY,        .long _start

	.section .text.head, "ax", @progbits
	.code32
	.globl _start
_start:
	mov	%esi, start_info
	mov	%esp, boot_rsp
	mov	$stack_top, %esp
	xor	%ebp, %ebp		/* end of the frame chain */
	call	guest_start
	ud2				/* guest_start never returns */

	.bss
	.balign 16
	.globl stack_bottom
stack_bottom:
	.skip	16384
stack_top:
