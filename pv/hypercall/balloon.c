/*
 * balloon.c: memory_op's XENMEM_decrease_reservation, XENMEM_populate_physmap and
 * XENMEM_exchange, and XENMEM_increase_reservation (frames with no pfn yet: their mfns go into
 * the list, and the guest sets their m2p entries itself, as old balloon drivers do), for our PV
 * guest, with Xen's answers (common/memory.c): the reservation ops return how many extents were done, and any bad input (struct or list unreadable, another
 * domain, order above 9, an exact-node or PoD request) only ends the count; exchange returns an
 * errno and reports progress in nr_exchanged. Frames: balloon.c.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/balloon.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define MEMOP_EXTENT_SHIFT 6
#define CHUNK_MAX (1u << BALLOON_MAX_ORDER)     /* frames of one exchange chunk, at most */

/* mem_flags: a frame limit from address_bits (0: none), or false if Xen would refuse them. */
static bool mem_flags_ok(unsigned flags, uint64_t *limit)
{
    unsigned bits = XENMEMF_get_address_bits(flags), order = 0;

    *limit = 0;
    if (XENMEMF_get_node(flags) != 0xff && (flags & XENMEMF_exact_node_request))
        return false;                   /* a domU may not insist on a NUMA node */
    while ((1ull << order) < pv_dom.max_mfn)
        order++;
    if (bits && bits < order + PAGE_SHIFT) {      /* below all of memory: a real limit */
        if (bits <= PAGE_SHIFT)
            return false;
        *limit = 1ull << (bits - PAGE_SHIFT);
    }
    return true;
}

/* An extent list's entries: xen_pfn_t, 8 bytes, or 4 in a 32-bit guest's lists. */
static unsigned xw(void)
{
    return pv_dom.compat ? 4 : 8;
}

static bool ext_get(uint64_t at, uint64_t *v)
{
    *v = 0;
    return copy_from_guest(v, at, xw()) == 0;   /* little-endian: the low bytes */
}

static bool ext_put(uint64_t at, uint64_t v)
{
    return copy_to_guest(at, &v, xw()) == 0;
}

static bool list_ok(uint64_t list, uint64_t first, uint64_t end)
{
    return first <= end && end - first <= (~0ull >> 4) && guest_range_ok(list + first * xw(), (end - first) * xw());
}

static bool decrease_one(uint64_t mfn, unsigned order)
{
    for (uint64_t j = 0; j < (1ull << order); j++)
        if (balloon_release(mfn + j))
            return false;               /* Xen too leaves the frames before it released */
    return true;
}

static bool populate_one(uint64_t slot, unsigned order, uint64_t limit, uint64_t more)
{
    uint64_t gpfn;

    if (pv_dom.nr_pages + (1ull << order) > pv_dom.max_pages)
        return false;                   /* Xen's max_pages: no growing past what we were built with */
    if (!ext_get(slot, &gpfn))
        return false;
    int64_t mfn = balloon_take(order, limit, gpfn, more);
    if (mfn < 0)
        return false;
    uint64_t m = (uint64_t)mfn;
    if (!ext_put(slot, m)) {
        balloon_untake(m, order);       /* the guest cannot learn it: not given */
        return false;
    }
    return true;
}

/* increase_reservation: a new extent, its m2p entries invalid until the guest sets them; its mfn
 * goes into the list unless the guest gave none (a null list: Xen allocates all the same). */
static bool increase_one(uint64_t slot, bool tell, unsigned order, uint64_t limit, uint64_t more)
{
    if (pv_dom.nr_pages + (1ull << order) > pv_dom.max_pages)
        return false;
    int64_t mfn = balloon_take(order, limit, M2P_INVALID, more);
    if (mfn < 0)
        return false;
    uint64_t m = (uint64_t)mfn;
    if (tell && !ext_put(slot, m)) {
        balloon_untake(m, order);
        return false;
    }
    return true;
}

long memop_reservation(unsigned op, uint64_t start, uint64_t arg)
{
    struct xen_memory_reservation r;

    if (copy_from_guest(&r, arg, sizeof(r)))
        return (long)start;
    return memop_reservation_r(op, start, &r);
}

long memop_reservation_r(unsigned op, uint64_t start, const struct xen_memory_reservation *rp)
{
    const struct xen_memory_reservation r = *rp;
    uint64_t limit, i, list;

    if (r.nr_extents > (~0u >> MEMOP_EXTENT_SHIFT) ||
        start >= r.nr_extents || r.domid != DOMID_SELF || !mem_flags_ok(r.mem_flags, &limit) ||
        r.extent_order > BALLOON_MAX_ORDER)
        return (long)start;
    list = (uint64_t)(uintptr_t)r.extent_start.p;
    if (!list_ok(list, start, r.nr_extents))
        return (long)start;
    if (op == XENMEM_populate_physmap && (r.mem_flags & XENMEMF_populate_on_demand))
        return (long)start;             /* PoD on oneself: refused */

    balloon_begin();
    for (i = start; i < r.nr_extents; i++) {
        uint64_t slot = list + i * xw(), mfn;
        uint64_t more = MIN(r.nr_extents - i - 1, (pv_dom.max_pages - pv_dom.nr_pages) >> r.extent_order);
        if (op == XENMEM_decrease_reservation) {
            if (!ext_get(slot, &mfn) || !decrease_one(mfn, r.extent_order))
                break;
        } else if (op == XENMEM_increase_reservation) {
            if (!increase_one(slot, list != 0, r.extent_order, limit, more))
                break;
        } else if (!populate_one(slot, r.extent_order, limit, more)) {
            break;
        }
    }
    balloon_end();
    return (long)i;
}

