/*
 * x86_32/evtentry.S: the event callbacks of the 32-bit build (see ../evtentry.S), one per vCPU.
 * Xen enters one with a CPU's frame [eip, cs, eflags] (and esp, ss from ring 3), events masked,
 * and the interrupted code's !mask folded into the frame's IF. We save every register, run
 * events_dispatch(vcpu) and leave through the iret hypercall (compat_iret: eax below the frame),
 * which takes the event mask back from that IF: the interrupted code cannot tell.
 */
#include <xen/xen.h>

	.text
	.code32
	.macro	EVENT_ENTRY name, vcpu
	.globl	\name
\name:
	pusha
	push	$\vcpu
	jmp	events_common
	.endm

	EVENT_ENTRY events_entry, 0
	EVENT_ENTRY events_entry1, 1

events_common:
	call	events_dispatch
	add	$4, %esp
	popa
	push	%eax
	mov	$__HYPERVISOR_iret, %eax
	int	$0x82
	ud2
