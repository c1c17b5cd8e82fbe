/*
 * segdesc.c: the descriptor rules for a 64-bit PV guest (Xen's check_descriptor). Its kernel runs
 * in ring 3, so nothing it installs may lead to ring 0, 1 or 2:
 *  - not present: allowed as is (every use faults);
 *  - code and data segments: any base, limit and type; a DPL below 3 is raised to 3 (Xen's
 *    __fixup_guest_selector), so a DPL 0 segment is accepted and stored with DPL 3;
 *  - system type 0: allowed (it is the upper half of a 16-byte gate; loading it faults);
 *  - a 64-bit call gate (type 12) whose target is a guest selector (below the reserved area, or in
 *    the LDT) or FLAT_RING3_CS64, parameter count 0: stored with DPL 0, so ring 3 cannot use it
 *    (#GP; Xen emulates that, the shim does not yet), the DPL asked for kept in the target's RPL;
 *  - any other system descriptor (LDT, TSS, interrupt and trap gates, 16-bit and task gates):
 *    refused, -EINVAL. Only the shim's own GDT page holds a TSS or an LDT descriptor.
 * Allowed descriptors are stored in the rewritten form, as Xen does (it writes the page back).
 * A 32-bit guest's kernel is ring 1 (segdesc_compat): DPLs below 1 are raised to 1, code may not
 * be 64-bit, and the rest as in the code.
 */
#include "pv/mm/segdesc.h"
#include "shim/debug.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

/* Fields of the descriptor's high 32 bits. */
#define D_TYPE   (0xfu << 8)
#define D_S      (1u << 12)             /* code or data (not a system descriptor) */
#define D_DPL    (3u << 13)
#define D_P      (1u << 15)
#define TYPE_CALL_GATE64 (0xcu << 8)

bool segdesc_compat;

#define D_L      (1u << 21)             /* 64-bit code */
#define D_G      (1u << 23)
#define COMPAT_HV_START 0xF5800000ull   /* HYPERVISOR_COMPAT_VIRT_START */
#define FLAT_COMPAT_KERNEL_CS 0xe019

static bool gate_target_ok(uint32_t sel)
{
    uint32_t flat = segdesc_compat ? FLAT_COMPAT_KERNEL_CS : FLAT_RING3_CS64;

    return (sel >> 3) < FIRST_RESERVED_GDT_ENTRY || (sel >> 3) == (flat >> 3) || (sel & 4);
}

bool segdesc_check(uint64_t *d)
{
    uint32_t lo = (uint32_t)*d, hi = (uint32_t)(*d >> 32);
    uint32_t ring = segdesc_compat ? 1 : 3, dpl = (hi & D_DPL) >> 13;

    if (!(hi & D_P))
        return true;
    if (dpl < ring)                     /* the guest kernel's ring at most: 3, or 1 for 32-bit */
        dpl = ring;
    hi = (hi & ~D_DPL) | (dpl << 13);
    if ((hi & D_S) && segdesc_compat) {
        /* no 64-bit code; a flat segment reaching into the hole is widened to 4 GiB (older PAE
         * Linux's limit of 0xf6800000 then covers the larger compat m2p) */
        if (hi & D_L)
            return false;
        uint64_t base = (hi & 0xff000000u) | ((hi & 0xff) << 16) | (lo >> 16);
        uint64_t limit = ((hi & 0xf0000) | (lo & 0xffff)) + 1ull;
        if (hi & D_G)
            limit <<= 12;
        if (base == 0 && limit > COMPAT_HV_START) {
            lo |= 0xffff;
            hi |= 0xf0000;
        }
    } else if (!(hi & D_S)) {
        if ((hi & D_TYPE) == 0)
            return true;                /* stored unchanged, as Xen */
        uint32_t sel = lo >> 16;
        /* a 32-bit guest's gates may carry a parameter count (bits 0-4) */
        if ((hi & D_TYPE) != TYPE_CALL_GATE64 || !gate_target_ok(sel) || (hi & (segdesc_compat ? 0xe0 : 0xff)))
            return false;
        hi &= ~D_DPL;
        lo = (lo & 0xffff) | (((sel & ~3u) | dpl) << 16);
    }
    *d = ((uint64_t)hi << 32) | lo;
    return true;
}

int segdesc_check_page(uint64_t *page)
{
    for (unsigned i = 0; i < SEGDESC_PER_PAGE; i++) {
        uint64_t d = __atomic_load_n(&page[i], __ATOMIC_RELAXED);
        if (!segdesc_check(&d))
            return ERR(-XEN_EINVAL);
        if (d != page[i])
            __atomic_store_n(&page[i], d, __ATOMIC_RELAXED);
    }
    return 0;
}
