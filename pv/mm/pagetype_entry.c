/*
 * pagetype_entry.c: one entry's rules (see pagetype.h): what a guest may write at each level, the
 * reference a present entry holds (a writable mapping its frame's WRITABLE type, a table entry the
 * next level's type, a linear entry Xen's linear count) and its release, and what an accepted
 * entry becomes when stored.
 */
#include "pv/mm/pagetype.h"
#include "pv/mm/pagetype_bits.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

uint64_t pt_adjust(unsigned level, uint64_t e)
{
    /* The guest kernel runs in ring 3, so every present entry needs U. As Xen does, an L1 entry
     * the guest meant for its kernel (no U) is also tagged with bit 52 (_PAGE_GUEST_KERNEL), so
     * that what it reads back is what Xen would show. G is kept while CR4.PGE is off (the
     * default, seed 002: the hardware ignores it). With global-pages=on it is dropped from
     * kernel entries, as a global one would outlive the switch to the user page tables; on user
     * entries it stays, and guest flushes then flush global entries too (flush.c), as Xen's. */
    if (pv_mm.compat)       /* a ring-1 kernel needs no U; the long-mode L3 needs RW and U */
        return level == 3 && (e & E_P) ? e | E_RW | E_US : e;
    if (!(e & E_P) || (e & E_US))
        return e;
    if (pv_mm.strip_global)
        e &= ~E_G;
    return e | E_US | (level == 1 ? E_GUEST_KERNEL : 0);
}

static int get_l1e(uint64_t e)
{
    uint64_t mfn = (e & PTE_ADDR_MASK) >> 12;

    if (e & ~L1_ALLOWED)
        return ERR(-XEN_EINVAL);
    if (pv_mfn_is_special(mfn))
        return (e & E_RW) && fixed_readonly(mfn) ? ERR(-XEN_EPERM) : 0;
    if (!tracked_guest(mfn))            /* Xen: RAM it does not own -EBUSY, anything else (I/O) -EPERM */
        return ERR(mfn < pv_mm.nr ? -XEN_EBUSY : -XEN_EPERM);
    if ((e & E_RW) && pt_get_type(mfn, PGT_WRITABLE))
        return ERR(-XEN_EBUSY);
    return 0;
}

static void put_l1e(uint64_t e)
{
    uint64_t mfn = (e & PTE_ADDR_MASK) >> 12;

    if ((e & E_RW) && !pv_mfn_is_special(mfn))
        pt_put_type(mfn);
}

/* A level-`level` entry mapping a table of its own level: a linear page table (Xen's rules). */
static bool get_linear(unsigned level, uint64_t table, uint64_t target, uint64_t e)
{
    if (e & E_RW)
        return false;
    if (target == table)
        return true;                    /* maps itself: no reference, nothing can change under it */
    if (!tracked_guest(target))
        return false;
    uint32_t x = pv_mm.info[target];
    if (pgi_type(x) != level || !(x & PGI_VALIDATED) || pgi_count(x) == PGI_COUNT_MASK)
        return false;
    if (!pt_lin_add(table, 1))
        return false;
    if (!pt_lin_add(target, -1)) {
        pt_lin_undo(table, 1);
        return false;
    }
    pv_mm.info[target]++;
    return true;
}

int pt_get_entry(unsigned level, uint64_t table_mfn, unsigned slot, uint64_t e)
{
    ASSERT(e & E_P);
    if (level == 1)
        return get_l1e(e);
    if (e & ~(pv_mm.compat && level == 3 ? COMPAT_L3_ALLOWED : UPPER_ALLOWED))
        return ERR(-XEN_EINVAL);

    uint64_t target = (e & PTE_ADDR_MASK) >> 12;
    if (pv_mm.compat && level == 3) {
        /* slot 3's L2 holds the hypervisor's entries, for this L3 alone (Xen: PGT_pae_xen_l2,
         * pae_xen_mappings_check); no linear L3s in a 32-bit guest */
        if (slot != 3)
            return pt_get_type(target, PGT_L2);
        int rc = pt_get_type(target, PGT_L2_XEN);
        if (!rc && pgi_count(pv_mm.info[target]) != 1) {
            pt_put_type(target);
            rc = ERR(-XEN_EINVAL, "an L2 with the hypervisor's slots serves one L3 only");
        }
        return rc;
    }
    int rc = pt_get_type(target, level - 1);
    if (rc == -XEN_EINVAL && get_linear(level, table_mfn, target, e))
        rc = 0;
    return rc;
}

void pt_put_entry(unsigned level, uint64_t table_mfn, unsigned slot, uint64_t e)
{
    if (!(e & E_P))
        return;
    if (level == 1) {
        put_l1e(e);
        return;
    }
    uint64_t target = (e & PTE_ADDR_MASK) >> 12;
    if (target == table_mfn)
        return;
    if (pgi_type(pv_mm.info[target]) == level) {        /* a linear entry: undo get_linear */
        pt_lin_undo(target, -1);
        pt_lin_undo(table_mfn, 1);
    }
    pt_put_type(target);
}