/* ---- exchange ---- */

struct exch_state {
    uint64_t stolen[CHUNK_MAX], taken[CHUNK_MAX];
    unsigned nr_stolen, nr_taken;
};
static struct exch_state xs;            /* under the balloon lock */

static void chunk_undo(unsigned out_order)
{
    while (xs.nr_taken)
        balloon_untake(xs.taken[--xs.nr_taken], out_order);
    while (xs.nr_stolen)
        balloon_unsteal(xs.stolen[--xs.nr_stolen]);
}

/* One chunk: 2^in_chunk in extents for 2^out_chunk out extents (the same number of frames). */
static int chunk(const struct xen_memory_exchange *x, uint64_t i, unsigned in_chunk, unsigned out_chunk,
                 uint64_t limit)
{
    uint64_t in_list = (uint64_t)(uintptr_t)x->in.extent_start.p;
    uint64_t out_list = (uint64_t)(uintptr_t)x->out.extent_start.p;
    int rc = 0;

    xs.nr_stolen = xs.nr_taken = 0;
    for (uint64_t j = 0; j < (1ull << in_chunk) && !rc; j++) {
        uint64_t mfn;
        if (!ext_get(in_list + ((i << in_chunk) + j) * xw(), &mfn)) {
            rc = -XEN_EFAULT;
            break;
        }
        for (uint64_t k = 0; k < (1ull << x->in.extent_order) && !rc; k++)
            if (!(rc = balloon_steal(mfn + k)))
                xs.stolen[xs.nr_stolen++] = mfn + k;
    }
    for (uint64_t j = 0; j < (1ull << out_chunk) && !rc; j++) {
        uint64_t gpfn;
        if (!ext_get(out_list + ((i << out_chunk) + j) * xw(), &gpfn)) {
            rc = -XEN_EFAULT;
            break;
        }
        int64_t mfn = balloon_take(x->out.extent_order, limit, gpfn, (1ull << out_chunk) - j - 1);
        if (mfn < 0)
            rc = -XEN_ENOMEM;
        else
            xs.taken[xs.nr_taken++] = (uint64_t)mfn;
    }
    if (rc) {
        chunk_undo(x->out.extent_order);
        return rc;
    }
    /* the chunk is done; as in Xen, a list we cannot write only makes the call fail */
    for (unsigned s = 0; s < xs.nr_stolen; s++)
        balloon_commit_steal(xs.stolen[s]);
    for (unsigned t = 0; t < xs.nr_taken; t++)
        if (!ext_put(out_list + ((i << out_chunk) + t) * xw(), xs.taken[t]))
            rc = -XEN_EFAULT;
    return rc;
}

long memop_exchange_x(struct xen_memory_exchange *x)
{
    unsigned in_order = x->in.extent_order, out_order = x->out.extent_order;
    uint64_t in_n = x->in.nr_extents, out_n = x->out.nr_extents, limit;

    if (MAX(in_order, out_order) > BALLOON_MAX_ORDER)
        return ERR(-XEN_EPERM, "MAX(in_order, out_order) > BALLOON_MAX_ORDER");
    if (x->nr_exchanged > in_n || x->in.domid != x->out.domid || (~0ull >> in_order) < in_n ||
        (~0ull >> out_order) < out_n || (in_n << in_order) != (out_n << out_order))
        return ERR(-XEN_EINVAL);
    unsigned in_chunk = out_order >= in_order ? out_order - in_order : 0;
    unsigned out_chunk = in_order > out_order ? in_order - out_order : 0;
    uint64_t out_done = in_chunk ? x->nr_exchanged >> in_chunk : x->nr_exchanged << out_chunk;
    if (!list_ok((uint64_t)(uintptr_t)x->in.extent_start.p, x->nr_exchanged, in_n) ||
        !list_ok((uint64_t)(uintptr_t)x->out.extent_start.p, out_done, out_n))
        return ERR(-XEN_EFAULT);
    if (!mem_flags_ok(x->out.mem_flags, &limit))
        return ERR(-XEN_EINVAL, "!mem_flags_ok(x->out.mem_flags, &limit)");
    if (x->in.domid != DOMID_SELF)
        return ERR(-XEN_ESRCH, "x->in.domid != DOMID_SELF");

    long rc = 0;
    uint64_t i;
    balloon_begin();
    for (i = x->nr_exchanged >> in_chunk; i < (in_n >> in_chunk) && !rc; i++)
        rc = chunk(x, i, in_chunk, out_chunk, limit);
    balloon_end();
    /* a failed chunk is not counted (Xen: not even one whose only fault was writing the list) */
    x->nr_exchanged = rc ? (i - 1) << in_chunk : in_n;
    return rc;
}

long memop_exchange(uint64_t arg)
{
    struct xen_memory_exchange x;

    if (copy_from_guest(&x, arg, sizeof(x)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&x, arg, sizeof(x))");
    long rc = memop_exchange_x(&x);
    if (copy_to_guest(arg + offsetof(struct xen_memory_exchange, nr_exchanged), &x.nr_exchanged,
                      sizeof(x.nr_exchanged)))
        rc = -XEN_EFAULT;
    return rc;
}
