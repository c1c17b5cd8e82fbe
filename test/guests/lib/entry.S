/*
 * entry.S: exception entry points. For a 64-bit PV guest Xen builds the frame
 * [rcx, r11, (error code), rip, cs, rflags, rsp, ss] on the kernel stack: it used rcx and r11 to
 * get back to us. Each stub restores those two, makes the frame uniform (a 0 where the CPU pushes
 * no error code, then the vector) and hands a struct trap_frame to trap_entry(). That ends the test
 * (trap_fatal) unless a probe (probe.S) expected the fault and moved the frame's rip to its fixup:
 * then we go back there through HYPERVISOR_iret.
 */
#include <xen/xen.h>
#include "gprs.h"

	.text
	.code64

#include "trap-vectors.h"

/* Push order matches struct trap_frame in traps.h, read from the lowest address up. Global: a
 * test's own stubs for other vectors (TRAP in gprs.h) end here too. */
	.globl trap_common
trap_common:
	PUSH_GPRS
	mov	%rsp, %rdi
	mov	%rsp, %rbx		/* callee-saved: the frame, after the call */
	and	$-16, %rsp		/* the C ABI wants a 16-byte aligned call */
	call	trap_entry		/* returns only if the fault was expected */
	mov	%rbx, %rsp
	POP_GPRS
	/*
	 * Left: [vector, error, rip, cs, rflags, rsp, ss]. HYPERVISOR_iret wants
	 * [rax, r11, rcx, flags, rip, cs, rflags, rsp, ss]: two more slots below; flags 0 = not
	 * returning from a syscall, so Xen restores rcx and r11 from the frame.
	 */
	sub	$16, %rsp
	mov	%rax, (%rsp)
	mov	%r11, 8(%rsp)
	mov	%rcx, 16(%rsp)
	movq	$0, 24(%rsp)
	mov	$__HYPERVISOR_iret, %eax
	syscall
	mov	%rax, %rdi		/* iret came back: a hypervisor without it; say so */
	and	$-16, %rsp
	call	trap_iret_failed
	ud2
