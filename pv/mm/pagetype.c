/*
 * pagetype.c: page types and counts, table validation and entry replacement (see pagetype.h;
 * one entry's rules are pagetype_entry.c's).
 *
 * The flush rule (XSA-286's lesson, never skipped): a frame that lost its last reference in one
 * type may still be reachable through stale TLB or paging-structure cache entries, writable if it
 * was WRITABLE, as a table if it was one. Before such a frame takes a different type, every TLB
 * is flushed. Frames are marked STALE when their count drops to zero and listed; one flush clears
 * the whole list, so a burst of type changes (Linux pinning a new page-table tree) costs one flush.
 * The list's latest TLB-flush clock stamp lets that flush leave out CPUs that flushed since.
 *
 * Callers serialise (the MMU lock in the shim); hardware may still set accessed/dirty bits in live
 * tables at any time, so live entries are only ever replaced with compare-and-exchange.
 */
#include "pv/mm/pagetype.h"
#include "pv/mm/pagetype_bits.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

struct pv_mm pv_mm;

#define STALE_MAX 128
static uint64_t stale[STALE_MAX];
static unsigned nr_stale;
static uint32_t stale_since;            /* the TLB-flush clock when the last of them went stale */

void pt_init(uint32_t *info, uint64_t nr, bool strip_global)
{
    pv_mm = (struct pv_mm){ .info = info, .nr = nr, .strip_global = strip_global };
    nr_stale = 0;
    pt_lin_reset();
}

void pt_fix_writable(uint64_t mfn)
{
    if (mfn < pv_mm.nr)
        pv_mm.info[mfn] = PGI_FIXED | ((uint32_t)PGT_WRITABLE << PGI_TYPE_SHIFT) | 1;
}

void pt_fix_readonly(uint64_t mfn)
{
    if (mfn < pv_mm.nr)
        pv_mm.info[mfn] = PGI_FIXED | ((uint32_t)PGT_NONE << PGI_TYPE_SHIFT) | 1;
}

static void safety_flush(void)
{
    pt_flush_since(stale_since);
    pv_mm.nr_safety_flushes++;
    for (unsigned i = 0; i < nr_stale; i++)
        pv_mm.info[stale[i]] &= ~PGI_STALE;
    nr_stale = 0;
}

static void mark_stale(uint64_t mfn)
{
    if (pv_mm.info[mfn] & PGI_STALE)
        return;
    if (nr_stale == STALE_MAX) {
        safety_flush();                 /* covers this frame too: its reference is already gone */
        return;
    }
    pv_mm.info[mfn] |= PGI_STALE;
    stale[nr_stale++] = mfn;
    stale_since = pt_clock_stamp();
}

/* ---- types ---- */

static int validate(uint64_t mfn, unsigned level);
static void devalidate(uint64_t mfn, unsigned level);

bool pt_l4_slot_reserved(unsigned slot)
{
    return slot >= 256 && slot <= 271;
}

int pt_get_type(uint64_t mfn, unsigned t)
{
    uint32_t xen_l2 = 0;

    if (t == PGT_L2_XEN) {
        t = PGT_L2;
        xen_l2 = PGI_XEN_L2;
    }
    if (pv_mfn_is_special(mfn) || (mfn < pv_mm.nr && (pv_mm.info[mfn] & PGI_FIXED)))
        return t == PGT_WRITABLE && !fixed_readonly(mfn) ? 0 : ERR(-XEN_EINVAL);
    if (!tracked_guest(mfn))
        return ERR(-XEN_EINVAL);

    uint32_t *p = &pv_mm.info[mfn], x = *p;
    if (pgi_count(x)) {
        if (pgi_type(x) != t || (x & PGI_XEN_L2) != xen_l2 || (t <= PGT_L4 && !(x & PGI_VALIDATED)) ||
            pgi_count(x) == PGI_COUNT_MASK)
            return ERR(-XEN_EINVAL);
        *p = x + 1;
        return 0;
    }
    if ((pgi_type(x) != t || (x & PGI_XEN_L2) != xen_l2) && (x & PGI_STALE))
        safety_flush();
    *p = (*p & (PGI_STALE | PGI_FIXED)) | ((uint32_t)t << PGI_TYPE_SHIFT) | xen_l2 | 1;
    if ((t >= PGT_L1 && t <= PGT_L4) || t == PGT_SEG_DESC) {
        int rc = t == PGT_SEG_DESC ? pt_desc_validate(mfn) : validate(mfn, t);
        if (rc) {
            *p &= ~PGI_COUNT_MASK;      /* no table references it: nothing can have cached it */
            return rc;
        }
        if (t != PGT_SEG_DESC)
            *p |= PGI_VALIDATED;
    }
    return 0;
}

