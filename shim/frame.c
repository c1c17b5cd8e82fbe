/* frame.c: the frame allocator: first/last-fit over sorted free extents, with ownership checks. */
#include "frame.h"
#include "debug.h"
#include "xerrno.h"

void frame_pool_init(struct frame_pool *p, const char *name)
{
    memset(p, 0, sizeof(*p));
    p->name = name;
}

static void remove_at(struct frame_extent *a, unsigned *n, unsigned i)
{
    memmove(&a[i], &a[i + 1], (*n - i - 1) * sizeof(*a));
    (*n)--;
}

static int insert_at(struct frame_extent *a, unsigned *n, unsigned cap, unsigned i,
                     uint64_t start, uint64_t end)
{
    if (*n >= cap)
        return ERR(-XEN_ENOSPC);
    memmove(&a[i + 1], &a[i], (*n - i) * sizeof(*a));
    a[i].start = start;
    a[i].end = end;
    (*n)++;
    return 0;
}

/* Insert [start, end) into a sorted extent list, merging with neighbours; fails on overlap. */
static int list_insert(struct frame_extent *a, unsigned *n, unsigned cap, uint64_t start, uint64_t end)
{
    unsigned i = 0;

    while (i < *n && a[i].end < start)
        i++;
    /* a[i] is the first extent that ends at or after start */
    if (i < *n && a[i].start < end && start < a[i].end)
        return ERR(-XEN_EEXIST);
    if (i + 1 < *n && a[i + 1].start < end)
        return ERR(-XEN_EEXIST);
    bool merge_left = i < *n && a[i].end == start;
    unsigned r = merge_left ? i + 1 : i;
    bool merge_right = r < *n && a[r].start == end;

    if (merge_left && merge_right) {
        a[i].end = a[r].end;
        remove_at(a, n, r);
        return 0;
    }
    if (merge_left) {
        a[i].end = end;
        return 0;
    }
    if (merge_right) {
        a[r].start = start;
        return 0;
    }
    return insert_at(a, n, cap, r, start, end);
}

static bool list_covers(const struct frame_extent *a, unsigned n, uint64_t start, uint64_t end)
{
    /* spans are merged when adjacent, so one extent must cover the whole range */
    for (unsigned i = 0; i < n; i++)
        if (a[i].start <= start && end <= a[i].end)
            return true;
    return false;
}

int frame_pool_add(struct frame_pool *p, uint64_t start, uint64_t end)
{
    int rc;

    if (start >= end)
        return start == end ? 0 : ERR(-XEN_EINVAL);
    for (unsigned i = 0; i < p->nr_spans; i++)
        if (p->span[i].start < end && start < p->span[i].end)
            return ERR(-XEN_EEXIST);
    rc = list_insert(p->span, &p->nr_spans, FRAME_POOL_SPANS, start, end);
    if (rc)
        return rc;
    rc = list_insert(p->free, &p->nr_free, FRAME_POOL_EXTENTS, start, end);
    ASSERT(rc == 0 || rc == -XEN_ENOSPC);
    if (rc)
        return rc;      /* span recorded but not free: the frames are lost, not corrupted */
    p->free_frames += end - start;
    p->total_frames += end - start;
    return 0;
}

/* Remove [start, end) ∩ free from the free list. */
static int take_range(struct frame_pool *p, uint64_t start, uint64_t end)
{
    for (unsigned i = 0; i < p->nr_free && start < end;) {
        struct frame_extent *e = &p->free[i];
        if (e->end <= start) {
            i++;
            continue;
        }
        if (e->start >= end)
            break;
        uint64_t s = MAX(e->start, start), t = MIN(e->end, end);
        p->free_frames -= t - s;
        if (s == e->start && t == e->end) {
            remove_at(p->free, &p->nr_free, i);
        } else if (s == e->start) {
            e->start = t;
            i++;
        } else if (t == e->end) {
            e->end = s;
            i++;
        } else {
            uint64_t old_end = e->end;
            e->end = s;
            int rc = insert_at(p->free, &p->nr_free, FRAME_POOL_EXTENTS, i + 1, t, old_end);
            if (rc) {
                /* keep the list consistent: lose the upper piece rather than corrupt */
                p->free_frames -= old_end - t;
                return rc;
            }
            i += 2;
        }
    }
    return 0;
}

int frame_pool_carve(struct frame_pool *p, uint64_t start, uint64_t end)
{
    if (start > end)
        return ERR(-XEN_EINVAL);
    return take_range(p, start, end);
}

int64_t frame_alloc(struct frame_pool *p, uint64_t nr, unsigned align_order, uint64_t limit,
                    enum frame_policy policy)
{
    uint64_t align = 1ull << align_order;

