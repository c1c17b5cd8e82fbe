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

static bool gate_target_ok(uint32_t sel)
{
    return (sel >> 3) < FIRST_RESERVED_GDT_ENTRY || sel == FLAT_RING3_CS64 || (sel & 4);
}

bool segdesc_check(uint64_t *d)
{
    uint32_t lo = (uint32_t)*d, hi = (uint32_t)(*d >> 32);

    if (!(hi & D_P))
        return true;
    hi |= D_DPL;                        /* DPL 3: the only ring the guest has */
    if (!(hi & D_S)) {
        if ((hi & D_TYPE) == 0)
            return true;                /* stored unchanged, as Xen */
        uint32_t sel = lo >> 16, dpl = 3;
        if ((hi & D_TYPE) != TYPE_CALL_GATE64 || !gate_target_ok(sel) || (hi & 0xff))
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
