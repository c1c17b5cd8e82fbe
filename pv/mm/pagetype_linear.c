/*
 * pagetype_linear.c: the counts behind linear page tables (a table mapping a table of its own
 * level), as Xen's linear_pt_count: rare (Linux never makes them), so a small table of the frames
 * that have any. A frame's count is > 0 while it holds that many linear entries to other tables,
 * < 0 while that many such entries map it; a frame is never both (XSA-240).
 */
#include "pv/mm/pagetype.h"
#include "shim/debug.h"

#define LIN_MAX 64
static struct { uint64_t mfn; int32_t n; } lin[LIN_MAX];

void pt_lin_reset(void)
{
    memset(lin, 0, sizeof(lin));
}

static int32_t *lin_slot(uint64_t mfn, bool create)
{
    int free_i = -1;

    for (int i = 0; i < LIN_MAX; i++) {
        if (lin[i].n && lin[i].mfn == mfn)
            return &lin[i].n;
        if (!lin[i].n && free_i < 0)
            free_i = i;
    }
    if (!create || free_i < 0)
        return NULL;
    lin[free_i].mfn = mfn;
    return &lin[free_i].n;
}

int32_t pt_linear_count(uint64_t mfn)
{
    int32_t *n = lin_slot(mfn, false);

    return n ? *n : 0;
}

/* Add d (+1: one more linear entry in this table; -1: one more use of it as a target). */
bool pt_lin_add(uint64_t mfn, int32_t d)
{
    int32_t cur = pt_linear_count(mfn), *n;

    if ((d > 0 && cur < 0) || (d < 0 && cur > 0) || cur == INT16_MAX || cur == INT16_MIN)
        return false;
    if (!(n = lin_slot(mfn, true)))
        return false;                   /* table full: refuse the linear entry */
    *n += d;
    return true;
}

void pt_lin_undo(uint64_t mfn, int32_t d)
{
    int32_t *n = lin_slot(mfn, false);

    ASSERT(n && ((d > 0 && *n > 0) || (d < 0 && *n < 0)));
    *n -= d;
}

