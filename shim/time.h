/* time.h: the clock (the L0's, or the calibrated TSC standalone) in ns, TSC conversions, delays. */
#ifndef SHIM_TIME_H
#define SHIM_TIME_H

#include "shim/lib.h"

extern uint64_t tsc_hz;

/* now_ns() as a line in the TSC: ns = ns0 + scale_64_32(tsc - tsc0, mul, shift). The guest's
 * pvclock is this line, so its clock and the shim's (its timers' deadlines) are one clock. */
struct clock_line {
    uint64_t tsc0, ns0;
    uint32_t mul;
    int shift;
};

uint64_t now_ns(void);
uint64_t tsc_at_ns(uint64_t ns);        /* the TSC when now_ns() reaches ns, read off the clock line */
void time_init(void);                   /* after l0->init: the L0 knows the TSC frequency */
uint64_t ns_to_tsc(uint64_t ns);
uint64_t tsc_to_ns(uint64_t tsc);
void ndelay(uint64_t ns);
static inline void udelay(uint64_t us) { ndelay(us * 1000); }
static inline void mdelay(uint64_t ms) { ndelay(ms * 1000000); }

/* mul/shift scaling helpers, shared with the L0 clocks */
static inline uint64_t scale_64_32(uint64_t v, uint32_t mul32, int shift)
{
    if (shift < 0)
        v >>= -shift;
    else
        v <<= shift;
    return (uint64_t)(((unsigned __int128)v * mul32) >> 32);
}

/* The time a clock line gives at TSC value tsc. */
/* A TSC behind the line's start (a record from before a restore, whose TSC need not go on from
 * the old domain's) reads as the start, not as 2^64 cycles on. */
static inline uint64_t clock_line_ns(const struct clock_line *l, uint64_t tsc)
{
    if ((int64_t)(tsc - l->tsc0) < 0)
        return l->ns0;
    return l->ns0 + scale_64_32(tsc - l->tsc0, l->mul, l->shift);
}

/* The TSC value at which a clock line reaches time ns (the inverse of clock_line_ns, to within a
 * cycle), without reading the TSC: a TSC-deadline timer is set from it, and an L0 that traps
 * RDTSC takes an exit for every read. A time at or before the line's start gives its start;
 * one beyond the 64-bit TSC saturates. */
static inline uint64_t clock_line_tsc(const struct clock_line *l, uint64_t ns)
{
    if (ns <= l->ns0 || !l->mul)
        return l->tsc0;
    uint64_t d = ns - l->ns0;
    if (d >> 62)
        d = 1ull << 62;                 /* 146 years on: far enough */
    /* v = d * 2^32 / mul in two steps, each within 64 bits (no 128-bit division here) */
    uint64_t q = d / l->mul, r = d % l->mul;
    if (q >> 31)
        return ~0ull;
    uint64_t v = (q << 32) + ((r << 32) + l->mul - 1) / l->mul;   /* rounded up: never early */
    if (l->shift >= 0) {
        v = (v + (1ull << l->shift) - 1) >> l->shift;
    } else {
        if (v >> (64 + l->shift))
            return ~0ull;
        v <<= -l->shift;
    }
    return l->tsc0 + v < l->tsc0 ? ~0ull : l->tsc0 + v;
}

/* The pvclock-style pair for a counter at hz: ns = scale_64_32(ticks, *mul32, *shift), with
 * *mul32 normalised to [2^31, 2^32) for the most precision. */
static inline void hz_to_ns_scale(uint64_t hz, uint32_t *mul32, int *shift)
{
    uint64_t m = (1000000000ull << 32) / (hz ? hz : 1000000000ull);
    int s = 0;

    while (m >= (1ull << 32)) {
        m >>= 1;
        s++;
    }
    while (m < (1ull << 31)) {
        m <<= 1;
        s--;
    }
    *mul32 = (uint32_t)m;
    *shift = s;
}

#endif
