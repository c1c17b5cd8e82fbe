/*
 * hcalls_mm.c: a 32-bit guest's list and structure hypercalls of memory, grants and vCPUs:
 * mmuext_op's 12-byte entries, memory_op's maps and reservations, grant setup's frame list, and
 * vcpu_op. Sub-ops whose structures are the same in both ABIs, and the ones the 64-bit handlers
 * refuse without reading anything, go to the 64-bit handlers as they are.
 */
#include "compat/compat.h"
#include "compat/hcalls.h"
#include "compat/layout.h"
#include "pv/domain/domain.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/balloon.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/vcpu.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define ARGS struct cpu_regs *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5

static int fetch_op(struct mmuext_op *op, uint64_t at)
{
    uint32_t o[3];

    if (copy_from_guest(o, at, sizeof(o)))
        return ERR(-XEN_EFAULT, "an mmuext_op cannot be read");
    memset(op, 0, sizeof(*op));
    op->cmd = o[0];
    op->arg1.mfn = o[1];                /* or linear_addr: both 32 bits wide here */
    op->arg2.src_mfn = o[2];            /* or nr_ents, or the vcpumask's address */
    return 0;
}

/* As Xen's compat_mmuext_op: the preempted bit of the count is its own continuation marker (the
 * ops done so far are in *pdone), and with no ops it calls nothing: *pdone untouched. */
long compat_mmuext_op(ARGS)
{
    uint32_t count = (uint32_t)a2, done = 0;

    if (count & 0x80000000u) {
        count &= ~0x80000000u;
        if ((uint32_t)a3)
            (void)copy_from_guest(&done, (uint32_t)a3, sizeof(done));
    }
    if (!count)
        return 0;
    return pv_mmuext_list((uint32_t)a1, count, (uint32_t)a3, a4, 12, fetch_op, done);
}

/* XENMEM_machphys_mapping for a 32-bit guest: the compat m2p's window below 4 GiB, as Xen gives
 * it (MACH2PHYS_COMPAT_VIRT_START .. _END, and the entries that fit there). */
