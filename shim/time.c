/* time.c: the shim's notion of time: now_ns() from the selected L0 clock, TSC <-> ns scaling. */
#include "l0/l0.h"
#include "shim/debug.h"
#include "shim/time.h"
#include "shim/x86.h"

uint64_t tsc_hz;
static uint64_t ns2tsc_mul;             /* tsc = ns * ns2tsc_mul >> 32 */
static uint64_t tsc2ns_mul;             /* ns = tsc * tsc2ns_mul >> 32 */

uint64_t now_ns(void)
{
    return l0->now_ns();
}

uint64_t tsc_at_ns(uint64_t ns)
{
    struct clock_line l;

    l0->clock_line(&l);
    if (!l.mul) {                       /* no clock yet: from the TSC's rate */
        uint64_t now = now_ns();
        return rdtsc() + ns_to_tsc(ns > now ? ns - now : 0);
    }
    return clock_line_tsc(&l, ns);
}

void time_init(void)
{
    tsc_hz = l0->tsc_hz();
    ASSERT(tsc_hz >= 1000000);
    ns2tsc_mul = ((tsc_hz / 1000000000) << 32) + (((tsc_hz % 1000000000) << 32) / 1000000000);
    tsc2ns_mul = (1000000000ull << 32) / tsc_hz;
}

uint64_t ns_to_tsc(uint64_t ns)
{
    return (uint64_t)(((unsigned __int128)ns * ns2tsc_mul) >> 32);
}

uint64_t tsc_to_ns(uint64_t tsc)
{
    return (uint64_t)(((unsigned __int128)tsc * tsc2ns_mul) >> 32);
}

void ndelay(uint64_t ns)
{
    uint64_t end = now_ns() + ns;

    while ((int64_t)(now_ns() - end) < 0)
        cpu_relax();
}
