/* flush.h: the one entry point for every TLB flush the shim makes or the guest asks for. */
#ifndef SHIM_FLUSH_H
#define SHIM_FLUSH_H

#include "shim/lib.h"

#define FLUSH_ALL       0x1u    /* every translation (guest mappings are never global) */
#define FLUSH_VA        0x2u    /* the 4 KiB page at va */
#define FLUSH_NO_ASSIST 0x4u    /* the shim's own safety depends on it: never delegated or skipped */
#define FLUSH_ORDER(n)  ((unsigned)(n) << 8)   /* FLUSH_VA: 2^n pages from va */
#define FLUSH_ORDER_OF(f) (((f) >> 8) & 0x3f)

#define FLUSH_CPUS_ALL  (~0ull) /* every shim CPU that may hold guest translations */
#define FLUSH_CPU(n)    (1ull << (n))

struct flush_stats {
    uint64_t local, local_va;           /* this CPU's whole / VA flushes */
    uint64_t remote_assisted, remote_ipi;   /* flushes that reached other CPUs, by how */
    uint64_t wait_ns;                   /* time spent waiting for remote flushes to complete */
    uint64_t clock_skipped;             /* CPUs a safety flush left out: flushed since (the clock) */
};
extern struct flush_stats flush_stats;
extern bool flush_assisted;             /* remote flushes go to L0 (flush_probe) */
extern bool flush_clock_on;             /* the TLB-flush clock filters the shim's safety flushes */

void flush_init(void);                  /* its IPI vector; on the BSP before the APs start */
/* After L0 is up: assisted-flush= and tlb-clock= (-1 auto, 0 off, 1 on). The clock defaults to
 * on only when remote flushes are IPIs: one assisted flush costs the same for any CPU set. */
void flush_probe(int want_assisted, int want_clock);

/*
 * The TLB-flush clock. A frame that may still be cached somewhere takes a stamp when it is let
 * go (flush_clock_stamp); a later flush for it need not reach a CPU whose last full flush came
 * after that stamp (flush_tlb_since). Every CR3 load flushes the guest's translations (they are
 * never global unless global-pages=on), so flush_load_cr3 ticks this CPU's time too; guest mode
 * switches make that frequent.
 */
uint32_t flush_clock_stamp(void);
void flush_load_cr3(uint64_t cr3);
void flush_tlb_since(uint64_t mask, uint32_t stamp, unsigned flags);
void flush_report(void);                /* the counters, one line (at shutdown) */

/* Flush on the shim CPUs in `cpus` (a bitmap of struct cpu ids); returns when all have. */
void flush_tlb(uint64_t cpus, uint64_t va, unsigned flags);

#endif
