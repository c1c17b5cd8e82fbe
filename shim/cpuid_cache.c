/*
 * cpuid_cache.c: the L0's CPUID answers, kept. A PV guest's CPUID faults into the shim (CPUID
 * faulting) and the shim asks the real one, which under an L0 is an exit every time; glibc's
 * start-up alone asks some twenty leaves, so every exec paid that many exits. The L0's answers
 * are its CPUID policy for the domain, fixed for the domain's life, so only what can differ is
 * asked again:
 *  - leaves with a CPU's own identity (1's initial APIC ID: kept per CPU; 0xB, 0x1F, 0x1A,
 *    0x8000001E, 0x80000026: never kept);
 *  - leaf 0xD, whose sizes follow the XCR0 and XSS loaded at the moment: never kept.
 * Only the leaves below are kept at all (what glibc and Linux ask), each slot written once
 * with its valid flag last, so CPUs can fill it at the same time without a lock: they would
 * write the same words.
 */
#include "shim/config.h"
#include "shim/cpu.h"
#include "shim/cpuid_cache.h"
#include "shim/x86.h"

#define SUBS 8                          /* subleaves kept of the leaves that have them */

struct slot {
    uint32_t r[4];
    bool valid;
};

/* the leaves kept for every CPU: those that ignore sub (one slot), then those with subleaves */
static const uint32_t plain[] = { 0, 2, 6, 0x19, 0x80000000, 0x80000001, 0x80000002, 0x80000003, 0x80000004,
                                  0x80000005, 0x80000006, 0x80000007, 0x80000008 };
static const uint32_t with_sub[] = { 4, 7, 0x14, 0x8000001d };

static struct slot shared[ARRAY_SIZE(plain) + ARRAY_SIZE(with_sub) * SUBS];
static struct slot leaf1[MAX_CPUS];

static struct slot *slot_of(uint32_t leaf, uint32_t sub)
{
    if (leaf == 1)
        return &leaf1[this_cpu()->id];
    for (unsigned i = 0; i < ARRAY_SIZE(plain); i++)
        if (plain[i] == leaf)
            return &shared[i];
    for (unsigned i = 0; i < ARRAY_SIZE(with_sub); i++)
        if (with_sub[i] == leaf)
            return sub < SUBS ? &shared[ARRAY_SIZE(plain) + i * SUBS + sub] : NULL;
    return NULL;
}

void cpuid_cached(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    struct slot *s = slot_of(leaf, sub);

    if (s && __atomic_load_n(&s->valid, __ATOMIC_ACQUIRE)) {
        *a = s->r[0], *b = s->r[1], *c = s->r[2], *d = s->r[3];
        return;
    }
    cpuid_count(leaf, sub, a, b, c, d);
    if (!s)
        return;
    s->r[0] = *a, s->r[1] = *b, s->r[2] = *c, s->r[3] = *d;
    __atomic_store_n(&s->valid, true, __ATOMIC_RELEASE);
}

void cpuid_cache_forget(void)
{
    for (unsigned i = 0; i < ARRAY_SIZE(shared); i++)
        __atomic_store_n(&shared[i].valid, false, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < ARRAY_SIZE(leaf1); i++)
        __atomic_store_n(&leaf1[i].valid, false, __ATOMIC_RELEASE);
}
