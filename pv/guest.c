/* guest.c: reaching the guest's memory from the shim: checked ranges, fault-safe copies, frame ownership. */
#include "domain.h"
#include "debug.h"
#include "mm.h"
#include "xerrno.h"

size_t guest_copy_raw(void *dst, const void *src, size_t n);

/* A guest virtual range: canonical, no wrap, nothing of the hypervisor hole. */
bool guest_range_ok(uint64_t va, size_t n)
{
    uint64_t last = va + n - 1;

    if (!n)
        return true;
    if (last < va || (uint64_t)((int64_t)(va << 16) >> 16) != va ||
        (uint64_t)((int64_t)(last << 16) >> 16) != last || (va >> 47) != (last >> 47))
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

bool pv_mfn_is_special(uint64_t mfn)
{
    return mfn == pv_dom.shared_mfn || mfn == pv_dom.cons_mfn || mfn == pv_dom.store_mfn;
}
