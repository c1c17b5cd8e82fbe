/*
 * iret.S: a multicall issued with a HYPERVISOR_iret frame on top of the stack, as the iret
 * hypercall finds it (struct iret_context: rax r11 rcx flags rip cs rflags rsp ss), so that an
 * iret entry inside the list has a real frame to return through.
 *
 * long mc_iret_call(multicall_entry_t *list, unsigned long count, const struct iret_context *f)
 * pushes f with rip = its own resume label and rsp = the stack as at our entry, then makes the
 * multicall. Either the multicall returns as a call does (mc_iret_path = 1, the frame popped
 * again), or an iret inside it went through the frame (mc_iret_path = 2: we resume at the label
 * with rsp back at our return address, rax, rcx and r11 from the frame). The result is rax.
 */
	.text
	.code64
	.globl	mc_iret_call
mc_iret_call:
	mov	%rsp, %rax
	push	64(%rdx)		/* ss */
	push	%rax			/* rsp: our return address on top */
	push	48(%rdx)		/* rflags */
	push	40(%rdx)		/* cs */
	lea	.Lresumed(%rip), %rax
	push	%rax			/* rip */
	push	24(%rdx)		/* flags */
	push	16(%rdx)		/* rcx */
	push	8(%rdx)			/* r11 */
	push	0(%rdx)			/* rax */
	mov	$13, %eax		/* __HYPERVISOR_multicall */
	syscall
	add	$72, %rsp
	movq	$1, mc_iret_path(%rip)
	ret
.Lresumed:
	movq	$2, mc_iret_path(%rip)
	mov	%rcx, mc_iret_rcx(%rip)
	mov	%r11, mc_iret_r11(%rip)
	ret

	.bss
	.balign	8
	.globl	mc_iret_path, mc_iret_rcx, mc_iret_r11
mc_iret_path:
	.skip	8
mc_iret_rcx:
	.skip	8
mc_iret_r11:
	.skip	8
