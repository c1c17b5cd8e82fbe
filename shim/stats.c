/*
 * stats.c: publishes the shim's counters in its stats page for the host to read
 * (include/public/pvshim-stats.h). The counters stay where they are counted (pv_dom, the L0
 * backend, stats_live); a timer copies them into the page under a sequence count. So the hot
 * paths never write a page that another CPU or dom0 reads, and a reader gets one consistent
 * snapshot, at the price of one timer interrupt per interval and a snapshot up to that old.
 */
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/mm/pagetype.h"
#include "shim/config.h"
#include "shim/cpu.h"
#include "shim/flush.h"
#include "shim/spinlock.h"
#include "shim/stats.h"
#include "shim/time.h"
#include "shim/timer.h"
#include "shim/x86.h"
#include "version.h"

#define PUBLISH_MS 1000

/* Initialised data, so the page is recognisable (magic, build) before the shim runs at all. */
struct pvshim_stats pvshim_stats __attribute__((section(".data.stats"), aligned(PAGE_SIZE))) = {
    .magic = PVSHIM_STATS_MAGIC,
    .version = PVSHIM_STATS_VERSION,
    .size = PVSHIM_STATS_SIZE,
    .build = "pvshim " PVSHIM_VERSION,
    .publish_interval_ms = PUBLISH_MS,
};

struct stats_live stats_live;

static spinlock_t lock = SPINLOCK_INIT;
static bool started;
static uint64_t boot_ns;
static struct timer tick;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Copy every counter into the page. Caller holds lock with interrupts off. */
static void publish(uint32_t flags, unsigned reason)
{
    struct pvshim_stats *s = &pvshim_stats;
    uint64_t g = s->generation;
    const uint64_t *l0hc = l0->hcall_count;

    if (s->flags & PVSHIM_STATS_FINAL)
        return;
    __atomic_store_n(&s->generation, g + 1, __ATOMIC_RELAXED);
    barrier();                          /* x86 keeps stores in order: the compiler must too */
    s->nr_snapshots++;
    s->uptime_ns = started ? now_ns() - boot_ns : 0;
    s->shutdown_reason = reason;
    s->nr_cpus = nr_cpus_online;
    str_copy(s->l0, l0->name, sizeof(s->l0));
    s->guest_hypercalls = LOAD(stats_live.guest_hypercalls);
    s->bounces = LOAD(pv_dom.nr_bounces);
    s->emulated = LOAD(pv_dom.nr_emulated);
    s->l0_hypercalls = 0;
    for (unsigned i = 0; i < PVSHIM_STATS_NR_HC; i++) {
        s->guest_hypercall[i] = LOAD(stats_live.guest_hypercall[i]);
        s->l0_hypercall[i] = l0hc ? LOAD(l0hc[i]) : 0;
        s->l0_hypercalls += s->l0_hypercall[i];
    }
    s->ipis_sent = LOAD(stats_live.ipis_sent);
    s->cr4_writes = LOAD(stats_live.cr4_writes);
    s->tlb_flush_local = LOAD(flush_stats.local) + LOAD(flush_stats.local_va);
    s->tlb_flush_remote_assisted = LOAD(flush_stats.remote_assisted);
    s->tlb_flush_remote_ipi = LOAD(flush_stats.remote_ipi);
    s->flush_wait_ns = LOAD(flush_stats.wait_ns);
    s->pt_validations = LOAD(pv_mm.nr_validations);
    s->flags = flags;
    barrier();
    __atomic_store_n(&s->generation, g + 2, __ATOMIC_RELEASE);
}

static void tick_fn(struct timer *t, void *arg)
{
    /* Interrupts are off here; if this CPU was publishing already, skip a round. */
    if (spin_trylock(&lock)) {
        publish(0, 0);
        spin_unlock(&lock);
    }
    timer_set(t, now_ns() + PUBLISH_MS * 1000000ull);
}

void stats_init(void)
{
    boot_ns = now_ns();
    started = true;
    timer_init(&tick, tick_fn, NULL);
    uint64_t f = irq_save();
    tick_fn(&tick, NULL);
    irq_restore(f);
}

void stats_publish_final(unsigned reason)
{
    uint64_t f = irq_save();

    /* Bounded: a panic inside publish() must not hang the shutdown that reports it. */
    for (unsigned i = 0; i < 1000000; i++) {
        if (spin_trylock(&lock)) {
            publish(PVSHIM_STATS_FINAL, reason);
            spin_unlock(&lock);
            break;
        }
        cpu_relax();
    }
    irq_restore(f);
}
