/* hc_memory.c: __HYPERVISOR_memory_op: the guest's memory map, reservations and where the m2p is. */
#include "domain.h"
#include "hypercall.h"
#include "paging.h"
#include "xerrno.h"

#define MEMOP_OP_MASK 0x3f           /* the op is cmd's low 6 bits; the rest is a continuation's extent */

struct __packed e820_entry {
    uint64_t addr, size;
    uint32_t type;
};

static long memory_map(uint64_t arg)
{
    struct xen_memory_map mm;
    struct e820_entry ram = { 0, pv_dom.nr_pages << PAGE_SHIFT, 1 /* RAM */ };

    if (copy_from_guest(&mm, arg, sizeof(mm)))
        return -XEN_EFAULT;
    if (mm.nr_entries < 1)
        return -XEN_EINVAL;
    if (copy_to_guest((uint64_t)(uintptr_t)mm.buffer.p, &ram, sizeof(ram)))
        return -XEN_EFAULT;
    mm.nr_entries = 1;
    return copy_to_guest(arg, &mm, sizeof(mm)) ? -XEN_EFAULT : 0;
}

static long reservation(uint64_t arg)
{
    domid_t d;

    if (copy_from_guest(&d, arg, sizeof(d)))
        return -XEN_EFAULT;
    if (d != DOMID_SELF)
        return -XEN_ESRCH;              /* only ourselves: there is no other domain here */
    return (long)pv_dom.nr_pages;
}

static long machphys_mapping(uint64_t arg)
{
    uint64_t bytes = ALIGN_UP(pv_dom.max_mfn * 8, PAGE_SIZE);
    struct xen_machphys_mapping mp = {
        .v_start = PV_M2P_VIRT, .v_end = PV_M2P_VIRT + bytes, .max_mfn = pv_dom.max_mfn - 1,
    };

    return copy_to_guest(arg, &mp, sizeof(mp)) ? -XEN_EFAULT : 0;
}

long hc_memory_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (cmd & MEMOP_OP_MASK) {
    case XENMEM_memory_map:
        return memory_map(arg);
    case XENMEM_current_reservation:
    case XENMEM_maximum_reservation:
        return reservation(arg);
    case XENMEM_maximum_ram_page:
        return (long)pv_dom.max_mfn - 1;
    case XENMEM_machphys_mapping:
        return machphys_mapping(arg);
    default:
        return -XEN_ENOSYS;             /* ballooning, exchange, add_to_physmap: later */
    }
}
