/* mmu_env.c: what pv/mm/pagetype.c needs from the shim: frame contents, the shim's L4 slots, the
 * safety flush, and the per-frame words themselves (4 bytes per frame, from the shim's pool). */
#include "compat/compat.h"
#include "pv/domain/domain.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/xerrno.h"
#include "shim/xpti.h"

uint64_t *pt_frame(uint64_t mfn)
{
    return phys_to_virt(mfn << PAGE_SHIFT);
}

/* The read-only m2p's slot (public/xen.h VMASST_TYPE_m2p_strict, Xen's init_xen_l4_slots): a new
 * L4 gets it only under m2p_strict; otherwise it is filled when the L4 becomes a kernel base
 * (pv_l4_ro_m2p), so an L4 only ever used for user mode never shows the m2p. */
void pt_l4_init_reserved(uint64_t *l4)
{
    const uint64_t *idle = phys_to_virt(idle_root_pa);

    for (unsigned s = PV_SLOT_FIRST; s <= PV_SLOT_LAST; s++)
        l4[s] = idle[s];
    if (!(pv_dom.vm_assist & (1ull << VMASST_TYPE_m2p_strict)))
        l4[PV_SLOT_RO_M2P] = 0;
}

void pt_l2_xen_slots(uint64_t *l2)
{
    compat_l2_xen_slots(l2);
}

void pv_l4_ro_m2p(uint64_t mfn, bool present)
{
    const uint64_t *idle = phys_to_virt(idle_root_pa);

    uint64_t e = present ? idle[PV_SLOT_RO_M2P] : 0;

    __atomic_store_n(&pt_frame(mfn)[PV_SLOT_RO_M2P], e, __ATOMIC_RELAXED);
    xpti_l4_written(mfn, PV_SLOT_RO_M2P, e);
}

void pt_l4_written(uint64_t mfn, unsigned slot, uint64_t val)
{
    xpti_l4_written(mfn, slot, val);
}

uint32_t pt_clock_stamp(void)
{
    return flush_clock_stamp();
}

/* A frame changes type while a TLB may still hold it in the old one (XSA-286): every CPU that
 * may hold it and has not flushed since it was let go flushes before it goes on. L0's assisted
 * flush is complete and synchronous, so it serves here as well as IPIs do (flush.c);
 * test/guests/smp's stale-translation checks run on both. */
void pt_flush_since(uint32_t stamp)
{
    flush_tlb_since(FLUSH_CPUS_ALL, stamp, FLUSH_ALL);
}

int pv_mmu_init(uint64_t nr_frames)
{
    uint64_t pages = ALIGN_UP(nr_frames * sizeof(uint32_t), PAGE_SIZE) >> PAGE_SHIFT;
    int64_t first = alloc_frames(pages);

    if (first < 0)
        return ERR(-XEN_ENOMEM);
    pt_init(phys_to_virt((uint64_t)first << PAGE_SHIFT), nr_frames, paging_global);
    return 0;
}
