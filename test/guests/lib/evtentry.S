/*
 * evtentry.S: the event callback. Xen enters it on the kernel stack with the frame
 * [rcx, r11, rip, cs, rflags, rsp, ss] and events masked. We put rcx and r11 back, save every
 * other register, run events_dispatch() on a 16-byte aligned stack, restore everything and leave
 * through HYPERVISOR_iret, whose frame is [rax, r11, rcx, flags, rip, cs, rflags, rsp, ss]:
 * the interrupted code cannot tell (flags 0: not returning from a syscall, so rcx/r11 come back).
 */
	.text
	.code64
	.globl events_entry
events_entry:
	pop	%rcx
	pop	%r11
	push	%rax
	push	%rbx
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%rbp
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rsp, %rbx
	and	$-16, %rsp
	call	events_dispatch
	mov	%rbx, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rbp
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rbx
	pop	%rax
	push	$0		/* flags */
	push	%rcx
	push	%r11
	push	%rax
	mov	$23, %eax	/* __HYPERVISOR_iret */
	syscall
	ud2