void pt_put_type(uint64_t mfn)
{
    if (pv_mfn_is_special(mfn) || (mfn < pv_mm.nr && (pv_mm.info[mfn] & PGI_FIXED)))
        return;
    ASSERT(mfn < pv_mm.nr);

    uint32_t *p = &pv_mm.info[mfn];
    ASSERT(pgi_count(*p) > 0);
    if (pgi_count(*p) == 1) {
        ASSERT(!(*p & PGI_PINNED));
        if (*p & PGI_VALIDATED)
            devalidate(mfn, pgi_type(*p));
        *p &= ~(PGI_VALIDATED | PGI_COUNT_MASK | PGI_XEN_L2);
        mark_stale(mfn);
        return;
    }
    (*p)--;
}

/* ---- tables ---- */

/* Entries [0, n) of a table are the guest's: a 32-bit guest's L3 has four, and the L2 under
 * its slot 3 has the hypervisor's from PT_COMPAT_L2_XEN_FIRST. */
static unsigned guest_slots(uint64_t mfn, unsigned level)
{
    if (pv_mm.compat && level == 3)
        return 4;
    if (level == 2 && (pv_mm.info[mfn] & PGI_XEN_L2))
        return PT_COMPAT_L2_XEN_FIRST;
    return PT_ENTRIES;
}

static int validate(uint64_t mfn, unsigned level)
{
    uint64_t *t = pt_frame(mfn);
    unsigned i, n = guest_slots(mfn, level);
    int rc = 0;

    if (level == 4)
        pt_l4_init_reserved(t);
    if (pv_mm.compat && level == 3) {
        /* the MMU walks the whole page in long mode: what lies past slot 3 goes (as Xen) */
        memset(t + 4, 0, (PT_ENTRIES - 4) * sizeof(*t));
        if (!(__atomic_load_n(&t[3], __ATOMIC_RELAXED) & E_P))
            return ERR(-XEN_EINVAL, "a 32-bit guest's L3 needs slot 3 (the hypervisor's L2)");
    }
    for (i = 0; i < n; i++) {
        uint64_t e = __atomic_load_n(&t[i], __ATOMIC_RELAXED);
        if ((level == 4 && pt_l4_slot_reserved(i)) || !(e & E_P))
            continue;
        if ((rc = pt_get_entry(level, mfn, i, e)))
            break;
        t[i] = pt_adjust(level, e);
    }
    if (rc) {
        while (i-- > 0)
            if (!(level == 4 && pt_l4_slot_reserved(i)))
                pt_put_entry(level, mfn, i, t[i]);
        return rc;
    }
    if (n < PT_ENTRIES && level == 2)
        pt_l2_xen_slots(t);
    pv_mm.nr_validations++;
    return 0;
}

static void devalidate(uint64_t mfn, unsigned level)
{
    uint64_t *t = pt_frame(mfn);
    unsigned n = guest_slots(mfn, level);

    for (unsigned i = 0; i < n; i++) {
        if (level == 4 && pt_l4_slot_reserved(i))
            continue;
        uint64_t e = __atomic_load_n(&t[i], __ATOMIC_RELAXED);
        pt_put_entry(level, mfn, i, e);
        if (pv_mm.compat && level == 3 && (e & E_P))    /* as Xen's unadjust_guest_l3e */
            __atomic_store_n(&t[i], e & ~(E_RW | E_US | E_A), __ATOMIC_RELAXED);
    }
    pv_mm.nr_devalidations++;
}

