/* frame.c: the frame allocator over the frame-state map: aligned runs, limits, ownership checks. */
#include "shim/debug.h"
#include "shim/frame.h"
#include "shim/xerrno.h"

void frame_map_init(struct frame_map *m, uint8_t *state, uint64_t nr)
{
    m->state = state;
    m->nr = nr;
    memset(state, FS_ABSENT, nr);
}

void frame_pool_init(struct frame_pool *p, const char *name, struct frame_map *m, unsigned index)
{
    ASSERT(index < FRAME_POOLS_MAX);
    memset(p, 0, sizeof(*p));
    p->name = name;
    p->map = m;
    p->free_state = (uint8_t)(FS_POOL_BASE + 2 * index);
    p->used_state = (uint8_t)(FS_POOL_BASE + 2 * index + 1);
    p->low_hint = m->nr;
}

static bool range_ok(const struct frame_pool *p, uint64_t start, uint64_t end)
{
    return start <= end && end <= p->map->nr;
}

static void note_free(struct frame_pool *p, uint64_t pfn)
{
    if (pfn < p->low_hint)
        p->low_hint = pfn;
}

int frame_pool_add(struct frame_pool *p, uint64_t start, uint64_t end)
{
    uint8_t *s = p->map->state;

    if (!range_ok(p, start, end))
        return ERR(-XEN_EINVAL);
    for (uint64_t i = start; i < end; i++)
        if (s[i] != FS_ABSENT)
            return ERR(-XEN_EEXIST);
    memset(s + start, p->free_state, end - start);
    p->free_frames += end - start;
    p->total_frames += end - start;
    if (end > start)
        note_free(p, start);
    return 0;
}

static int retag_free(struct frame_pool *p, uint64_t start, uint64_t end, uint8_t to, bool still_ours)
{
    uint8_t *s = p->map->state;

    if (!range_ok(p, start, end))
        return ERR(-XEN_EINVAL);
    for (uint64_t i = start; i < end; i++) {
        if (s[i] != p->free_state)
            continue;
        s[i] = to;
        p->free_frames--;
        if (!still_ours)
            p->total_frames--;
    }
    return 0;
}

int frame_pool_remove(struct frame_pool *p, uint64_t start, uint64_t end)
{
    if (start >= p->map->nr)
        return 0;                       /* beyond RAM: nothing of ours there */
    return retag_free(p, start, MIN(end, p->map->nr), FS_RESERVED, false);
}

int frame_pool_unback(struct frame_pool *p, uint64_t start, uint64_t end)
{
    return retag_free(p, start, end, FS_ABSENT, false);
}

int frame_pool_carve(struct frame_pool *p, uint64_t start, uint64_t end)
{
    if (start >= p->map->nr)
        return 0;
    return retag_free(p, start, MIN(end, p->map->nr), p->used_state, true);
}

/* Length of the free run of this pool starting at pfn, stopping at `end`. */
static uint64_t run_at(const struct frame_pool *p, uint64_t pfn, uint64_t end)
{
    const uint8_t *s = p->map->state;
    uint64_t i = pfn;

    while (i < end && s[i] == p->free_state)
        i++;
    return i - pfn;
}

int64_t frame_alloc(struct frame_pool *p, uint64_t nr, unsigned align_order, uint64_t limit,
                    enum frame_policy policy)
{
    const uint8_t *s = p->map->state;
    uint64_t align = 1ull << align_order, end = limit ? MIN(limit, p->map->nr) : p->map->nr;
    int64_t found = -1;

