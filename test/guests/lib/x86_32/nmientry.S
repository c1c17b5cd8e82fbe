/*
 * x86_32/nmientry.S: the NMI handler entry of the 32-bit build (see ../nmientry.S).
 */
#include <xen/xen.h>
	.text
	.code32

/*
 * Xen enters a ring-1 kernel's NMI handler with the compat bounce frame [eip, cs, eflags] on the
 * stack it was on (compat_create_bounce_frame: the old event mask in bits 16-23 of the cs slot,
 * no error code; esp and ss only from ring 3). We save every register, hand nmi_handler (traps.h)
 * that frame widened to uint64_t [eip, cs, eflags], and leave through the iret hypercall
 * (compat_iret: eax pushed below the frame), which also ends Xen's NMI masking.
 */
	.globl	nmi_entry
nmi_entry:
	pusha					/* the frame is at 32(%esp) */
	mov	%esp, %esi
	sub	$24, %esp
	xor	%ecx, %ecx
	mov	32(%esi), %eax			/* eip */
	mov	%eax, 0(%esp)
	mov	%ecx, 4(%esp)
	mov	36(%esi), %eax			/* cs, saved upcall mask */
	mov	%eax, 8(%esp)
	mov	%ecx, 12(%esp)
	mov	40(%esi), %eax			/* eflags */
	mov	%eax, 16(%esp)
	mov	%ecx, 20(%esp)
	mov	%esp, %eax
	push	%eax
	call	nmi_handler
	mov	%esi, %esp
	popa
	push	%eax
	mov	$__HYPERVISOR_iret, %eax
	int	$0x82
	ud2
