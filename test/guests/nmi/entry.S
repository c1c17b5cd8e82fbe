/* entry.S: the nmi test's send_nmi at a known rip (its NMI handler's entry is lib/nmientry.S). */
	.text
	.code64

/* long nmi_send(unsigned vcpu, void *arg): VCPUOP_send_nmi by a bare syscall, so that the NMI
 * frame's rip can be checked against nmi_send_ret. */
	.globl	nmi_send, nmi_send_ret
nmi_send:
	mov	%rsi, %rdx
	mov	%edi, %esi
	mov	$11, %edi	/* VCPUOP_send_nmi */
	mov	$24, %eax	/* __HYPERVISOR_vcpu_op */
	syscall
nmi_send_ret:
	ret
