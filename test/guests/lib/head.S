/*
 * head.S: the PV start of day. Xen (or a shim) enters _start in 64-bit guest kernel mode with
 * rsi = start_info and rsp = the end of its bootstrap stack (xen.h, "Start-of-day memory layout").
 * We keep both, move to our own stack, and let C take over. The notes say how to load us.
 */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_GUEST_OS,     .asciz "pvshim-test"
XEN_NOTE XEN_ELFNOTE_GUEST_VERSION, .asciz "0"
XEN_NOTE XEN_ELFNOTE_XEN_VERSION,  .asciz "xen-3.0"
XEN_NOTE XEN_ELFNOTE_LOADER,       .asciz "generic"
XEN_NOTE XEN_ELFNOTE_VIRT_BASE,    .quad 0
XEN_NOTE XEN_ELFNOTE_PADDR_OFFSET, .quad 0
XEN_NOTE XEN_ELFNOTE_ENTRY,        .quad _start

	.section .text.head, "ax", @progbits
	.code64
	.globl _start
_start:
	mov	%rsi, start_info(%rip)
	mov	%rsp, boot_rsp(%rip)
	lea	stack_top(%rip), %rsp
	xor	%ebp, %ebp		/* end of the frame chain */
	call	guest_start
	ud2				/* guest_start never returns */

	.bss
	.balign 16
	.globl stack_bottom
stack_bottom:
	.skip	16384
stack_top:
