/*
 * memory.c: __HYPERVISOR_memory_op: the guest's memory map, reservations, where the m2p is,
 * and its balloon. Sub-ops:
 *   memory_map                                   handled: one RAM entry, the guest's initial size
 *   (memory_map, machine_memory_map and machphys_mapping with a start extent: -ENOSYS, as Xen's
 *   arch_memory_op, which switches on the whole cmd)
 *   current_reservation, maximum_reservation     handled (DOMID_SELF only, else -ESRCH; no start
 *                                                extent: -EINVAL)
 *   maximum_ram_page, machphys_mapping           handled (maximum_ram_page: no start extent,
 *                                                -EINVAL, as Xen)
 *   machine_memory_map                           refused -EPERM (the hardware domain's)
 *   decrease_reservation, populate_physmap       handled (hypercall/balloon.c); the frames go to and
 *                                                come from L0 through l0_ops, batched
 *   exchange                                     handled (hypercall/balloon.c)
 *   anything else (increase_reservation, add_to_physmap, ...)    refused -ENOSYS
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/balloon.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

#define MEMOP_OP_MASK 0x3f           /* the op is cmd's low 6 bits; the rest is a continuation's extent */
#define MEMOP_EXTENT_SHIFT 6

struct __packed e820_entry {
    uint64_t addr, size;
    uint32_t type;
};

/* The guest's memory map into a buffer of nr entries: one RAM entry, its initial size. */
long pv_memory_map_put(uint64_t buffer, uint32_t nr)
{
    struct e820_entry ram = { 0, pv_dom.max_pages << PAGE_SHIFT, 1 /* RAM */ };

    if (nr < 1)
        return ERR(-XEN_EINVAL, "no room for an entry");
    if (copy_to_guest(buffer, &ram, sizeof(ram)))
        return ERR(-XEN_EFAULT, "the entry cannot be written");
    return 1;
}

static long memory_map(uint64_t arg)
{
    struct xen_memory_map mm;
    long rc;

    if (copy_from_guest(&mm, arg, sizeof(mm)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&mm, arg, sizeof(mm))");
    if ((rc = pv_memory_map_put((uint64_t)(uintptr_t)mm.buffer.p, mm.nr_entries)) < 0)
        return rc;
    mm.nr_entries = (uint32_t)rc;
    return copy_to_guest(arg, &mm, sizeof(mm)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

/* current_reservation, maximum_reservation and maximum_gpfn of a domid (ours only). A PV guest's
 * maximum gpfn is what it says in shared_info's arch.max_pfn (a count: Xen answers it less one,
 * 0 while it says nothing). */
static long reservation(uint64_t arg, unsigned op)
{
    domid_t d;

    if (copy_from_guest(&d, arg, sizeof(d)))
        return ERR(-XEN_EFAULT, "the domid cannot be read");
    if (d != DOMID_SELF)
        return ERR(-XEN_ESRCH, "only ourselves: there is no other domain here");
    if (op == XENMEM_maximum_gpfn) {
        uint64_t max_pfn = READ_ONCE(pv_dom.shared->arch.max_pfn);
        return (long)((max_pfn ? max_pfn : 1) - 1);
    }
    return (long)(op == XENMEM_maximum_reservation ? pv_dom.max_pages : pv_dom.nr_pages);
}

static long machphys_mapping(uint64_t arg)
{
    uint64_t bytes = ALIGN_UP(pv_dom.max_mfn * 8, PAGE_SIZE);
    struct xen_machphys_mapping mp = {
        .v_start = PV_M2P_VIRT, .v_end = PV_M2P_VIRT + bytes, .max_mfn = pv_dom.max_mfn - 1,
    };

    return copy_to_guest(arg, &mp, sizeof(mp)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

long hc_memory_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    uint64_t start = cmd >> MEMOP_EXTENT_SHIFT;

    balloon_reclaim();                  /* frames released in use and idle since: counts are exact */
    switch (cmd & MEMOP_OP_MASK) {
    case XENMEM_memory_map:
    case XENMEM_machine_memory_map:
    case XENMEM_machphys_mapping:
        /* Xen's arch_memory_op takes these by the whole cmd: with a start extent it knows none */
        if (start)
            return ERR(-XEN_ENOSYS, "start");
        if ((cmd & MEMOP_OP_MASK) == XENMEM_machine_memory_map)
            return hc_subop_refuse(&hc_subops_memory_op, XENMEM_machine_memory_map);
        return (cmd & MEMOP_OP_MASK) == XENMEM_memory_map ? memory_map(arg) : machphys_mapping(arg);
    case XENMEM_current_reservation:
    case XENMEM_maximum_reservation:
    case XENMEM_maximum_gpfn:
        if (start)
            return ERR(-XEN_EINVAL, "as Xen: no continuation for these");
        return reservation(arg, (unsigned)(cmd & MEMOP_OP_MASK));
    case XENMEM_increase_reservation:
    case XENMEM_decrease_reservation:
    case XENMEM_populate_physmap:
        return memop_reservation((unsigned)(cmd & MEMOP_OP_MASK), start, arg);
    case XENMEM_exchange:
        return start ? ERR(-XEN_EINVAL, "as Xen: no continuation for exchange") : memop_exchange(arg);
    case XENMEM_maximum_ram_page:
        return start ? ERR(-XEN_EINVAL, "as Xen: no continuation for this") : (long)pv_dom.max_mfn - 1;
    default:
        return hc_subop_refuse(&hc_subops_memory_op, cmd & MEMOP_OP_MASK);
    }
}
