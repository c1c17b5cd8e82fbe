/*
 * probe.S: load %fs with a selector that may fault, and survive a #PF doing it.
 *   unsigned long fs_probe(unsigned long sel): 0 if the load worked; FS_PROBE_FAULTED if it took a
 *   #PF (pf_count, pf_error record it; the guest reads CR2 from vcpu_info).
 * pf_entry, our #PF handler, goes to the library's fatal trap_14 unless a probe is running; else
 * it returns through __HYPERVISOR_iret to the end of fs_probe with rax = FS_PROBE_FAULTED.
 */
	.text
	.code64

	.globl fs_probe
fs_probe:
	mov	%rsp, pf_saved_rsp(%rip)
	lea	.Lresume(%rip), %rax
	mov	%rax, pf_fixup(%rip)
	mov	%di, %fs
	xor	%eax, %eax
.Lresume:
	movq	$0, pf_fixup(%rip)
	ret

	.globl pf_entry
pf_entry:
	cmpq	$0, pf_fixup(%rip)
	je	trap_14
	mov	16(%rsp), %rax		/* frame: rcx, r11, error code, rip, cs, rflags, rsp, ss */
	mov	%rax, pf_error(%rip)
	incq	pf_count(%rip)
	mov	pf_fixup(%rip), %rax
	mov	%rax, 24(%rsp)		/* rip */
	mov	pf_saved_rsp(%rip), %rax
	mov	%rax, 48(%rsp)		/* rsp */
	mov	(%rsp), %rax		/* rcx */
	mov	8(%rsp), %rcx		/* r11 */
	mov	%rcx, (%rsp)		/* iret_context from here: rax, r11, rcx, flags, rip, ... */
	mov	%rax, 8(%rsp)
	movq	$0, 16(%rsp)		/* flags: not in a syscall */
	sub	$8, %rsp
	movabs	$0xfa017ed0fa017ed0, %rax
	mov	%rax, (%rsp)		/* rax: FS_PROBE_FAULTED */
	mov	$23, %eax		/* __HYPERVISOR_iret */
	syscall
	ud2

	.data
	.balign 8
	.globl pf_count, pf_error
pf_fixup:	.quad 0
pf_saved_rsp:	.quad 0
pf_count:	.quad 0
pf_error:	.quad 0
