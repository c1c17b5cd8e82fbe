/*
 * x86_32/iret.S: mc_iret_call of the 32-bit build (see ../iret.S). The compat frame that the
 * iret hypercall takes (compat_iret: eax, eip, cs, eflags; no esp/ss back to ring 1) is pushed
 * with eip = the resume label, then the multicall by int 0x82 (ebx = list, ecx = count). Either
 * it returns as a call does (mc_iret_path = 1, the frame popped again) or the iret in the list
 * went through the frame (mc_iret_path = 2: we resume at the label with esp back above the frame,
 * eax from it). ebx, esi, edi and ebp are kept for our caller.
 */
#include <xen/xen.h>
	.text
	.code32
	.globl	mc_iret_call
mc_iret_call:
	push	%ebx
	push	%esi
	push	%edi
	push	%ebp
	mov	20(%esp), %ebx		/* list */
	mov	24(%esp), %ecx		/* count */
	mov	28(%esp), %edx		/* f */
	push	12(%edx)		/* eflags */
	push	8(%edx)			/* cs */
	push	$.Lresumed		/* eip */
	push	0(%edx)			/* eax */
	mov	$__HYPERVISOR_multicall, %eax
	int	$0x82
	add	$16, %esp
	movl	$1, mc_iret_path
	jmp	1f
.Lresumed:
	movl	$2, mc_iret_path
1:	pop	%ebp
	pop	%edi
	pop	%esi
	pop	%ebx
	ret

	.bss
	.balign	4
	.globl	mc_iret_path
mc_iret_path:
	.long	0
