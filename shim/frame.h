/* frame.h: physical frame pools over one frame-state map: the shim's frames and the guest's apart. */
#ifndef SHIM_FRAME_H
#define SHIM_FRAME_H

#include "shim/lib.h"

/*
 * One byte per frame of physical memory says who owns it and whether it is free. A frame is
 * ABSENT (a hole or not RAM), RESERVED (RAM owned by no pool: the image, firmware), or owned by
 * pool k and then FREE or USED. Freeing can therefore never fail for lack of bookkeeping space,
 * and a frame freed to the wrong pool is caught. Cost: 1 byte per 4 KiB (0.025% of RAM).
 */
enum {
    FS_ABSENT = 0,
    FS_RESERVED = 1,
    FS_POOL_BASE = 2,                   /* pool k: FREE = 2 + 2k, USED = 3 + 2k */
};
#define FRAME_POOLS_MAX 4

struct frame_map {
    uint8_t *state;
    uint64_t nr;                        /* frames [0, nr) */
};

struct frame_pool {
    const char *name;
    struct frame_map *map;
    uint8_t free_state, used_state;
    uint64_t free_frames, total_frames;
    uint64_t low_hint;                  /* no free frame below this */
};

enum frame_policy { FRAME_LOWEST, FRAME_HIGHEST };

void frame_map_init(struct frame_map *m, uint8_t *state, uint64_t nr);
void frame_pool_init(struct frame_pool *p, const char *name, struct frame_map *m, unsigned index);
/* ABSENT frames in [start, end) become this pool's and free (-EEXIST if any is not ABSENT). */
int frame_pool_add(struct frame_pool *p, uint64_t start, uint64_t end);
/* This pool's free frames in [start, end) leave it: they become RESERVED (holes, the image). */
int frame_pool_remove(struct frame_pool *p, uint64_t start, uint64_t end);
/* This pool's free frames in [start, end) leave it and become ABSENT: no longer backed (given
 * back to L0), so frame_pool_add can take them in again once they are. */
int frame_pool_unback(struct frame_pool *p, uint64_t start, uint64_t end);
/* This pool's free frames in [start, end) become used: still ours (e.g. boot modules). */
int frame_pool_carve(struct frame_pool *p, uint64_t start, uint64_t end);
/* nr contiguous frames aligned to 2^align_order, below limit (0: none): the first pfn, or -errno. */
int64_t frame_alloc(struct frame_pool *p, uint64_t nr, unsigned align_order, uint64_t limit,
                    enum frame_policy policy);
/* Free frames this pool allocated: -EPERM if one is not ours, -EEXIST if one is free already. */
int frame_free(struct frame_pool *p, uint64_t start, uint64_t nr);
bool frame_pool_owns(const struct frame_pool *p, uint64_t start, uint64_t nr);
bool frame_is_free(const struct frame_pool *p, uint64_t pfn);
/* Move nr free frames from `from` to `to`, the highest below limit (0: none) first. */
int frame_pool_transfer(struct frame_pool *from, struct frame_pool *to, uint64_t nr, uint64_t limit);
/* The first free run of this pool at or after *pfn: [*pfn, return) or 0 if none. */
uint64_t frame_pool_next_free(const struct frame_pool *p, uint64_t *pfn);
/* Recount the map against the counters: 0 or a negative error. */
int frame_pool_check(const struct frame_pool *p);

#endif
