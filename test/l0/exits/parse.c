/* parse.c: the xentrace stream walker behind exitcount (see parse.h). */
#include <string.h>

#include <stdint.h>
#include <xen/trace.h>       /* needs stdint first */

#include "parse.h"

/* xentrace's own record between windows: header, then the CPU and the window's length */
#define CPU_CHANGE_BYTES 12u

/* Bytes of the record that starts with header word H. */
static size_t rec_bytes(uint32_t h)
{
    return 4 + ((h >> 31) ? 8 : 0) + 4 * ((h >> TRACE_EXTRA_SHIFT) & 7);
}

static uint32_t word(const uint8_t *p, unsigned i)
{
    uint32_t w;
    memcpy(&w, p + 4 * i, 4);
    return w;
}

enum exits_where exits_where_of(uint64_t rip)
{
    if (rip < 0x800000000000ull)
        return WHERE_USER;
    if (rip >= 0xffff800000000000ull && rip < 0xffff880000000000ull)
        return WHERE_SHIM;
    if (rip >= 0xffff800000000000ull)
        return WHERE_KERNEL;
    return WHERE_OTHER;                         /* non-canonical: cannot be a RIP */
}

/* Count one exit of the shim's at (rip, reason): an open-addressed table, probed linearly. */
static void count_rip(struct exits *e, uint64_t rip, uint32_t reason)
{
    uint64_t h = (rip ^ ((uint64_t)reason << 40)) * 0x9e3779b97f4a7c15ull;

    for (unsigned i = 0, at = (unsigned)((h >> 40) % EXITS_RIPS); i < EXITS_RIPS; i++, at = (at + 1) % EXITS_RIPS) {
        struct exits_rip *r = &e->rips[at];
        if (r->n && (r->rip != rip || r->reason != reason))
            continue;
        r->rip = rip, r->reason = reason, r->n++;
        return;
    }
    e->rips_full++;
}

/* One whole record inside a window. */
static void record(struct exits *e, const uint8_t *p)
{
    uint32_t h = word(p, 0), ev = h & 0x0fffffff;
    unsigned extra = (h >> 31) ? 3 : 1;         /* the first data word's index */

    e->records++;
    if (ev == TRC_HVM_VMEXIT || ev == (TRC_HVM_VMEXIT | TRC_64_FLAG)) {
        unsigned words = (h >> TRACE_EXTRA_SHIFT) & 7;
        uint32_t reason = words ? word(p, extra) : ~0u;
        /* VMEXIT64's data: the reason, then RIP's low and high halves (Xen's svm/vmx handlers) */
        enum exits_where w = WHERE_OTHER;
        uint64_t rip = 0;
        if ((ev & TRC_64_FLAG) && words >= 3) {
            rip = word(p, extra + 1) | (uint64_t)word(p, extra + 2) << 32;
            w = exits_where_of(rip);
        }
        if (w == WHERE_SHIM)
            count_rip(e, rip, reason);
        e->exits++;
        if (reason < EXITS_REASONS) {
            e->by_reason[reason]++;
            e->by_where[w][reason]++;
        } else {
            e->other_reason++;
            e->where_other_reason[w]++;
        }
    } else if (ev == TRC_HVM_VMENTRY) {
        e->entries++;
    } else if (ev == TRC_LOST_RECORDS && ((h >> TRACE_EXTRA_SHIFT) & 7)) {
        e->lost += word(p, extra);              /* its first word: how many were lost */
    }
}

int exits_feed(struct exits *e, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len && !e->bad) {
        /* what the next item needs: a cpu-change record between windows, else a record's header */
        size_t need = e->window ? 4 : CPU_CHANGE_BYTES;
        if (e->have >= 4 && e->window)
            need = rec_bytes(word(e->buf, 0));
        size_t take = need - e->have < len ? need - e->have : len;
        memcpy(e->buf + e->have, p, take);
        e->have += take, p += take, len -= take;
        if (e->have < need)
            break;
        if (!e->window) {
            if (word(e->buf, 0) != (TRC_TRACE_CPU_CHANGE | (2u << TRACE_EXTRA_SHIFT)))
                e->bad = 1;
            e->window = word(e->buf, 2);
            e->have = 0;
            continue;
        }
        size_t n = rec_bytes(word(e->buf, 0));
        if (n > need)
            continue;                           /* only the header so far: read the rest */
        if (n > e->window) {
            e->bad = 1;                         /* a record that overruns its window */
            break;
        }
        record(e, e->buf);
        e->window -= n;
        e->have = 0;
    }
    return e->bad ? -1 : 0;
}

int exits_end(const struct exits *e)
{
    return e->bad || e->have || e->window ? -1 : 0;
}
