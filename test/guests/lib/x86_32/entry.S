/*
 * x86_32/entry.S: exception entry points of the 32-bit build. For a ring-1 kernel Xen builds the
 * frame a CPU would ([error code,] eip, cs, eflags, and esp, ss only when coming from ring 3),
 * with the saved upcall mask in bits 16-23 of the cs slot (compat_create_bounce_frame). Each stub
 * makes it uniform (a 0 where there is no error code, then the vector), saves the registers with
 * pusha and hands a struct trap_frame to trap_entry(). A fault it returns from goes back through
 * the iret hypercall (eax pushed below the frame), which also takes the event mask back.
 */
#include <xen/xen.h>
	.text
	.code32

.macro TRAP vec:req, err=0
	.globl trap_\vec
trap_\vec:
	.if \err == 0
	push	$0
	.endif
	push	$\vec
	jmp	trap_common
.endm

#include "trap-vectors.h"

	.globl trap_common
trap_common:
	pusha				/* struct trap_frame's registers: edi lowest */
	mov	%esp, %eax
	push	%eax
	call	trap_entry		/* returns only if the fault was expected */
	add	$4, %esp
	popa
	add	$8, %esp		/* the vector and the error code */
	push	%eax
	mov	$__HYPERVISOR_iret, %eax
	int	$0x82
	push	%eax			/* iret came back: a hypervisor without it; say so */
	call	trap_iret_failed
	ud2
