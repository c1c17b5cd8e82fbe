/* entry.S: the nmi test's probes (its NMI handler's entry is lib/nmientry.S). */
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

/* bool try_hlt(void): hlt in the guest kernel as a probe (lib/probe.S's way: a fault at hlt_insn
 * is recorded and resumes at the fixup, which returns false). */
	.globl	try_hlt, hlt_insn
try_hlt:
	lea	.Lhlt_fixup(%rip), %rax
	mov	%rax, probe_fixup(%rip)
hlt_insn:
	hlt
	movq	$0, probe_fixup(%rip)
	mov	$1, %eax
	ret
.Lhlt_fixup:
	movq	$0, probe_fixup(%rip)
	xor	%eax, %eax
	ret
