/* balloon.c: the guest's frames leaving it (to the guest pool, then L0) and coming back (see balloon.h). */
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/mm/balloon.h"
#include "pv/mm/pagetype.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/spinlock.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define BATCH       512                 /* gfns per L0 call: one page of them */
#define PENDING_MAX 64                  /* frames released while in use, waiting */

static spinlock_t balloon_lock = SPINLOCK_INIT;
static uint64_t *ballooned;             /* bit per frame: given to L0 by us, ours to have backed again */
static uint64_t bl_low;                 /* no ballooned frame below this */
static uint64_t out[BATCH], in[BATCH];  /* freed frames on their way to L0; gfns to have backed */
static unsigned nr_out;
static uint64_t pending[PENDING_MAX];
static unsigned nr_pending;
static struct balloon_stats st;

int balloon_init(void)
{
    uint64_t words = (frame_map.nr + 63) / 64;
    int64_t first = alloc_frames(ALIGN_UP(words * 8, PAGE_SIZE) >> PAGE_SHIFT);

    if (first < 0)
        return (int)first;
    ballooned = phys_to_virt((uint64_t)first << PAGE_SHIFT);
    bl_low = frame_map.nr;
    return 0;
}

static bool is_ballooned(uint64_t pfn)
{
    return (ballooned[pfn / 64] >> (pfn % 64)) & 1;
}

/* Hand the queued free frames to L0; those it takes leave the pool and are marked ballooned. The
 * rest stay free in the guest pool, where populating finds them first. */
static void flush_out(void)
{
    unsigned n = 0;

    /* a queued frame may have been taken again since (an exchange's next chunk): it stays */
    for (unsigned i = 0; i < nr_out; i++)
        if (frame_is_free(&guest_pool, out[i]))
            out[n++] = out[i];
    unsigned done = n && l0->release_frames ? l0->release_frames(out, n) : 0;

    for (unsigned i = 0; i < done; i++) {
        uint64_t pfn = out[i];
        frame_pool_unback(&guest_pool, pfn, pfn + 1);
        ballooned[pfn / 64] |= 1ull << (pfn % 64);
        bl_low = MIN(bl_low, pfn);
    }
    st.with_l0 += done;
    nr_out = 0;
}

static void queue_out(uint64_t mfn)
{
    if (nr_out == BATCH)
        flush_out();
    out[nr_out++] = mfn;
}

void balloon_begin(void)
{
    spin_lock(&balloon_lock);
}

void balloon_end(void)
{
    flush_out();
    spin_unlock(&balloon_lock);
}

/* Under mmu_lock: an idle frame of the guest leaves it (Xen: the m2p entry goes invalid as the
 * page is freed). The guest fixes its own p2m. */
static void free_guest_frame(uint64_t mfn)
{
    pv_m2p_set(mfn, M2P_INVALID);
    int rc = frame_free(&guest_pool, mfn, 1);
    ASSERT(rc == 0);
    pv_dom.nr_pages--;
    st.released++;
}

static bool in_use(uint64_t mfn)
{
    return pgi_count(pv_mm.info[mfn]) != 0;
}

static int find_pending(uint64_t mfn)
{
    for (unsigned i = 0; i < nr_pending; i++)
        if (pending[i] == mfn)
            return (int)i;
    return -1;
}

static bool owned(uint64_t mfn)
{
    return mfn < pv_dom.max_mfn && pv_mfn_is_guest(mfn) && !pv_mfn_is_special(mfn);
}

void balloon_reclaim(void)
{
    if (!READ_ONCE(nr_pending))
        return;
    balloon_begin();
    for (unsigned i = 0; i < nr_pending;) {
        uint64_t mfn = pending[i];
        spin_lock(&pv_dom.mmu_lock);
        bool idle = !in_use(mfn);
        if (idle) {
            free_guest_frame(mfn);
            pending[i] = pending[--nr_pending];
            st.pending = nr_pending;
        }
        spin_unlock(&pv_dom.mmu_lock);
        if (idle)
            queue_out(mfn);
        else
            i++;
    }
    balloon_end();
}

int balloon_release(uint64_t mfn)
{
    int rc = 0;
    bool freed = false;

    spin_lock(&pv_dom.mmu_lock);
    if (!owned(mfn)) {
        rc = -XEN_EINVAL;
    } else if (find_pending(mfn) >= 0) {
        /* Xen: a page whose allocation reference is gone already "succeeds" again */
    } else if (in_use(mfn)) {
        if (nr_pending == PENDING_MAX) {
            rc = -XEN_EBUSY;
        } else {
            pending[nr_pending++] = mfn;
            st.pending = nr_pending;
        }
    } else {
        free_guest_frame(mfn);
        freed = true;
    }
    spin_unlock(&pv_dom.mmu_lock);
    if (freed)
        queue_out(mfn);
    return rc ? ERR(rc) : 0;
}

