/*
 * x86_32/probe.S: the probes of probe.h for the 32-bit build (see ../probe.S). Arguments are on
 * the stack (cdecl; a uint64_t takes two slots, low first); a probe uses eax, ecx and edx and
 * touches the stack before its access only where it must save ebx and esi (cmpxchg8b), and
 * then its recovery label pops them again, so `ret` goes back to the caller either way.
 * A 64-bit value takes two 32-bit accesses, as a PAE guest writes its entries (Linux's order
 * for a store: high half first, so an entry never becomes present with a stale high half); the
 * probe's label is the first of them. xchg and cmpxchg are one lock cmpxchg8b each.
 */
	.text
	.code32

.macro PROBE name:req
	.globl probe_\name
probe_\name:
	movl	$.Lfail_\name, probe_fixup
.endm

.macro DONE name:req
	movl	$0, probe_fixup
	mov	$1, %eax
	ret
.Lfail_\name:
	movl	$0, probe_fixup
	xor	%eax, %eax
	ret
.endm

/* the same with ebx and esi pushed before the access */
.macro DONE_POP name:req
	movl	$0, probe_fixup
	pop	%esi
	pop	%ebx
	mov	$1, %eax
	ret
.Lfail_\name:
	movl	$0, probe_fixup
	pop	%esi
	pop	%ebx
	xor	%eax, %eax
	ret
.endm

/* bool probe_read(const void *p, uint64_t *val) */
PROBE read
	mov	4(%esp), %ecx
	.globl probe_insn_read
probe_insn_read:
	mov	(%ecx), %eax
	mov	4(%ecx), %edx
	mov	8(%esp), %ecx
	mov	%eax, (%ecx)
	mov	%edx, 4(%ecx)
DONE read

/* bool probe_write(void *p, uint64_t val) */
PROBE write
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	mov	12(%esp), %edx
	.globl probe_insn_write
probe_insn_write:
	mov	%edx, 4(%eax)
	mov	%ecx, (%eax)
DONE write

/* bool probe_write8(void *p, uint8_t val) */
PROBE write8
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	.globl probe_insn_write8
probe_insn_write8:
	mov	%cl, (%eax)
DONE write8

/* bool probe_xchg(void *p, uint64_t val, uint64_t *old): a cmpxchg8b loop (its first read is
 * the probe's label: a page that cannot be read faults there) */
PROBE xchg
	push	%ebx
	push	%esi
	mov	12(%esp), %esi
	mov	16(%esp), %ebx
	mov	20(%esp), %ecx
	.globl probe_insn_xchg
probe_insn_xchg:
	mov	(%esi), %eax
	mov	4(%esi), %edx
1:	lock cmpxchg8b (%esi)
	jnz	1b
	mov	24(%esp), %esi
	mov	%eax, (%esi)
	mov	%edx, 4(%esi)
DONE_POP xchg

/* bool probe_cmpxchg(void *p, uint64_t expect, uint64_t val, uint64_t *seen) */
PROBE cmpxchg
	push	%ebx
	push	%esi
	mov	12(%esp), %esi
	mov	16(%esp), %eax
	mov	20(%esp), %edx
	mov	24(%esp), %ebx
	mov	28(%esp), %ecx
	.globl probe_insn_cmpxchg
probe_insn_cmpxchg:
	lock cmpxchg8b (%esi)
	mov	32(%esp), %esi
	mov	%eax, (%esi)
	mov	%edx, 4(%esi)
DONE_POP cmpxchg

/* bool probe_lock_orb(void *p, uint8_t val) */
PROBE lock_orb
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	.globl probe_insn_orb
probe_insn_orb:
	lock orb %cl, (%eax)
DONE lock_orb

/* bool probe_lock_andb(void *p, uint8_t val) */
PROBE lock_andb
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	.globl probe_insn_andb
probe_insn_andb:
	lock andb %cl, (%eax)
DONE lock_andb

/* bool probe_lock_orq(void *p, uint64_t val): two lock orl, low half first */
PROBE lock_orq
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	mov	12(%esp), %edx
	.globl probe_insn_orq
probe_insn_orq:
	lock orl %ecx, (%eax)
	lock orl %edx, 4(%eax)
DONE lock_orq

/* bool probe_lock_btr(void *p, uint64_t bit, bool *cf): bit below 2^32 */
PROBE lock_btr
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	.globl probe_insn_btr
probe_insn_btr:
	lock btrl %ecx, (%eax)
	mov	16(%esp), %edx
	setc	(%edx)
DONE lock_btr

/* bool probe_load_fs(uint16_t sel) */
PROBE load_fs
	movzwl	4(%esp), %eax
	.globl probe_insn_load_fs
probe_insn_load_fs:
	mov	%ax, %fs
DONE load_fs

/* bool probe_dr_read<N>(uint64_t *val), bool probe_dr_write<N>(uint64_t val): 32-bit moves */
.macro DR_READ n:req
PROBE dr_read\n
	.globl probe_insn_dr_read\n
probe_insn_dr_read\n:
	mov	%db\n, %eax
	mov	4(%esp), %ecx
	mov	%eax, (%ecx)
	movl	$0, 4(%ecx)
DONE dr_read\n
.endm
.macro DR_WRITE n:req
PROBE dr_write\n
	mov	4(%esp), %eax
	.globl probe_insn_dr_write\n
probe_insn_dr_write\n:
	mov	%eax, %db\n
DONE dr_write\n
.endm
DR_READ 0
DR_READ 4
DR_READ 5
DR_READ 6
DR_READ 7
DR_WRITE 0
DR_WRITE 4
DR_WRITE 6
DR_WRITE 7

/* bool probe_hlt(void) */
PROBE hlt
	.globl probe_insn_hlt
probe_insn_hlt:
	hlt
DONE hlt

/* bool probe_xsetbv(uint32_t reg, uint64_t val) */
PROBE xsetbv
	mov	4(%esp), %ecx
	mov	8(%esp), %eax
	mov	12(%esp), %edx
	.globl probe_insn_xsetbv
probe_insn_xsetbv:
	xsetbv
DONE xsetbv

/* bool probe_vmovdqu(const void *p) */
PROBE vmovdqu
	mov	4(%esp), %eax
	.globl probe_insn_vmovdqu
probe_insn_vmovdqu:
	vmovdqu	(%eax), %ymm0
DONE vmovdqu

/* bool probe_rdmsr(uint32_t msr, uint64_t *val) */
PROBE rdmsr
	mov	4(%esp), %ecx
	.globl probe_insn_rdmsr
probe_insn_rdmsr:
	rdmsr
	mov	8(%esp), %ecx
	mov	%eax, (%ecx)
	mov	%edx, 4(%ecx)
DONE rdmsr

/* bool probe_wrmsr(uint32_t msr, uint64_t val) */
PROBE wrmsr
	mov	4(%esp), %ecx
	mov	8(%esp), %eax
	mov	12(%esp), %edx
	.globl probe_insn_wrmsr
probe_insn_wrmsr:
	wrmsr
DONE wrmsr

/* bool probe_fnop(void) */
PROBE fnop
	.globl probe_insn_fnop
probe_insn_fnop:
	fnop
DONE fnop