    if (!nr || align_order > 40)
        return ERR(-XEN_EINVAL);
    if (nr > p->free_frames || nr > end)
        return ERR(-XEN_ENOMEM);
    bool passed_free = align > 1;       /* did the search step over a free frame? */
    if (policy == FRAME_LOWEST) {
        uint64_t pfn = ALIGN_UP(p->low_hint, align);
        while (pfn + nr <= end) {
            uint64_t run = run_at(p, pfn, pfn + nr);
            if (run == nr) {
                found = (int64_t)pfn;
                break;
            }
            passed_free |= run > 0;
            pfn = ALIGN_UP(pfn + run + 1, align);       /* past the frame that stopped us */
        }
    } else {
        uint64_t pfn = ALIGN_DOWN(end - nr, align);
        for (;;) {
            /* the highest frame in the window that is not free decides where to look next */
            uint64_t b = pfn + nr;
            while (b > pfn && s[b - 1] == p->free_state)
                b--;
            if (b == pfn) {
                found = (int64_t)pfn;
                break;
            }
            b--;                                        /* the blocker */
            if (b < nr)
                break;
            pfn = ALIGN_DOWN(b - nr, align);            /* windows ending at or before b */
        }
    }
    if (found < 0)
        return ERR(-XEN_ENOMEM);
    memset(p->map->state + found, p->used_state, nr);
    p->free_frames -= nr;
    if ((uint64_t)found == p->low_hint || (policy == FRAME_LOWEST && !passed_free))
        p->low_hint = (uint64_t)found + nr;     /* nothing free below: skip the used frames next time */
    return found;
}

int frame_free(struct frame_pool *p, uint64_t start, uint64_t nr)
{
    uint8_t *s = p->map->state;

    if (!nr || start + nr < start || start + nr > p->map->nr)
        return ERR(-XEN_EINVAL);
    for (uint64_t i = start; i < start + nr; i++) {
        if (s[i] == p->free_state)
            return ERR(-XEN_EEXIST);                    /* double free */
        if (s[i] != p->used_state)
            return ERR(-XEN_EPERM);                     /* not ours: another pool's, a hole */
    }
    memset(s + start, p->free_state, nr);
    p->free_frames += nr;
    note_free(p, start);
    return 0;
}

bool frame_pool_owns(const struct frame_pool *p, uint64_t start, uint64_t nr)
{
    if (!nr || start + nr > p->map->nr || start + nr < start)
        return false;
    for (uint64_t i = start; i < start + nr; i++)
        if (p->map->state[i] != p->free_state && p->map->state[i] != p->used_state)
            return false;
    return true;
}

bool frame_is_free(const struct frame_pool *p, uint64_t pfn)
{
    return pfn < p->map->nr && p->map->state[pfn] == p->free_state;
}

int frame_pool_transfer(struct frame_pool *from, struct frame_pool *to, uint64_t nr, uint64_t limit)
{
    uint8_t *s = from->map->state;
    uint64_t end = limit ? MIN(limit, from->map->nr) : from->map->nr, have = 0;

    if (from->map != to->map)
        return ERR(-XEN_EINVAL);
    for (uint64_t i = end; i-- > 0 && have < nr;)
        have += s[i] == from->free_state;
    if (have < nr)
        return ERR(-XEN_ENOMEM);
    for (uint64_t i = end; i-- > 0 && nr;) {
        if (s[i] != from->free_state)
            continue;
        s[i] = to->free_state;
        from->free_frames--;
        from->total_frames--;
        to->free_frames++;
        to->total_frames++;
        note_free(to, i);
        nr--;
    }
    return 0;
}

uint64_t frame_pool_next_free(const struct frame_pool *p, uint64_t *pfn)
{
    uint64_t i = MAX(*pfn, p->low_hint);

    while (i < p->map->nr && p->map->state[i] != p->free_state)
        i++;
    *pfn = i;
    return i < p->map->nr ? i + run_at(p, i, p->map->nr) : 0;
}

int frame_pool_check(const struct frame_pool *p)
{
    uint64_t nfree = 0, nused = 0;

    for (uint64_t i = 0; i < p->map->nr; i++) {
        if (p->map->state[i] == p->free_state) {
            if (i < p->low_hint)
                return ERR(-XEN_EFAULT);
            nfree++;
        } else if (p->map->state[i] == p->used_state) {
            nused++;
        }
    }
    if (nfree != p->free_frames || nfree + nused != p->total_frames)
        return ERR(-XEN_EFAULT);
    return 0;
}
