/* pagetype_bits.h: what pagetype.c and pagetype_entry.c share (private to pv/mm/pagetype*.c): the
 * entry bits, what a guest may set at each level, and which frames are the guest's to type. */
#ifndef PV_MM_PAGETYPE_BITS_H
#define PV_MM_PAGETYPE_BITS_H

#include "pv/mm/pagetype.h"

#define E_P    (1ull << 0)
#define E_RW   (1ull << 1)
#define E_US   (1ull << 2)
#define E_A    (1ull << 5)
#define E_D    (1ull << 6)
#define E_G    (1ull << 8)
#define E_AVAIL      0xe00ull                   /* bits 9-11 */
#define E_AVAIL_HIGH 0x7ff0000000000000ull      /* bits 52-62 */
#define E_NX   (1ull << 63)
#define E_GUEST_KERNEL (1ull << 52)             /* Xen's mark of a kernel-only L1 entry */

/* What a guest may set, as Xen allows a PV domain without I/O resources: no cache attributes, no
 * superpages, and global only in L1s (where it is then dropped: see pt_adjust). */
#define UPPER_ALLOWED (E_P | E_RW | E_US | E_A | E_D | E_AVAIL | E_AVAIL_HIGH | E_NX | PTE_ADDR_MASK)
#define L1_ALLOWED    (UPPER_ALLOWED | E_G)
/* A 32-bit guest's L3 entries (Xen's COMPAT_L3_DISALLOW_MASK 0xFFFFF198 on the flags): no PWT,
 * PCD, PS, G, and nothing in bits 52-63 (NX included). */
#define COMPAT_L3_ALLOWED (E_P | E_RW | E_US | E_A | E_D | E_AVAIL | PTE_ADDR_MASK)
/* Bits whose change needs no reference work (Xen's fast path). */
#define FAST_BITS     (E_NX | E_AVAIL_HIGH | E_AVAIL | E_G | E_D | E_A | E_US)

/* A fixed shim page that must not be mapped writable (grant status frames). */
static inline bool fixed_readonly(uint64_t mfn)
{
    return mfn < pv_mm.nr && (pv_mm.info[mfn] & PGI_FIXED) && pgi_type(pv_mm.info[mfn]) == PGT_NONE;
}

static inline bool tracked_guest(uint64_t mfn)
{
    return mfn < pv_mm.nr && pv_mfn_is_guest(mfn) && !(pv_mm.info[mfn] & PGI_FIXED);
}

#endif
