/* mm.h: the guest's MMU as the rest of pv/ sees it: page types, writable page tables, GDT/LDT. */
#ifndef PV_MM_MM_H
#define PV_MM_MM_H

#include "pv/domain/domain.h"
#include "shim/lib.h"

struct cpu_regs;
/* mmu_env.c: the page-type words for nr_frames frames. */
int pv_mmu_init(uint64_t nr_frames);
/* The read-only m2p's slot of a validated L4, filled or zapped (Xen's fill_ro_mpt/zap_ro_mpt). */
void pv_l4_ro_m2p(uint64_t mfn, bool present);
static inline bool pv_m2p_strict(void)
{
    return pv_dom.vm_assist & (1ull << VMASST_TYPE_m2p_strict);
}

/* hypercall/mmu.c */
int pv_new_baseptr(uint64_t mfn);      /* MMUEXT_NEW_BASEPTR */
int pv_vcpumask_cpus(uint64_t ptr, uint64_t *cpus);    /* a guest vCPU bitmap's CPUs */

bool pv_ptwr_fault(struct cpu_regs *r, uint64_t cr2);  /* ptwr.c: a write to an L1 it emulated */

/* desc.c: the LDT. A #PF on this CPU's LDT window: true if a page was mapped (retry), else *cr2
 * becomes the guest's LDT address. */
bool pv_ldt_fault(struct cpu_regs *r, uint64_t *cr2);
void pv_set_ldt(uint64_t base, uint64_t ents);     /* MMUEXT_SET_LDT, arguments checked */
bool pv_selector_ok(uint16_t sel, bool code);       /* loadable for the guest */
enum pv_seg { PV_SEG_CS, PV_SEG_SS, PV_SEG_DATA };
bool pv_compat_selector_ok(uint16_t sel, enum pv_seg kind);   /* the same for a 32-bit guest */
int pv_gdt_hold(const uint64_t *frames, unsigned entries);      /* under the MMU lock */
void pv_gdt_install(const uint64_t *frames, unsigned entries);  /* this CPU's GDT; held frames */
void pv_ldt_drop(void);                             /* the page tables changed: unmap the LDT's pages */

#endif
