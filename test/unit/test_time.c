/*
 * test_time.c: clock_line_tsc, the TSC deadline the shim sets its timer to without reading the
 * TSC (an exit on an L0 that traps RDTSC), against clock_line_ns, the line the guest's pvclock
 * and the shim's own clock read. The deadline must never come early (a timer that fires before
 * its time finds nothing due and costs another interrupt) and never more than a cycle late.
 */
#include "harness.h"
#include "shim/time.h"

/* every (line, ns): the TSC found reaches ns, the cycle before does not */
static int exact(const struct clock_line *l, uint64_t ns)
{
    uint64_t tsc = clock_line_tsc(l, ns);

    if (clock_line_ns(l, tsc) < ns)
        return 0;
    return tsc == l->tsc0 || clock_line_ns(l, tsc - 1) < ns;
}

void test_time(void)
{
    /* pvclock pairs as Xen and the standalone calibration give them: 1, 2.6 and 3.8 GHz, 100 MHz */
    static const uint64_t hz[] = { 1000000000ull, 2600000000ull, 3792856000ull, 100000000ull, 999999937ull };
    static const uint64_t ahead[] = { 0, 1, 999, 1000000, 10000000000ull, 3600000000000ull, 86400000000000ull * 30 };

    for (unsigned h = 0; h < sizeof(hz) / sizeof(hz[0]); h++) {
        struct clock_line l = { .tsc0 = 123456789012345ull, .ns0 = 5000000000ull };
        hz_to_ns_scale(hz[h], &l.mul, &l.shift);
        unsigned ok = 0, n = 0;
        for (unsigned a = 0; a < sizeof(ahead) / sizeof(ahead[0]); a++, n++)
            ok += exact(&l, l.ns0 + ahead[a]);
        CHECK_EQ(ok, n);
    }

    /* a time at or before the line's start is its start (a deadline already passed fires now) */
    struct clock_line l = { .tsc0 = 1000, .ns0 = 500 };
    hz_to_ns_scale(2000000000ull, &l.mul, &l.shift);
    CHECK_EQ(clock_line_tsc(&l, 500), 1000);
    CHECK_EQ(clock_line_tsc(&l, 3), 1000);
    CHECK_EQ(clock_line_tsc(&l, 501), 1002);      /* 2 GHz: 2 cycles a ns */

    /* no line yet (mul 0): its start, not a division by zero */
    struct clock_line none = { .tsc0 = 77, .ns0 = 0, .mul = 0 };
    CHECK_EQ(clock_line_tsc(&none, 1000), 77);

    /* far beyond the TSC's range: saturates instead of wrapping to a time in the past */
    struct clock_line slow = { .tsc0 = ~0ull - 10, .ns0 = 0 };
    hz_to_ns_scale(1000000000ull, &slow.mul, &slow.shift);
    CHECK(clock_line_tsc(&slow, 1000000) == ~0ull);
}
