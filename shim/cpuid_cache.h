/* cpuid_cache.h: the CPUID the L0 gives, asked once per leaf (each CPUID is an exit to L0). */
#ifndef SHIM_CPUID_CACHE_H
#define SHIM_CPUID_CACHE_H

#include "shim/lib.h"

/* CPUID(leaf, sub) on this CPU, from the cache where the leaf's answer cannot change. */
void cpuid_cached(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d);
/* Ask again from now on: a restored domain may run on another host's CPUs. */
void cpuid_cache_forget(void);

#endif
