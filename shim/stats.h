/* stats.h: the shim's counters and their publication in the stats page (include/public/pvshim-stats.h). */
#ifndef SHIM_STATS_H
#define SHIM_STATS_H

#include "pvshim-stats.h"
#include "shim/lib.h"

/* Counters that have no other home. Private: the page gets a copy (see stats.c for why). */
struct stats_live {
    uint64_t guest_hypercalls;          /* any number, listed or not */
    uint64_t guest_hypercall[PVSHIM_STATS_NR_HC];
    uint64_t ipis_sent;
    uint64_t cr4_writes;
};

extern struct stats_live stats_live;

/* Relaxed atomics: any CPU may count; only the sum matters. */
#define STAT_INC(f)         __atomic_fetch_add(&stats_live.f, 1, __ATOMIC_RELAXED)
#define STAT_INC_IDX(f, i)  __atomic_fetch_add(&stats_live.f[(i) % ARRAY_SIZE(stats_live.f)], 1, \
                                               __ATOMIC_RELAXED)

/* BSP, once the clock and its timer work: the first snapshot, then one every interval. */
void stats_init(void);
/* The last snapshot, marked final, with the SHUTDOWN_* reason (from any CPU, any context). */
void stats_publish_final(unsigned reason);

#endif