/* Replace an entry: with `expect`, only if it still holds exactly *expect (else 1, nothing done). */
static int mod_entry(uint64_t table_mfn, unsigned slot, uint64_t val, bool preserve_ad, const uint64_t *expect)
{
    if (!tracked_guest(table_mfn) || slot >= PT_ENTRIES)
        return ERR(-XEN_EINVAL);
    uint32_t x = pv_mm.info[table_mfn];
    unsigned level = pgi_type(x);
    if (level < PGT_L1 || level > PGT_L4 || !pgi_count(x) || !(x & PGI_VALIDATED))
        return ERR(-XEN_EINVAL);
    if (level == 4 && pt_l4_slot_reserved(slot))
        return ERR(-XEN_EINVAL);
    if (pv_mm.compat && level == 3 && slot >= 3)
        return ERR(-XEN_EINVAL, "as Xen: a 32-bit guest's L3 slot 3 holds the hypervisor's L2");
    if (slot >= guest_slots(table_mfn, level))
        return ERR(-XEN_EPERM, "the hypervisor's slot of a 32-bit guest's L2");

    uint64_t *p = &pt_frame(table_mfn)[slot];
    uint64_t old = expect ? *expect : __atomic_load_n(p, __ATOMIC_RELAXED), nw;
    /* the CPU only ever sets A and D: everything else of `old` is stable under the caller's lock */
    bool fast = (old & E_P) && (val & E_P) && !((old ^ val) & ~FAST_BITS);
    if ((val & E_P) && !fast) {
        int rc = pt_get_entry(level, table_mfn, slot, val);
        if (rc)
            return rc;
    } else if (fast && (val & ~(level == 1 ? L1_ALLOWED : pv_mm.compat && level == 3 ? COMPAT_L3_ALLOWED : UPPER_ALLOWED))) {
        return ERR(-XEN_EINVAL);
    }
    val = pt_adjust(level, val);
    for (;;) {
        nw = preserve_ad ? val | (old & (E_A | E_D)) : val;
        uint64_t seen = old;
        if (__atomic_compare_exchange_n(p, &seen, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
            if (level == 4)
                pt_l4_written(table_mfn, slot, nw);     /* before the old entry's reference goes */
            break;
        }
        if (expect) {                   /* changed under us: undo, the caller recomputes */
            if ((val & E_P) && !fast)
                pt_put_entry(level, table_mfn, slot, val);
            return 1;
        }
        old = seen;
    }
    if ((old & E_P) && !fast)
        pt_put_entry(level, table_mfn, slot, old);
    return 0;
}

int pt_mod_entry(uint64_t table_mfn, unsigned slot, uint64_t val, bool preserve_ad)
{
    return mod_entry(table_mfn, slot, val, preserve_ad, NULL);
}

int pt_cmpxchg_entry(uint64_t table_mfn, unsigned slot, uint64_t old, uint64_t val)
{
    return mod_entry(table_mfn, slot, val, false, &old);
}

int pt_pin(uint64_t mfn, unsigned level)
{
    int rc;

    if (level < PGT_L1 || level > PGT_L4 || !tracked_guest(mfn))
        return ERR(-XEN_EINVAL);
    if ((rc = pt_get_type(mfn, level)))
        return rc;
    if (pv_mm.info[mfn] & PGI_PINNED) {
        pt_put_type(mfn);
        return ERR(-XEN_EINVAL);
    }
    pv_mm.info[mfn] |= PGI_PINNED;
    return 0;
}

int pt_unpin(uint64_t mfn)
{
    if (!tracked_guest(mfn) || !(pv_mm.info[mfn] & PGI_PINNED))
        return ERR(-XEN_EINVAL);
    pv_mm.info[mfn] &= ~PGI_PINNED;
    pt_put_type(mfn);
    return 0;
}
