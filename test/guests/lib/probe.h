/*
 * probe.h: single memory accesses that may fault, for tests that expect a fault (a write to a
 * read-only page table, to the m2p, a read through an unhooked mapping, a privileged or x87
 * instruction). Each probe is one
 * instruction; if it faults, the trap is recorded in probe_fault and the probe returns false
 * instead of ending the test. Any fault outside a probe is still fatal.
 */
#ifndef GUEST_PROBE_H
#define GUEST_PROBE_H

#include <stdbool.h>
#include <stdint.h>

struct probe_fault {
	unsigned long count;	/* faults caught so far */
	unsigned long vector, error, rip;
	unsigned long cr2;	/* vcpu_info's cr2, for a #PF */
};
extern volatile struct probe_fault probe_fault;

/* true: the access completed (results through the pointers); false: it faulted. */
bool probe_read(const void *p, uint64_t *val);
bool probe_write(void *p, uint64_t val);			/* mov */
bool probe_write8(void *p, uint8_t val);			/* movb */
bool probe_xchg(void *p, uint64_t val, uint64_t *old);		/* xchg (implicitly locked) */
bool probe_cmpxchg(void *p, uint64_t expect, uint64_t val, uint64_t *seen);	/* lock cmpxchg */
bool probe_lock_orb(void *p, uint8_t val);			/* lock orb */
bool probe_lock_andb(void *p, uint8_t val);			/* lock andb */
bool probe_lock_orq(void *p, uint64_t val);			/* lock orq */
bool probe_lock_btr(void *p, uint64_t bit, bool *cf);		/* lock btrq; *cf: the bit was set */
bool probe_load_fs(uint16_t sel);				/* mov %di, %fs */
bool probe_dr_read0(uint64_t *val);				/* mov %db0, %rax */
bool probe_dr_read4(uint64_t *val);
bool probe_dr_read5(uint64_t *val);
bool probe_dr_read6(uint64_t *val);
bool probe_dr_read7(uint64_t *val);
bool probe_dr_write0(uint64_t val);				/* mov %rdi, %db0 */
bool probe_dr_write4(uint64_t val);
bool probe_dr_write6(uint64_t val);
bool probe_dr_write7(uint64_t val);
bool probe_hlt(void);						/* hlt */
bool probe_fnop(void);						/* fnop (x87) */
bool probe_xsetbv(uint32_t reg, uint64_t val);			/* xsetbv */
bool probe_rdmsr(uint32_t msr, uint64_t *val);			/* rdmsr */
bool probe_wrmsr(uint32_t msr, uint64_t val);			/* wrmsr */
bool probe_vmovdqu(const void *p);				/* vmovdqu (%rdi), %ymm0 */

/* The faulting instruction of each probe, to check a fault's rip against. */
extern char probe_insn_read[], probe_insn_write[], probe_insn_write8[], probe_insn_xchg[],
	probe_insn_cmpxchg[], probe_insn_orb[], probe_insn_andb[], probe_insn_orq[], probe_insn_btr[],
	probe_insn_load_fs[], probe_insn_hlt[], probe_insn_fnop[], probe_insn_dr_read0[], probe_insn_dr_read4[],
	probe_insn_dr_read5[], probe_insn_dr_read6[], probe_insn_dr_read7[], probe_insn_dr_write0[],
	probe_insn_dr_write4[], probe_insn_dr_write6[], probe_insn_dr_write7[], probe_insn_xsetbv[],
	probe_insn_vmovdqu[], probe_insn_rdmsr[], probe_insn_wrmsr[];

#endif
