/*
 * evtentry.S: the event callbacks, one entry per vCPU (events_entry for vCPU 0, events_entry1 for
 * vCPU 1: a vCPU's callback comes from its own CALLBACKOP_register or VCPUOP_initialise context,
 * so the address says whose it is). Xen enters one on the kernel stack with the frame
 * [rcx, r11, rip, cs, rflags, rsp, ss] and events masked. We put rcx and r11 back, save every
 * other register, run events_dispatch(vcpu) on a 16-byte aligned stack, restore everything and
 * leave through HYPERVISOR_iret, whose frame is [rax, r11, rcx, flags, rip, cs, rflags, rsp, ss]:
 * the interrupted code cannot tell (flags 0: not returning from a syscall, so rcx/r11 come back).
 */
	.text
	.code64
	.macro	EVENT_ENTRY name, vcpu
	.globl	\name
\name:
	pop	%rcx
	pop	%r11
	push	%rax
	mov	$\vcpu, %eax
	jmp	events_common
	.endm

	EVENT_ENTRY events_entry, 0
	EVENT_ENTRY events_entry1, 1

events_common:
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
	mov	%eax, %edi
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
