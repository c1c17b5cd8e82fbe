/*
 * probe.S: the probes of probe.h. Each sets probe_fixup to its recovery label, runs its one
 * access, clears probe_fixup and returns true. A fault on the access lands in probe_recover()
 * (probe.c), which records it and moves the frame's rip to probe_fixup: the label clears it and
 * returns false. (probe_fixup lives in probe.c: referring to it pulls the recovery into the link.)
 * No probe touches the stack before its access, so the rsp of the fault is the
 * probe's own and `ret` from the label goes back to the caller.
 */
	.text
	.code64

.macro PROBE name:req
	.globl probe_\name
probe_\name:
	lea	.Lfail_\name(%rip), %rax
	mov	%rax, probe_fixup(%rip)
.endm

.macro DONE name:req
	movq	$0, probe_fixup(%rip)
	mov	$1, %eax
	ret
.Lfail_\name:
	movq	$0, probe_fixup(%rip)
	xor	%eax, %eax
	ret
.endm

/* bool probe_read(const void *p, uint64_t *val) */
PROBE read
	.globl probe_insn_read
probe_insn_read:
	mov	(%rdi), %rdx
	mov	%rdx, (%rsi)
DONE read

/* bool probe_write(void *p, uint64_t val) */
PROBE write
	.globl probe_insn_write
probe_insn_write:
	mov	%rsi, (%rdi)
DONE write

/* bool probe_write8(void *p, uint8_t val) */
PROBE write8
	.globl probe_insn_write8
probe_insn_write8:
	mov	%sil, (%rdi)
DONE write8

/* bool probe_xchg(void *p, uint64_t val, uint64_t *old) */
PROBE xchg
	.globl probe_insn_xchg
probe_insn_xchg:
	xchg	%rsi, (%rdi)
	mov	%rsi, (%rdx)
DONE xchg

/* bool probe_cmpxchg(void *p, uint64_t expect, uint64_t val, uint64_t *seen) */
PROBE cmpxchg
	mov	%rsi, %rax
	.globl probe_insn_cmpxchg
probe_insn_cmpxchg:
	lock cmpxchg %rdx, (%rdi)
	mov	%rax, (%rcx)
DONE cmpxchg

/* bool probe_lock_orb(void *p, uint8_t val) */
PROBE lock_orb
	.globl probe_insn_orb
probe_insn_orb:
	lock orb %sil, (%rdi)
DONE lock_orb

/* bool probe_lock_andb(void *p, uint8_t val) */
PROBE lock_andb
	.globl probe_insn_andb
probe_insn_andb:
	lock andb %sil, (%rdi)
DONE lock_andb

/* bool probe_lock_orq(void *p, uint64_t val) */
PROBE lock_orq
	.globl probe_insn_orq
probe_insn_orq:
	lock orq %rsi, (%rdi)
DONE lock_orq

/* bool probe_lock_btr(void *p, uint64_t bit, bool *cf): lock btr, its carry (the bit's old value) */
PROBE lock_btr
	.globl probe_insn_btr
probe_insn_btr:
	lock btrq %rsi, (%rdi)
	setc	(%rdx)
DONE lock_btr

/* bool probe_load_fs(uint16_t sel): mov to %fs (a descriptor-table access that may fault) */
PROBE load_fs
	.globl probe_insn_load_fs
probe_insn_load_fs:
	mov	%di, %fs
DONE load_fs

/* Moves to and from debug registers, which the kernel's ring may not execute: each is emulated
 * (or refused with #GP, or #UD for a register that does not exist).
 * bool probe_dr_read<N>(uint64_t *val), bool probe_dr_write<N>(uint64_t val) */
.macro DR_READ n:req
PROBE dr_read\n
	.globl probe_insn_dr_read\n
probe_insn_dr_read\n:
	mov	%db\n, %rax
	mov	%rax, (%rdi)
DONE dr_read\n
.endm
.macro DR_WRITE n:req
PROBE dr_write\n
	.globl probe_insn_dr_write\n
probe_insn_dr_write\n:
	mov	%rdi, %db\n
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

/* bool probe_hlt(void): hlt, which a PV kernel may not execute (#GP) */
PROBE hlt
	.globl probe_insn_hlt
probe_insn_hlt:
	hlt
DONE hlt

/* bool probe_xsetbv(uint32_t reg, uint64_t val): privileged, so emulated for a PV kernel (#UD
 * without CR4.OSXSAVE, #GP for a value refused) */
PROBE xsetbv
	mov	%edi, %ecx
	mov	%rsi, %rax
	mov	%rsi, %rdx
	shr	$32, %rdx
	.globl probe_insn_xsetbv
probe_insn_xsetbv:
	xsetbv
DONE xsetbv

/* bool probe_vmovdqu(const void *p): an AVX load of 32 bytes into ymm0 (#UD while XCR0 lacks
 * the AVX state) */
PROBE vmovdqu
	.globl probe_insn_vmovdqu
probe_insn_vmovdqu:
	vmovdqu	(%rdi), %ymm0
DONE vmovdqu

/* bool probe_rdmsr(uint32_t msr, uint64_t *val) */
PROBE rdmsr
	mov	%edi, %ecx
	.globl probe_insn_rdmsr
probe_insn_rdmsr:
	rdmsr
	shl	$32, %rdx
	mov	%eax, %eax
	or	%rdx, %rax
	mov	%rax, (%rsi)
DONE rdmsr

/* bool probe_wrmsr(uint32_t msr, uint64_t val) */
PROBE wrmsr
	mov	%edi, %ecx
	mov	%rsi, %rax
	mov	%rsi, %rdx
	shr	$32, %rdx
	.globl probe_insn_wrmsr
probe_insn_wrmsr:
	wrmsr
DONE wrmsr

/* bool probe_fnop(void): an x87 instruction (#NM while the vCPU's CR0.TS is set) */
PROBE fnop
	.globl probe_insn_fnop
probe_insn_fnop:
	fnop
DONE fnop
