/*
 * sites.S: the traps test's fault sites (one instruction each, at a known address), its entry
 * points for software-interrupt vectors, and a raw HYPERVISOR_iret with a frame of its choosing.
 *
 * A site is a function: site_<name> sets up registers, site_<name>_at is the instruction that
 * traps, site_<name>_end what follows it (a trap resumes there: at the frame's own rip for traps,
 * moved there by main.c's trap_hook for faults).
 */
#include <xen/xen.h>
#include "gprs.h"

	.text
	.code64

.macro SITE name:req, setup:req, insn:vararg
	.globl site_\name, site_\name\()_at, site_\name\()_end
site_\name:
	\setup
site_\name\()_at:
	\insn
site_\name\()_end:
	ret
.endm

SITE div0,	"xor %ecx, %ecx; xor %edx, %edx; mov $1, %eax", div %rcx
SITE int3,	nop, int3
SITE int_3,	nop, int $3
SITE int_4,	nop, int $4
SITE ud2,	nop, ud2
SITE lgdt,	nop, lgdt lgdt_operand(%rip)
SITE inb,	nop, inb $0x80, %al
SITE stepcr0,	"pushf; orl $0x100, (%rsp); popf", mov %cr0, %rax
SITE int80,	nop, int $0x80
SITE int81,	nop, int $0x81
SITE int82,	nop, int $0x82
SITE int83,	nop, int $0x83
/* unsigned long site_read(const void *p), site_write(void *p): a #PF (or #GP) at the access */
SITE read,	nop, mov (%rdi), %rax
SITE write,	nop, movq $1, (%rdi)
/* a hardware instruction breakpoint's target */
SITE bp,	nop, nop

/* Entry points for the software-interrupt vectors the test registers (no error code). */
TRAP 0x80
TRAP 0x82
TRAP 0x83

/*
 * void iret_probe(unsigned long cs, unsigned long rflags, unsigned long flags)
 * HYPERVISOR_iret to iret_probe_back with [rax, r11, rcx, flags, rip, cs, rflags, rsp, ss] =
 * [IRET_RAX, IRET_R11, IRET_RCX, flags, iret_probe_back, cs, rflags, our rsp, FLAT_KERNEL_SS];
 * then records in iret_seen what came back: rax, rcx, r11, the CS selector and the rflags (one
 * nop first: with TF in rflags, the single-step #DB comes right after it, at iret_probe_step).
 * The values are stored in memory, not passed in registers: only rax, rcx and r11 are defined
 * after a hypercall.
 */
#define IRET_RAX 0x1a1a1a1a1a1a1a1a
#define IRET_RCX 0x2c2c2c2c2c2c2c2c
#define IRET_R11 0x3b3b3b3b3b3b3b3b
	.globl iret_probe, iret_probe_back, iret_probe_step, iret_seen
iret_probe:
	mov	%rsp, %rax
	pushq	$FLAT_KERNEL_SS
	pushq	%rax			/* rsp: where we are, the return address on top */
	pushq	%rsi			/* rflags */
	pushq	%rdi			/* cs */
	lea	iret_probe_back(%rip), %rax
	pushq	%rax			/* rip */
	pushq	%rdx			/* flags */
	movabs	$IRET_RCX, %rax
	pushq	%rax
	movabs	$IRET_R11, %rax
	pushq	%rax
	movabs	$IRET_RAX, %rax
	pushq	%rax
	mov	$__HYPERVISOR_iret, %eax
	syscall
	ud2				/* iret does not come back */
iret_probe_back:
	nop
iret_probe_step:
	mov	%rax, iret_seen(%rip)
	mov	%rcx, iret_seen+8(%rip)
	mov	%r11, iret_seen+16(%rip)
	mov	%cs, %eax
	mov	%rax, iret_seen+24(%rip)
	pushfq
	popq	%rax
	mov	%rax, iret_seen+32(%rip)
	ret

	.data
	.align 8
iret_seen:
	.quad 0, 0, 0, 0, 0
lgdt_operand:				/* never loaded: lgdt outside ring 0 is #GP(0) first */
	.quad 0, 0
