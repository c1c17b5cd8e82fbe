/* flush.h: the one entry point for every TLB flush the shim makes or the guest asks for. */
#ifndef SHIM_FLUSH_H
#define SHIM_FLUSH_H

#include "lib.h"

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
};
extern struct flush_stats flush_stats;
extern bool flush_assisted;             /* remote flushes go to L0 (flush_probe) */

void flush_init(void);                  /* its IPI vector; on the BSP before the APs start */
void flush_probe(int want_assisted);    /* after L0 is up: -1 auto, 0 off (assisted-flush=) */

/* Flush on the shim CPUs in `cpus` (a bitmap of struct cpu ids); returns when all have. */
void flush_tlb(uint64_t cpus, uint64_t va, unsigned flags);

#endif
