/*
 * cr3.c: a 32-bit guest's page-table base. Its CR3 names a PAE L3; the hardware runs in long mode,
 * so each vCPU has an L4 of the shim's (Xen: the per-vCPU L4 new_guest_cr3 fills) whose slot 0
 * is that L3 (its four entries cover the guest's 4 GiB; the rest of the page is kept zero) and
 * whose slots 256-271 are the shim's. v->cr3 is that L4, for good.
 */
#include "compat/compat.h"
#include "compat/layout.h"
#include "pv/domain/domain.h"
#include "pv/mm/pagetype.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

int compat_set_l3(struct pv_vcpu *v, uint64_t l3_mfn)
{
    if (!v->cr3) {
        int64_t f = alloc_frame();
        if (f < 0)
            return ERR(-XEN_ENOMEM, "no shim frame for a vCPU's L4");
        v->cr3 = (uint64_t)f << PAGE_SHIFT;
        pt_l4_init_reserved(phys_to_virt(v->cr3));
    }
    uint64_t *l4 = phys_to_virt(v->cr3);
    __atomic_store_n(&l4[0], l3_mfn ? (l3_mfn << PAGE_SHIFT) | PTE_P | PTE_W | PTE_U | PTE_A : 0, __ATOMIC_RELAXED);
    v->compat_l3 = l3_mfn;
    return 0;
}

/* xen_pfn_to_cr3 of the 32-bit ABI: frame bits above 20 folded into the low bits */
uint64_t compat_cr3_value(const struct pv_vcpu *v)
{
    return xen_pfn_to_cr3_x86_32(v->compat_l3);
}
