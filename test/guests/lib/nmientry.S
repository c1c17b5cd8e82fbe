/*
 * nmientry.S: an NMI handler for tests that register one (CALLBACKOP_register(nmi), nmi_op, or
 * vector 2 of a trap table). Xen enters it on the kernel stack with the frame
 * [rcx, r11, rip, cs, rflags, rsp, ss] (no error code); it puts rcx and r11 back, saves every
 * register, runs the test's nmi_handler(&frame.rip) on an aligned stack and leaves through
 * HYPERVISOR_iret, as Linux's NMI return does (which ends Xen's NMI masking).
 */
#include "gprs.h"

	.text
	.code64
	.globl	nmi_entry
nmi_entry:
	pop	%rcx
	pop	%r11
	PUSH_GPRS
	lea	15*8(%rsp), %rdi	/* [rip, cs, rflags, rsp, ss] */
	mov	%rsp, %rbx
	and	$-16, %rsp
	call	nmi_handler
	mov	%rbx, %rsp
	POP_GPRS
	IRET_BELOW_RIP
	ud2

