/*
 * x86_32/entry.S: the nmi test's 32-bit assembly (see ../entry.S): send_nmi at a known eip (the
 * NMI handler entry is the library's, lib/x86_32/nmientry.S).
 */
#include <xen/xen.h>
	.text
	.code32

/* long nmi_send(unsigned vcpu, void *arg): VCPUOP_send_nmi by a bare int 0x82 (eax = nr, ebx =
 * cmd, ecx = vcpu, edx = arg), so that the NMI frame's eip can be checked against nmi_send_ret. */
	.globl	nmi_send, nmi_send_ret
nmi_send:
	push	%ebx
	mov	8(%esp), %ecx
	mov	12(%esp), %edx
	mov	$11, %ebx			/* VCPUOP_send_nmi */
	mov	$__HYPERVISOR_vcpu_op, %eax
	int	$0x82
nmi_send_ret:
	pop	%ebx
	ret
