/*
 * balloon.h: the guest's frames leaving it and coming back (decrease_reservation, populate_physmap,
 * exchange). A frame the guest gives back is freed into the guest pool and then handed to L0
 * (l0_ops.release_frames, batched); it is then ABSENT in the frame map and marked "ballooned", so
 * that populating can have L0 back it again at the same gfn. A frame released while still in use
 * (a type count: page table, writable mapping) stays the guest's until that count is gone, as in
 * Xen, where the page lives on until its last reference drops; it is freed by balloon_reclaim.
 *
 * Callers hold the balloon with balloon_begin/balloon_end (one balloon operation at a time;
 * balloon_end gives what was freed to L0). Frame numbers are the guest's mfns.
 */
#ifndef PV_BALLOON_H
#define PV_BALLOON_H

#include "shim/lib.h"

#define BALLOON_MAX_ORDER 9             /* Xen's limit for a domU (memop-max-order) */

struct balloon_stats {
    uint64_t released, populated;       /* frames, since boot */
    uint64_t with_l0;                   /* frames given back to L0 now */
    uint64_t pending;                   /* released while in use, not yet freed */
};

int balloon_init(void);                 /* at build time: the ballooned-gfn bitmap */
void balloon_begin(void);
void balloon_end(void);

/* Free the frames released in use whose last reference has gone (cheap when there are none). */
void balloon_reclaim(void);

/* decrease_reservation of one frame: 0 (freed, or deferred while in use), or -XEN_EINVAL if the
 * frame is not the guest's, -XEN_EBUSY if too many in-use frames wait already. */
int balloon_release(uint64_t mfn);

/* exchange's input frame: taken from the guest now (0), or -XEN_EINVAL if not the guest's or in
 * use. Until balloon_commit_steal it can be given back with balloon_unsteal. */
int balloon_steal(uint64_t mfn);
void balloon_unsteal(uint64_t mfn);
void balloon_commit_steal(uint64_t mfn);

/* 2^order contiguous, aligned, zeroed frames below limit (a pfn, 0: none) for the guest, their
 * m2p entries set to gpfn onwards (M2P_INVALID: left invalid): the first mfn, or -XEN_ENOMEM. `more`: how many extents like
 * it the caller will want next (so that L0 is asked once for all). balloon_untake undoes it. */
int64_t balloon_take(unsigned order, uint64_t limit, uint64_t gpfn, uint64_t more);
void balloon_untake(uint64_t mfn, unsigned order);

void balloon_get_stats(struct balloon_stats *s);
void balloon_report(void);              /* one line at shutdown, if the guest ballooned */

#endif
