/*
 * x86_32/sites.S: the traps test's fault sites for the 32-bit PAE build (see ../sites.S, the
 * 64-bit ones): the same sites, with the i386 calling convention (arguments on the stack), its
 * software-interrupt entry points, a hypercall through int $0x82, and a raw compat iret with a
 * frame of its choosing.
 */
#include "xen-abi.h"

	.text
	.code32

.macro SITE name:req, setup:req, insn:vararg
	.globl site_\name, site_\name\()_at, site_\name\()_end
site_\name:
	\setup
site_\name\()_at:
	\insn
site_\name\()_end:
	ret
.endm

SITE div0,	"xor %ecx, %ecx; xor %edx, %edx; mov $1, %eax", div %ecx
SITE int3,	nop, int3
SITE int_3,	nop, int $3
SITE int_4,	nop, int $4
SITE ud2,	nop, ud2
SITE lgdt,	nop, lgdt lgdt_operand
SITE inb,	nop, inb $0x80, %al
SITE stepcr0,	"pushf; orl $0x100, (%esp); popf", mov %cr0, %eax
SITE int80,	nop, int $0x80
SITE int81,	nop, int $0x81
SITE int83,	nop, int $0x83
/* The DPL-1 vector of this build: 0x82 is Xen's hypercall gate for 32-bit guests */
SITE int85,	nop, int $0x85
/* unsigned long site_read(const void *p), site_write(void *p): a #PF at the access */
SITE read,	"mov 4(%esp), %ecx", mov (%ecx), %eax
SITE write,	"mov 4(%esp), %ecx", movl $1, (%ecx)
/* a hardware instruction breakpoint's target */
SITE bp,	nop, nop

/*
 * long site_hc82(void): int $0x82 from the kernel with eax = xen_version, ebx = XENVER_version:
 * Xen's hypercall gate (entry_int82), whatever the trap table says for vector 0x82. Returns eax.
 */
	.globl site_hc82
site_hc82:
	push	%ebx
	mov	$__HYPERVISOR_xen_version, %eax
	xor	%ebx, %ebx		/* XENVER_version */
	xor	%ecx, %ecx
	int	$0x82
	pop	%ebx
	ret

/* Entry points for the software-interrupt vectors the test registers (no error code), into
 * lib/x86_32/entry.S's trap_common as its own stubs. */
.macro TRAP vec:req
	.globl trap_\vec
trap_\vec:
	push	$0
	push	$\vec
	jmp	trap_common
.endm
TRAP 0x80
TRAP 0x82
TRAP 0x83
TRAP 0x85

/*
 * void iret_probe(unsigned long cs, unsigned long eflags, unsigned long flags)
 * HYPERVISOR_iret (compat_iret) to iret_probe_back with [eax, eip, cs, eflags] =
 * [IRET_EAX, iret_probe_back, cs, eflags] (flags: 64-bit only, unused), back in ring 1, so no
 * esp and ss in the frame. Records in iret_seen what came back: eax, esp, the CS selector, the
 * eflags, and esp as it was before the frame was pushed (one nop first: with TF in eflags, the
 * single-step #DB comes right after it, at iret_probe_step).
 */
#define IRET_EAX 0x1a1a1a1a
	.globl iret_probe, iret_probe_back, iret_probe_step, iret_seen
iret_probe:
	mov	%esp, iret_seen+16	/* esp before: the return address on top */
	mov	4(%esp), %ecx		/* cs */
	mov	8(%esp), %edx		/* eflags */
	push	%edx
	push	%ecx
	push	$iret_probe_back	/* eip */
	push	$IRET_EAX
	mov	$__HYPERVISOR_iret, %eax
	int	$0x82
	ud2				/* iret does not come back */
iret_probe_back:
	nop
iret_probe_step:
	mov	%eax, iret_seen
	mov	%esp, iret_seen+4
	xor	%eax, %eax
	mov	%cs, %ax
	mov	%eax, iret_seen+8
	pushf
	pop	%eax
	mov	%eax, iret_seen+12
	ret

	.data
	.align 4
iret_seen:
	.long 0, 0, 0, 0, 0
lgdt_operand:				/* never loaded: lgdt outside ring 0 is #GP(0) first */
	.long 0, 0

/*
 * unsigned long native_iret_probe(unsigned long eflags): a native iret in ring 1 to ring 1,
 * [eip, cs, eflags] = [1f, FLAT_KERNEL_CS, eflags], no hypercall; returns the eflags after it.
 */
	.text
	.globl native_iret_probe
native_iret_probe:
	mov	4(%esp), %eax
	push	%eax			/* eflags */
	push	$FLAT_KERNEL_CS
	push	$1f
	iret
1:	pushf
	pop	%eax
	ret