static long machphys_mapping(uint64_t arg)
{
    const uint32_t mp[3] = { COMPAT_HV_START, COMPAT_M2P_END, ((COMPAT_M2P_END - COMPAT_HV_START) >> 2) - 1 };

    return copy_to_guest(arg, mp, sizeof(mp)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

/* XENMEM_memory_map: {nr_entries, buffer} in 32 bits; one RAM entry, the guest's initial size,
 * as the 64-bit handler gives. */
static long memory_map(uint64_t arg)
{
    uint32_t m32[2];
    long rc;

    if (copy_from_guest(m32, arg, sizeof(m32)))
        return ERR(-XEN_EFAULT, "the memory_map cannot be read");
    if ((rc = pv_memory_map_put(m32[1], m32[0])) < 0)
        return rc;
    m32[0] = (uint32_t)rc;
    return copy_to_guest(arg, &m32[0], sizeof(m32[0])) ? ERR(-XEN_EFAULT, "the count cannot be written back") : 0;
}

/* xen_memory_reservation in 32 bits: extent_start, nr_extents, extent_order, mem_flags, domid */
struct reservation32 {
    uint32_t extent_start, nr_extents, extent_order, mem_flags;
    uint16_t domid;
};

static void widen(const struct reservation32 *c, struct xen_memory_reservation *r)
{
    memset(r, 0, sizeof(*r));
    set_xen_guest_handle(r->extent_start, (xen_pfn_t *)(uintptr_t)c->extent_start);
    r->nr_extents = c->nr_extents;
    r->extent_order = c->extent_order;
    r->mem_flags = c->mem_flags;
    r->domid = c->domid;
}

static long reservation(unsigned op, uint64_t start, uint64_t arg)
{
    struct reservation32 c;
    struct xen_memory_reservation r;

    if (copy_from_guest(&c, arg, 18))
        return (long)start;             /* as Xen: the extents done so far, none */
    if (c.extent_start && !compat_range_ok(c.extent_start, (uint64_t)c.nr_extents * 4))
        return (long)start;
    widen(&c, &r);
    return memop_reservation_r(op, start, &r);
}

/*
 * XENMEM_exchange as Xen's compat layer does it: it translates the lists in chunks of its 8 KiB
 * argument area, so an exchange whose orders differ by 10 or more cannot be done at all (-E2BIG,
 * after the size checks); and it writes nr_exchanged back only when the whole call succeeded.
 */
static long exchange(uint64_t arg)
{
    struct { struct reservation32 in, out; uint32_t nr_exchanged; } __attribute__((packed, aligned(4))) c;
    struct xen_memory_exchange x;

    _Static_assert(sizeof(c) == 44, "i386's xen_memory_exchange");
    if (copy_from_guest(&c, arg, sizeof(c)))
        return ERR(-XEN_EFAULT, "the exchange cannot be read");
    widen(&c.in, &x.in);
    widen(&c.out, &x.out);
    x.nr_exchanged = c.nr_exchanged;
    int delta = (int)c.out.extent_order - (int)c.in.extent_order;
    unsigned d = (unsigned)(delta < 0 ? -delta : delta);
    bool sizes = c.in.extent_order < 32 && c.out.extent_order < 32 &&
                 ((uint64_t)c.in.nr_extents << c.in.extent_order) == ((uint64_t)c.out.nr_extents << c.out.extent_order);
    if (sizes && c.nr_exchanged <= c.in.nr_extents &&
        (!compat_range_ok(c.in.extent_start, (uint64_t)c.in.nr_extents * 4) ||
         !compat_range_ok(c.out.extent_start, (uint64_t)c.out.nr_extents * 4)))
        return ERR(-XEN_EFAULT, "a list reaches the hole");
    if (sizes && c.nr_exchanged <= c.in.nr_extents && (d >= 31 || ((1ull << d) + 1) * 8 > 8192 - sizeof(x)))
        return ERR(-XEN_E2BIG, "as Xen's compat layer: the lists do not fit its translation area");
    long rc = memop_exchange_x(&x);
    if (rc)
        return rc;
    c.nr_exchanged = (uint32_t)x.nr_exchanged;
    return copy_to_guest(arg + offsetof(typeof(c), nr_exchanged), &c.nr_exchanged, 4) ? ERR(-XEN_EFAULT, "cannot write back") : 0;
}

long compat_memory_op(ARGS)
{
    balloon_reclaim();                  /* as the 64-bit handler: counts exact */
    switch (a1 & 0x3f) {
    case XENMEM_increase_reservation:
    case XENMEM_decrease_reservation:
    case XENMEM_populate_physmap:
        return reservation((unsigned)(a1 & 0x3f), a1 >> 6, (uint32_t)a2);
    case XENMEM_exchange:
        return (a1 >> 6) ? ERR(-XEN_EINVAL, "as Xen: no continuation for exchange") : exchange((uint32_t)a2);
    case XENMEM_machphys_mapping:
        return (a1 >> 6) ? ERR(-XEN_ENOSYS, "start") : machphys_mapping((uint32_t)a2);
    case XENMEM_memory_map:
        return (a1 >> 6) ? ERR(-XEN_ENOSYS, "start") : memory_map((uint32_t)a2);
    case XENMEM_maximum_gpfn: {
        /* shared_info's arch.max_pfn where a 32-bit guest keeps it, as the 64-bit handler reads */
        domid_t d;
        if (a1 >> 6)
            return ERR(-XEN_EINVAL, "as Xen: no continuation for this");
        if (copy_from_guest(&d, (uint32_t)a2, sizeof(d)))
            return ERR(-XEN_EFAULT, "the domid cannot be read");
        if (d != DOMID_SELF)
            return ERR(-XEN_ESRCH, "only ourselves");
        uint32_t max_pfn = READ_ONCE(((struct shared_info_x86_32 *)pv_dom.shared)->arch.max_pfn);
        return (long)(max_pfn ? max_pfn : 1) - 1;
    }
    case XENMEM_machine_memory_map: {
        /* Xen's compat_arch_memory_op copies the struct in before the privilege check */
        uint32_t m32[2];
        if (a1 >> 6)
            return ERR(-XEN_ENOSYS, "start");
        if (copy_from_guest(m32, (uint32_t)a2, sizeof(m32)))
            return ERR(-XEN_EFAULT, "the memory_map cannot be read");
        return hc_memory_op(regs, a1, (uint32_t)a2, a3, a4, a5);
    }
    case XENMEM_current_reservation:
    case XENMEM_maximum_reservation:
    case XENMEM_maximum_ram_page:
        return hc_memory_op(regs, a1, (uint32_t)a2, a3, a4, a5);   /* a domid, or nothing */
    default:
        /* every sub-op the 64-bit handler reads a structure for is above: the rest it refuses */
        return hc_memory_op(regs, a1, (uint32_t)a2, a3, a4, a5);
    }
}

/* gnttab_setup_table in 32 bits: dom, nr_frames, status, a list of 4-byte frame numbers */
static long setup_table(uint64_t arg)
{
    struct { uint16_t dom, pad; uint32_t nr_frames; int16_t status, pad2; uint32_t frame_list; } c;
    struct gnttab_setup_table s;

    if (copy_from_guest(&c, arg, sizeof(c)))
        return ERR(-XEN_EFAULT, "the setup_table cannot be read");
    if (!compat_range_ok(c.frame_list, (uint64_t)c.nr_frames * 4))
        return ERR(-XEN_EFAULT, "the frame list is not guest memory");
    s.dom = c.dom;
    s.nr_frames = c.nr_frames;
    set_xen_guest_handle(s.frame_list, (xen_pfn_t *)(uintptr_t)c.frame_list);
    long rc = pv_gnttab_setup(&s, 4);
    c.status = s.status;
    if (copy_to_guest(arg, &c, sizeof(c)))
        return ERR(-XEN_EFAULT, "the result cannot be written back");
    return rc;
}

/* gnttab_get_status_frames in 32 bits: its list handle is 4 bytes (the entries stay uint64_t) */
static long status_frames(uint64_t arg)
{
    struct { uint32_t nr_frames; uint16_t dom; int16_t status; uint32_t frame_list; } c;
    struct gnttab_get_status_frames g;

    if (copy_from_guest(&c, arg, sizeof(c)))
        return ERR(-XEN_EFAULT, "the get_status_frames cannot be read");
    g.nr_frames = c.nr_frames;
    g.dom = c.dom;
    set_xen_guest_handle(g.frame_list, (uint64_t *)(uintptr_t)c.frame_list);
    long rc = pv_gnttab_status_frames(&g);
    if (rc)
        return rc;
    c.status = g.status;
    return copy_to_guest(arg, &c, sizeof(c)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

long compat_grant_table_op(ARGS)
{
    if ((a1 == GNTTABOP_setup_table || a1 == GNTTABOP_get_status_frames) && a3 != 1)
        return ERR(-XEN_EINVAL, "count != 1");
    if (a1 == GNTTABOP_setup_table)
        return setup_table((uint32_t)a2);
    if (a1 == GNTTABOP_get_status_frames)
        return status_frames((uint32_t)a2);
    /* query_size, set_version, get_version: the same structures; the rest the 64-bit table's
     * answer (map, unmap, copy, ... are L0's business, refused the same way) */
    return hc_grant_table_op(regs, a1, (uint32_t)a2, a3, a4, a5);
}

long compat_vcpu_op(ARGS)
{
    switch (a1) {
    case VCPUOP_register_vcpu_time_memory_area: {
        uint32_t va;                    /* a 32-bit handle in the low half of its union */
        if (a2 >= pv_dom.nr_vcpus)
            return ERR(-XEN_ENOENT, "no such vCPU");
        if (copy_from_guest(&va, a3, sizeof(va)) || !compat_range_ok(va, 1))
            return ERR(-XEN_EFAULT, "as Xen's compat_vcpu_op: the area must be below the hole");
        pv_dom.vcpu[a2].time_area = va;
        if (&pv_dom.vcpu[a2] == pv_current())
            pv_time_update();
        return 0;
    }
    case VCPUOP_register_runstate_memory_area: {
        uint32_t va;                    /* a 32-bit handle in the low half of its union */
        if (copy_from_guest(&va, a3, sizeof(va)))
            return ERR(-XEN_EFAULT, "the area's address cannot be read");
        if (a2 >= pv_dom.nr_vcpus)
            return ERR(-XEN_ENOENT, "no such vCPU");
        if (!compat_range_ok(va, 1))
            return ERR(-XEN_EFAULT, "as Xen: the area must start at a guest address");
        struct pv_vcpu *v = &pv_dom.vcpu[a2];
        struct vcpu_runstate_info ri;
        v->runstate_area = va;
        pv_runstate_get(v, &ri);
        pv_runstate_publish(v, &ri);
        return 0;
    }
    case VCPUOP_get_runstate_info: {
        struct vcpu_runstate_info ri;
        struct vcpu_runstate_info_x86_32 c;
        if (a2 >= pv_dom.nr_vcpus)
            return ERR(-XEN_ENOENT, "no such vCPU");
        pv_runstate_get(&pv_dom.vcpu[a2], &ri);
        pv_runstate_compat(&ri, &c);
        return copy_to_guest((uint32_t)a3, &c, sizeof(c)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
    }
    default:
        /* scalars, or structures the same in both ABIs (vcpu_info, timers); initialise's context
         * is read in 32 bits by pv_vcpu_initialise; the rest the 64-bit table's answer */
        return hc_vcpu_op(regs, a1, a2, (uint32_t)a3, a4, a5);
    }
}
