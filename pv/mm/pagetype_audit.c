/*
 * pagetype_audit.c: recount every reference from scratch and compare with the bookkeeping. The
 * invariants it checks are the PV MMU's safety argument: a frame has one type; every present
 * entry of a validated table reaches only guest frames (or the shared special pages), holds the
 * type its level demands, and is counted; a writable mapping never reaches a table; linear entries
 * are read-only and one level deep. Used by the unit tests and the fuzzer, not at run time.
 */
#include "pv/mm/pagetype.h"
#include "pv/mm/pagetype_bits.h"

static bool is_table(unsigned t)
{
    return t >= PGT_L1 && t <= PGT_L4;
}

int pt_audit(const uint32_t *extra, uint32_t *want, uint32_t *lin_ent, uint32_t *lin_use, const char **why)
{
    uint64_t nr = pv_mm.nr;

    memset(want, 0, nr * sizeof(*want));
    memset(lin_ent, 0, nr * sizeof(*lin_ent));
    memset(lin_use, 0, nr * sizeof(*lin_use));
    for (uint64_t f = 0; f < nr; f++) {
        uint32_t x = pv_mm.info[f];
        unsigned level = pgi_type(x);
        if (x & PGI_FIXED)
            continue;
        want[f] += (x & PGI_PINNED ? 1 : 0) + (extra ? extra[f] : 0);
        if (!(x & PGI_VALIDATED))
            continue;
        if (!is_table(level) || !pv_mfn_is_guest(f)) {
            *why = "a validated frame that is not a guest page table";
            return -1;
        }
        const uint64_t *t = pt_frame(f);
        /* a 32-bit guest's L3 has 4 entries; its slot-3 L2's top ones are the hypervisor's */
        unsigned n = level == 2 && (x & PGI_XEN_L2) ? PT_COMPAT_L2_XEN_FIRST : pv_mm.compat && level == 3 ? 4 : PT_ENTRIES;
        for (unsigned i = 0; i < n; i++) {
            uint64_t e = t[i], g = (e & PTE_ADDR_MASK) >> 12;
            if ((level == 4 && pt_l4_slot_reserved(i)) || !(e & E_P))
                continue;
            if (level == 1 && pv_mfn_is_special(g))
                continue;
            if (g >= nr || !pv_mfn_is_guest(g) || (pv_mm.info[g] & PGI_FIXED)) {
                *why = "a validated table reaches a frame that is not the guest's";
                return -1;
            }
            unsigned tt = pgi_type(pv_mm.info[g]);
            if (level == 1) {
                if (!(e & E_RW))
                    continue;
                if (tt != PGT_WRITABLE) {
                    *why = "a writable mapping of a frame that is not of writable type";
                    return -1;
                }
                want[g]++;
            } else if (g == f || tt == level) {
                if (e & E_RW) {
                    *why = "a writable linear page-table entry";
                    return -1;
                }
                if (g != f) {
                    want[g]++;
                    lin_ent[f]++;
                    lin_use[g]++;
                }
            } else if (tt == level - 1 && (pv_mm.info[g] & PGI_VALIDATED)) {
                want[g]++;
            } else {
                *why = "a table entry whose target is not a validated table one level down";
                return -1;
            }
        }
    }
    for (uint64_t f = 0; f < nr; f++) {
        uint32_t x = pv_mm.info[f];
        if (x & PGI_FIXED)
            continue;
        if (pgi_count(x) != want[f]) {
            *why = "a reference count differs from the references found";
            return -1;
        }
        if (is_table(pgi_type(x)) && !!pgi_count(x) != !!(x & PGI_VALIDATED)) {
            *why = "a table in use is not validated, or a validated table is unused";
            return -1;
        }
        if ((x & PGI_PINNED) && !is_table(pgi_type(x))) {
            *why = "a pinned frame that is not a table";
            return -1;
        }
    }
    /* XSA-240: a table with linear entries to others is never itself mapped linearly */
    for (uint64_t f = 0; f < nr; f++) {
        if (lin_ent[f] && lin_use[f]) {
            *why = "a table with linear entries is itself mapped linearly (two levels)";
            return -1;
        }
        if (pt_linear_count(f) != (int32_t)lin_ent[f] - (int32_t)lin_use[f]) {
            *why = "a linear-entry count differs from the linear entries found";
            return -1;
        }
    }
    return 0;
}
