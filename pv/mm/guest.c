/* guest.c: reaching the guest's memory from the shim: checked ranges, fault-safe copies, frame ownership. */
#include "pv/domain/domain.h"
#include "pv/mm/guest.h"
#include "pv/mm/pagetype.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

/* A guest virtual range: canonical, no wrap, nothing of the hypervisor hole. (As in Xen, the
 * same for a 32-bit guest's arguments to the 64-bit handlers; its translations check their
 * lists against its own hole: compat/compat.h.) */
bool guest_range_ok(uint64_t va, size_t n)
{
    uint64_t last = va + n - 1;

    if (!n)
        return true;
    if (last < va || !is_canonical(va) ||
        !is_canonical(last) || (va >> 47) != (last >> 47))
        return false;
    return last < PV_HOLE_START || va >= PV_HOLE_END;
}

int copy_from_guest(void *dst, uint64_t src, size_t n)
{
    if (!guest_range_ok(src, n) || guest_copy_raw(dst, (const void *)src, n))
        return ERR(-XEN_EFAULT);
    return 0;
}

int copy_to_guest(uint64_t dst, const void *src, size_t n)
{
    if (!guest_range_ok(dst, n) || guest_copy_raw((void *)dst, src, n))
        return ERR(-XEN_EFAULT);
    return 0;
}

bool pv_mfn_is_guest(uint64_t mfn)
{
    return frame_pool_owns(&guest_pool, mfn, 1) && !frame_is_free(&guest_pool, mfn);
}

/* A shim page the guest may map writable: shared_info, the rings, grant frames (hypercall/grant.c), each
 * marked with pt_fix_writable. */
bool pv_mfn_is_special(uint64_t mfn)
{
    return mfn == pv_dom.shared_mfn || mfn == pv_dom.cons_mfn || mfn == pv_dom.store_mfn ||
           (mfn < pv_mm.nr && (pv_mm.info[mfn] & PGI_FIXED));
}

/* The L1 entry that maps va in the guest kernel's current tables: the L1 table's frame in *l1
 * and the entry in *e. False if a table on the way is missing, a superpage, or not the guest's.
 * (Through a linear entry the "L1" may be a higher table: callers that care check its type.) */
bool pv_walk_l1e(uint64_t va, uint64_t *l1, uint64_t *e)
{
    uint64_t mfn = pv_current()->cr3 >> PAGE_SHIFT;

    for (unsigned shift = 39; shift > 12; shift -= 9) {
        uint64_t x = __atomic_load_n(&pt_frame(mfn)[(va >> shift) & 511], __ATOMIC_RELAXED);
        if (!(x & PTE_P) || (x & PTE_PS))
            return false;
        mfn = (x & PTE_ADDR) >> PAGE_SHIFT;
        if (!pv_mfn_is_guest(mfn))
            return false;
    }
    *l1 = mfn;
    *e = __atomic_load_n(&pt_frame(mfn)[(va >> 12) & 511], __ATOMIC_RELAXED);
    return true;
}
