/*
 * gprs.h: assembler macros shared by the guest's entry stubs (.S files only). PUSH_GPRS saves the
 * 15 general registers in struct trap_frame's order (traps.h: r15 ends up lowest), POP_GPRS takes
 * them back. IRET_BELOW_RIP leaves through HYPERVISOR_iret when the stack holds
 * [rip, cs, rflags, rsp, ss] of a Xen frame whose rcx and r11 are back in their registers: it
 * pushes [rax, r11, rcx, flags 0] below it (flags 0: not a syscall return, so rcx and r11 come
 * back too), which is the frame the iret hypercall takes.
 */
#ifndef GUEST_GPRS_H
#define GUEST_GPRS_H

/* An exception entry point trap_<vec> for Xen's frame [rcx, r11, (error code), rip, ...]: take
 * rcx and r11 back, push a 0 where the CPU gives no error code, then the vector, and go on to
 * entry.S's trap_common (struct trap_frame). err=1 for the vectors with an error code. */
.macro TRAP vec:req, err=0
	.globl trap_\vec
trap_\vec:
	pop	%rcx
	pop	%r11
	.if \err == 0
	push	$0
	.endif
	push	$\vec
	jmp	trap_common
.endm

.macro PUSH_GPRS
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
.endm

.macro POP_GPRS
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
.endm

.macro IRET_BELOW_RIP
	push	$0
	push	%rcx
	push	%r11
	push	%rax
	mov	$23, %eax		/* __HYPERVISOR_iret */
	syscall
.endm

#endif
