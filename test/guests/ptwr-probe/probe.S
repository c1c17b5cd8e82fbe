/*
 * probe.S: the guest writes under test, each one instruction on a PTE through its read-only
 * mapping, and a #PF handler that turns a fault during such a write into a recorded result
 * instead of a crash (so every method gets its verdict in one run).
 *
 *   unsigned long pte_op(unsigned long method, uint64_t *p, uint64_t val, uint64_t cmp)
 *     method 0: mov %val,(p)                 returns 0
 *            1: xchg %val,(p)                returns the old value
 *            2: mov cmp,%rax; lock cmpxchg %val,(p)   returns rax (the value seen)
 *            3: lock or %val,(p)             returns 0
 *            4: lock btr %val,(p) (val = bit number)  returns CF
 *   If the instruction faults, pf_entry records the fault (pf_count, pf_error, pf_rip, pf_rsp)
 *   and resumes at the end of pte_op with rax = PTE_OP_FAULTED.
 */
	.text
	.code64

	.globl pte_op
pte_op:
	mov	%rsp, pf_saved_rsp(%rip)
	lea	.Lresume(%rip), %rax
	mov	%rax, pf_fixup(%rip)
	cmp	$1, %rdi
	je	.Lxchg
	cmp	$2, %rdi
	je	.Lcmpxchg
	cmp	$3, %rdi
	je	.Lor
	cmp	$4, %rdi
	je	.Lbtr
	.globl pte_op_mov
pte_op_mov:
	mov	%rdx, (%rsi)
	xor	%eax, %eax
	jmp	.Lresume
.Lxchg:
	.globl pte_op_xchg
pte_op_xchg:
	xchg	%rdx, (%rsi)
	mov	%rdx, %rax
	jmp	.Lresume
.Lcmpxchg:
	mov	%rcx, %rax
	.globl pte_op_cmpxchg
pte_op_cmpxchg:
	lock cmpxchg %rdx, (%rsi)
	jmp	.Lresume
.Lor:
	.globl pte_op_or
pte_op_or:
	lock orq %rdx, (%rsi)
	xor	%eax, %eax
	jmp	.Lresume
.Lbtr:
	xor	%eax, %eax
	.globl pte_op_btr
pte_op_btr:
	lock btrq %rdx, (%rsi)
	setc	%al
.Lresume:
	movq	$0, pf_fixup(%rip)
	ret

/*
 * #PF entry. Xen built [rcx, r11, error code, rip, cs, rflags, rsp, ss] on our stack. Outside
 * pte_op (pf_fixup == 0) this is the library's fatal path. Inside, record the fault and return
 * to .Lresume through HYPERVISOR_iret, whose frame is [rax, r11, rcx, flags, rip, cs, rflags,
 * rsp, ss]: one slot lower than ours, with rip and rsp replaced.
 */
	.globl pf_entry
pf_entry:
	cmpq	$0, pf_fixup(%rip)
	je	trap_14
	mov	16(%rsp), %rax
	mov	%rax, pf_error(%rip)
	mov	24(%rsp), %rax
	mov	%rax, pf_rip(%rip)
	mov	48(%rsp), %rax
	mov	%rax, pf_rsp(%rip)
	incq	pf_count(%rip)
	mov	pf_fixup(%rip), %rax
	mov	%rax, 24(%rsp)		/* rip */
	mov	pf_saved_rsp(%rip), %rax
	mov	%rax, 48(%rsp)		/* rsp */
	mov	(%rsp), %rax		/* rcx */
	mov	8(%rsp), %rcx		/* r11 */
	mov	%rcx, (%rsp)		/* iret frame: r11 at +8 of the new base */
	mov	%rax, 8(%rsp)		/* rcx at +16 */
	movq	$0, 16(%rsp)		/* flags: not in a syscall */
	sub	$8, %rsp
	movabs	$0xfa017ed0fa017ed0, %rax
	mov	%rax, (%rsp)		/* rax: PTE_OP_FAULTED */
	mov	$23, %eax		/* __HYPERVISOR_iret */
	syscall
	ud2

	.data
	.balign 8
	.globl pf_count, pf_error, pf_rip, pf_rsp
pf_fixup:	.quad 0
pf_saved_rsp:	.quad 0
pf_count:	.quad 0
pf_error:	.quad 0
pf_rip:		.quad 0
pf_rsp:		.quad 0
