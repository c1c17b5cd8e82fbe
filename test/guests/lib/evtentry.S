/*
 * evtentry.S: the event callbacks, one entry per vCPU (events_entry for vCPU 0, events_entry1 for
 * vCPU 1: a vCPU's callback comes from its own CALLBACKOP_register or VCPUOP_initialise context,
 * so the address says whose it is). Xen enters one on the kernel stack with the frame
 * [rcx, r11, rip, cs, rflags, rsp, ss] and events masked. We put rcx and r11 back, save every
 * other register, run events_dispatch(vcpu) on a 16-byte aligned stack, restore everything and
 * leave through HYPERVISOR_iret, whose frame is [rax, r11, rcx, flags, rip, cs, rflags, rsp, ss]:
 * the interrupted code cannot tell (flags 0: not returning from a syscall, so rcx/r11 come back).
 */
#include "gprs.h"

	.text
	.code64
	.macro	EVENT_ENTRY name, vcpu
	.globl	\name
\name:
	pop	%rcx
	pop	%r11
	PUSH_GPRS
	mov	$\vcpu, %edi
	jmp	events_common
	.endm

	EVENT_ENTRY events_entry, 0
	EVENT_ENTRY events_entry1, 1

events_common:
	mov	%rsp, %rbx
	and	$-16, %rsp
	call	events_dispatch
	mov	%rbx, %rsp
	POP_GPRS
	IRET_BELOW_RIP
	ud2
