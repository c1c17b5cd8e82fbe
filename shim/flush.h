/* flush.h: the one entry point for every TLB flush the shim makes or the guest asks for. */
#ifndef SHIM_FLUSH_H
#define SHIM_FLUSH_H

#include "lib.h"

#define FLUSH_ALL       0x1u    /* every translation (guest mappings are never global) */
#define FLUSH_VA        0x2u    /* the 4 KiB page at va */
#define FLUSH_NO_ASSIST 0x4u    /* the shim's own safety depends on it: never delegated or skipped */

#define FLUSH_CPUS_ALL  (~0ull) /* every shim CPU that may hold guest translations */
#define FLUSH_CPU(n)    (1ull << (n))

struct flush_stats {
    uint64_t local, local_va, remote;
};
extern struct flush_stats flush_stats;

void flush_init(void);                  /* its IPI vector; on the BSP before the APs start */

/* Flush on the shim CPUs in `cpus` (a bitmap of struct cpu ids); returns when all have. */
void flush_tlb(uint64_t cpus, uint64_t va, unsigned flags);

#endif
