/*
 * hc_mm.c: __HYPERVISOR_update_va_mapping and __HYPERVISOR_vm_assist, until the PV MMU exists.
 * update_va_mapping edits one L1 entry of the guest's current page tables. The new entry may map
 * only the guest's own RAM or its special pages (shared_info, console and store rings), never a
 * bootstrap page-table frame writably, and gets the bits a ring-3 kernel needs (U; no G, seed 002).
 * Full page typing (pinning, reference counts, ptwr) comes with the PV MMU.
 */
#include "domain.h"
#include "hypercall.h"
#include "paging.h"
#include "x86.h"
#include "xerrno.h"

#define L1_DISALLOW 0x7ff0000000000000ull       /* bits 52-62: reserved or software bits we refuse */

static bool is_page_table(uint64_t mfn)
{
    uint64_t pfn = mfn < pv_dom.max_mfn ? pv_dom.m2p[mfn] : M2P_INVALID;

    return pfn >= pv_dom.pt_pfn && pfn < pv_dom.pt_pfn + pv_dom.nr_pt;
}

/* The guest's L1 entry for va, or NULL if no L1 table maps it. */
static uint64_t *l1e_of(uint64_t va)
{
    uint64_t mfn = pv_dom.cr3 >> PAGE_SHIFT;

    for (unsigned shift = 39; shift > 12; shift -= 9) {
        uint64_t e = ((uint64_t *)phys_to_virt(mfn << PAGE_SHIFT))[(va >> shift) & 511];
        if (!(e & PTE_P) || (e & PTE_PS))
            return NULL;
        mfn = (e & PTE_ADDR) >> PAGE_SHIFT;
        if (!pv_mfn_is_guest(mfn))
            return NULL;
    }
    return (uint64_t *)phys_to_virt(mfn << PAGE_SHIFT) + ((va >> 12) & 511);
}

long hc_update_va_mapping(uint64_t va, uint64_t val, uint64_t flags, uint64_t a4, uint64_t a5)
{
    uint64_t *l1e;

    if ((uint64_t)((int64_t)(va << 16) >> 16) != va || (va >= PV_HOLE_START && va < PV_HOLE_END))
        return -XEN_EINVAL;
    if (!(l1e = l1e_of(va)))
        return -XEN_EINVAL;
    if (val & PTE_P) {
        uint64_t mfn = (val & PTE_ADDR) >> PAGE_SHIFT;
        if (val & L1_DISALLOW)
            return -XEN_EINVAL;
        if (!pv_mfn_is_special(mfn) && !pv_mfn_is_guest(mfn))
            return -XEN_EINVAL;
        if ((val & PTE_W) && is_page_table(mfn))
            return -XEN_EINVAL;
        val = (val | PTE_U) & ~PTE_G;
    }
    __atomic_store_n(l1e, val, __ATOMIC_RELEASE);
    switch (flags & UVMF_FLUSHTYPE_MASK) {
    case UVMF_INVLPG:
        invlpg(va);
        break;
    case UVMF_TLB_FLUSH:
        write_cr3(read_cr3());
        break;
    default:
        break;
    }
    return 0;
}

long hc_vm_assist(uint64_t cmd, uint64_t type, uint64_t a3, uint64_t a4, uint64_t a5)
{
    /* only what we honour: pae_extended_cr3 (a no-op for 64-bit guests); writable_pagetables needs ptwr */
    const uint64_t supported = 1ull << VMASST_TYPE_pae_extended_cr3;

    if (type >= 64 || !(supported & (1ull << type)))
        return -XEN_EINVAL;
    switch (cmd) {
    case VMASST_CMD_enable:
        pv_dom.vm_assist |= 1ull << type;
        return 0;
    case VMASST_CMD_disable:
        pv_dom.vm_assist &= ~(1ull << type);
        return 0;
    default:
        return -XEN_ENOSYS;
    }
}
