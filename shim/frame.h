/* frame.h: physical frame pools (free-extent lists); the shim's frames and the guest's are kept apart. */
#ifndef SHIM_FRAME_H
#define SHIM_FRAME_H

#include "lib.h"

#define FRAME_POOL_EXTENTS 128
#define FRAME_POOL_SPANS   32

struct frame_extent {
    uint64_t start, end;            /* [start, end) in frame numbers */
};

struct frame_pool {
    const char *name;
    unsigned nr_free, nr_spans;
    uint64_t free_frames, total_frames;
    struct frame_extent free[FRAME_POOL_EXTENTS];   /* sorted, disjoint, non-adjacent */
    struct frame_extent span[FRAME_POOL_SPANS];     /* every range this pool ever owned */
};

enum frame_policy { FRAME_LOWEST, FRAME_HIGHEST };

void frame_pool_init(struct frame_pool *p, const char *name);
/* Hand [start, end) to the pool: it becomes owned and free. */
int frame_pool_add(struct frame_pool *p, uint64_t start, uint64_t end);
/* Take [start, end) out of the free list, wherever it is free (reservations, holes). */
int frame_pool_carve(struct frame_pool *p, uint64_t start, uint64_t end);
/* Allocate nr frames aligned to 2^align_order, entirely below limit (0: no limit). */
int64_t frame_alloc(struct frame_pool *p, uint64_t nr, unsigned align_order, uint64_t limit,
                    enum frame_policy policy);
/* Free frames back; they must belong to this pool and not be free already. */
int frame_free(struct frame_pool *p, uint64_t start, uint64_t nr);
bool frame_pool_owns(const struct frame_pool *p, uint64_t start, uint64_t nr);
bool frame_is_free(const struct frame_pool *p, uint64_t pfn);
/* Move nr frames from `from` to `to` (highest ones below limit first, in as few pieces as it takes). */
int frame_pool_transfer(struct frame_pool *from, struct frame_pool *to, uint64_t nr, uint64_t limit);
/* Check every invariant; returns 0 or a negative error (used by asserts and tests). */
int frame_pool_check(const struct frame_pool *p);

#endif