int balloon_steal(uint64_t mfn)
{
    int rc = 0;

    spin_lock(&pv_dom.mmu_lock);
    if (!owned(mfn) || in_use(mfn) || find_pending(mfn) >= 0) {
        rc = -XEN_EINVAL;               /* Xen's steal_page: only an unreferenced page of ours */
    } else {
        rc = frame_free(&guest_pool, mfn, 1);
        ASSERT(rc == 0);
        pv_dom.nr_pages--;
    }
    spin_unlock(&pv_dom.mmu_lock);
    return rc ? ERR(rc) : 0;
}

void balloon_unsteal(uint64_t mfn)
{
    spin_lock(&pv_dom.mmu_lock);
    int rc = frame_pool_carve(&guest_pool, mfn, mfn + 1);
    ASSERT(rc == 0 && pv_mfn_is_guest(mfn));
    pv_dom.nr_pages++;
    spin_unlock(&pv_dom.mmu_lock);
}

void balloon_commit_steal(uint64_t mfn)
{
    spin_lock(&pv_dom.mmu_lock);
    bool still_free = frame_is_free(&guest_pool, mfn);  /* not taken again by the exchange itself */
    if (still_free)
        pv_m2p_set(mfn, M2P_INVALID);
    st.released++;
    spin_unlock(&pv_dom.mmu_lock);
    if (still_free)
        queue_out(mfn);
}

/* All of [pfn, pfn + n) ballooned? */
static bool run_ballooned(uint64_t pfn, uint64_t n)
{
    for (uint64_t i = pfn; i < pfn + n; i++)
        if (!is_ballooned(i))
            return false;
    return true;
}

/* Have L0 back up to `runs` (at least one) aligned runs of 2^order ballooned gfns below limit (at most a batch);
 * what it backs joins the guest pool as free frames. */
static void refill(unsigned order, uint64_t limit, uint64_t runs)
{
    uint64_t n = 1ull << order, end = limit ? MIN(limit, frame_map.nr) : frame_map.nr;
    unsigned nr_in = 0;

    if (!l0->populate_frames)
        return;
    for (uint64_t pfn = ALIGN_UP(bl_low, n); pfn + n <= end && runs && nr_in + n <= BATCH; pfn += n) {
        if (!ballooned[pfn / 64] && n <= 64) {
            pfn = ALIGN_DOWN(pfn | 63, n);      /* skip an empty word */
            continue;
        }
        if (!run_ballooned(pfn, n))
            continue;
        for (uint64_t i = 0; i < n; i++)
            in[nr_in++] = pfn + i;
        runs--;
    }
    unsigned done = nr_in ? l0->populate_frames(in, nr_in) : 0;
    for (unsigned i = 0; i < done; i++) {
        uint64_t pfn = in[i];
        ballooned[pfn / 64] &= ~(1ull << (pfn % 64));
        int rc = frame_pool_add(&guest_pool, pfn, pfn + 1);
        ASSERT(rc == 0);
    }
    st.with_l0 -= done;
    while (bl_low < frame_map.nr && !is_ballooned(bl_low))
        bl_low++;
}

int64_t balloon_take(unsigned order, uint64_t limit, uint64_t gpfn, uint64_t more)
{
    uint64_t n = 1ull << order;

    spin_lock(&pv_dom.mmu_lock);
    int64_t mfn = frame_alloc(&guest_pool, n, order, limit, FRAME_LOWEST);
    spin_unlock(&pv_dom.mmu_lock);
    if (mfn < 0) {
        refill(order, limit, MIN(more + 1, (uint64_t)BATCH >> order));
        spin_lock(&pv_dom.mmu_lock);
        mfn = frame_alloc(&guest_pool, n, order, limit, FRAME_LOWEST);
        spin_unlock(&pv_dom.mmu_lock);
    }
    if (mfn < 0)
        return ERR(-XEN_ENOMEM);
    /* zeroed before the guest learns its number; the frame is the guest's from the alloc on, but
     * nothing of another's is in it (our pool, or fresh from L0) */
    memset(phys_to_virt((uint64_t)mfn << PAGE_SHIFT), 0, n * PAGE_SIZE);
    spin_lock(&pv_dom.mmu_lock);
    for (uint64_t i = 0; i < n; i++)
        pv_m2p_set((uint64_t)mfn + i, gpfn == M2P_INVALID ? M2P_INVALID : gpfn + i);
    pv_dom.nr_pages += n;
    st.populated += n;
    spin_unlock(&pv_dom.mmu_lock);
    return mfn;
}

void balloon_untake(uint64_t mfn, unsigned order)
{
    uint64_t n = 1ull << order;

    spin_lock(&pv_dom.mmu_lock);
    for (uint64_t i = 0; i < n; i++)
        pv_m2p_set(mfn + i, M2P_INVALID);
    int rc = frame_free(&guest_pool, mfn, n);
    ASSERT(rc == 0);
    pv_dom.nr_pages -= n;
    st.populated -= n;
    spin_unlock(&pv_dom.mmu_lock);
}

void balloon_get_stats(struct balloon_stats *s)
{
    *s = st;
}

void balloon_report(void)
{
    if (st.released || st.populated)
        pr_info("guest balloon: %lu frames released, %lu populated; %lu with L0 now, %lu waiting to be unused; guest has %lu of %lu\n",
                st.released, st.populated, st.with_l0, st.pending, pv_dom.nr_pages, pv_dom.max_pages);
}
