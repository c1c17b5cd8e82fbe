/*
 * mm.c: __HYPERVISOR_update_va_mapping (one L1 entry of the current page tables, found by
 * walking them, changed through pagetype.c, then the flush the flags ask for), its _otherdomain
 * form, and __HYPERVISOR_vm_assist.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

/* The frame of the L1 table that maps va in the guest's current tables (0: none). */
static uint64_t l1_of(uint64_t va)
{
    uint64_t l1, e;

    return pv_walk_l1e(va, &l1, &e) ? l1 : 0;
}

static int flush_flags(uint64_t va, uint64_t flags)
{
    uint64_t target = flags & ~UVMF_FLUSHTYPE_MASK, cpus;
    unsigned kind = flags & UVMF_FLUSHTYPE_MASK;

    if (kind != UVMF_TLB_FLUSH && kind != UVMF_INVLPG)
        return 0;                       /* as Xen: UVMF_NONE, and the unused type 3, flush nothing */
    if (target == UVMF_LOCAL)
        cpus = FLUSH_CPU(this_cpu()->id);
    else if (target == UVMF_ALL)
        cpus = FLUSH_CPUS_ALL;
    else if (pv_vcpumask_cpus(target, &cpus))
        return ERR(-XEN_EFAULT);
    flush_tlb(cpus, va, kind == UVMF_INVLPG ? FLUSH_VA : FLUSH_ALL);
    return 0;
}

long hc_update_va_mapping(struct cpu_regs *regs, uint64_t va, uint64_t val, uint64_t flags, uint64_t a4,
                          uint64_t a5)
{
    uint64_t l1;
    int rc;

    if (!pv_guest_va(va))
        return ERR(-XEN_EINVAL);
    spin_lock(&pv_dom.mmu_lock);
    l1 = l1_of(va);
    if (!l1 || l1 >= pv_mm.nr || pgi_type(pv_mm.info[l1]) != PGT_L1)
        rc = ERR(-XEN_EINVAL);
    else
        rc = pt_mod_entry(l1, (va >> PAGE_SHIFT) & 511, val, false);
    spin_unlock(&pv_dom.mmu_lock);
    if (rc)
        return rc;
    return flush_flags(va, flags);
}

/* As Xen for a domU: DOMID_SELF is update_va_mapping itself; DOMID_IO and DOMID_XEN -EPERM; any
 * other domain -ESRCH (none is here, and a guest may not name itself by number). */
long hc_update_va_mapping_otherdomain(struct cpu_regs *regs, uint64_t va, uint64_t val, uint64_t flags,
                                      uint64_t domid, uint64_t a5)
{
    uint16_t d = (uint16_t)domid;       /* a domid_t in Xen's prototype */

    if (d == DOMID_SELF)
        return hc_update_va_mapping(regs, va, val, flags, 0, 0);
    return ERR(d == DOMID_IO || d == DOMID_XEN ? -XEN_EPERM : -XEN_ESRCH);
}

long hc_vm_assist(struct cpu_regs *regs, uint64_t cmd, uint64_t type, uint64_t a3, uint64_t a4, uint64_t a5)
{
    /* pae_extended_cr3 and the 4gb_segments pair are no-ops for 64-bit guests (Xen accepts them
     * too); writable_pagetables is ptwr.c, runstate_update_flag vtimer.c, architectural_iopl
     * emulate.c, iret.c and traps.c, m2p_strict mmu_env.c's L4 slot and its callers */
    const uint64_t supported = (1ull << VMASST_TYPE_pae_extended_cr3) | (1ull << VMASST_TYPE_writable_pagetables) |
                               (1ull << VMASST_TYPE_runstate_update_flag) | (1ull << VMASST_TYPE_4gb_segments) |
                               (1ull << VMASST_TYPE_4gb_segments_notify) | (1ull << VMASST_TYPE_architectural_iopl) |
                               (1ull << VMASST_TYPE_m2p_strict);

    if (type >= 64 || !(supported & (1ull << type)))
        return ERR(-XEN_EINVAL);
    switch (cmd) {
    case VMASST_CMD_enable:
        pv_dom.vm_assist |= 1ull << type;
        return 0;
    case VMASST_CMD_disable:
        pv_dom.vm_assist &= ~(1ull << type);
        return 0;
    default:
        return ERR(-XEN_ENOSYS);
    }
}