    if (!nr || align_order > 40)
        return ERR(-XEN_EINVAL);
    if (!limit)
        limit = UINT64_MAX;
    for (unsigned k = 0; k < p->nr_free; k++) {
        unsigned i = policy == FRAME_HIGHEST ? p->nr_free - 1 - k : k;
        struct frame_extent *e = &p->free[i];
        uint64_t hi = MIN(e->end, limit), s;
        if (hi <= e->start || hi - e->start < nr)
            continue;
        if (policy == FRAME_HIGHEST) {
            s = ALIGN_DOWN(hi - nr, align);
            if (s < e->start)
                continue;
        } else {
            s = ALIGN_UP(e->start, align);
            if (s < e->start || s + nr > hi || s + nr < s)
                continue;
        }
        int rc = take_range(p, s, s + nr);
        if (rc)
            return rc;
        return (int64_t)s;
    }
    return ERR(-XEN_ENOMEM);
}

int frame_free(struct frame_pool *p, uint64_t start, uint64_t nr)
{
    if (!nr || start + nr < start)
        return ERR(-XEN_EINVAL);
    if (!list_covers(p->span, p->nr_spans, start, start + nr))
        return ERR(-XEN_EPERM);             /* not ours: a guest frame freed to the shim, or vice versa */
    int rc = list_insert(p->free, &p->nr_free, FRAME_POOL_EXTENTS, start, start + nr);
    if (rc)
        return rc;                          /* -EEXIST: double free */
    p->free_frames += nr;
    return 0;
}

bool frame_pool_owns(const struct frame_pool *p, uint64_t start, uint64_t nr)
{
    return nr && list_covers(p->span, p->nr_spans, start, start + nr);
}

bool frame_is_free(const struct frame_pool *p, uint64_t pfn)
{
    return list_covers(p->free, p->nr_free, pfn, pfn + 1);
}

int frame_pool_transfer(struct frame_pool *from, struct frame_pool *to, uint64_t nr, uint64_t limit)
{
    if (nr > from->free_frames)
        return ERR(-XEN_ENOMEM);
    while (nr) {
        /* the highest free extent below limit */
        int pick = -1;
        for (unsigned i = 0; i < from->nr_free; i++)
            if (!limit || from->free[i].start < limit)
                pick = (int)i;
        if (pick < 0)
            return ERR(-XEN_ENOMEM);
        struct frame_extent e = from->free[pick];
        uint64_t hi = limit ? MIN(e.end, limit) : e.end;
        uint64_t n = MIN(nr, hi - e.start), s = hi - n;
        int rc = take_range(from, s, hi);
        if (rc)
            return rc;
        /* ownership moves too: the range leaves from's spans */
        for (unsigned i = 0; i < from->nr_spans; i++) {
            struct frame_extent *sp = &from->span[i];
            if (sp->start <= s && hi <= sp->end) {
                from->total_frames -= n;
                if (sp->start == s && sp->end == hi)
                    remove_at(from->span, &from->nr_spans, i);
                else if (sp->start == s)
                    sp->start = hi;
                else if (sp->end == hi)
                    sp->end = s;
                else {
                    uint64_t old = sp->end;
                    sp->end = s;
                    rc = insert_at(from->span, &from->nr_spans, FRAME_POOL_SPANS, i + 1, hi, old);
                    if (rc)
                        return rc;
                }
                break;
            }
        }
        rc = frame_pool_add(to, s, hi);
        if (rc)
            return rc;
        nr -= n;
    }
    return 0;
}

static int check_list(const struct frame_extent *a, unsigned n, uint64_t *sum)
{
    *sum = 0;
    for (unsigned i = 0; i < n; i++) {
        if (a[i].start >= a[i].end)
            return ERR(-XEN_EFAULT);
        if (i && a[i - 1].end >= a[i].start)
            return ERR(-XEN_EFAULT);        /* unsorted, overlapping or unmerged */
        *sum += a[i].end - a[i].start;
    }
    return 0;
}

int frame_pool_check(const struct frame_pool *p)
{
    uint64_t free_sum, span_sum;
    int rc;

    if ((rc = check_list(p->free, p->nr_free, &free_sum)) ||
        (rc = check_list(p->span, p->nr_spans, &span_sum)))
        return rc;
    if (free_sum != p->free_frames || span_sum != p->total_frames)
        return ERR(-XEN_EFAULT);
    for (unsigned i = 0; i < p->nr_free; i++)
        if (!list_covers(p->span, p->nr_spans, p->free[i].start, p->free[i].end))
            return ERR(-XEN_EFAULT);
    return 0;
}
