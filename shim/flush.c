/*
 * flush.c: TLB flushes. Every flush the shim makes or the guest asks for goes through
 * flush_tlb(), so that how remote CPUs are flushed is decided in one place.
 *
 * Remote CPUs, two ways:
 *  - assisted: L0 flushes every vCPU of ours at once (Xen's HVMOP_flush_tlbs, probed once at
 *    boot). It is synchronous and complete: when it returns, every other vCPU was paused and had
 *    its ASID dropped, so no CPU can still use a translation from before the call. That is all
 *    the shim's own correctness asks of a flush (a page table demoted to writable, a frame given
 *    back), so no flush of ours needs to bypass it: FLUSH_NO_ASSIST is honoured but unused, and
 *    each caller that would want it must say why. One call costs one exit, however many CPUs.
 *  - IPIs on VEC_FLUSH: each target flushes what was asked and acknowledges by clearing its bit
 *    in the request; the sender waits for every bit. One request is in flight at a time
 *    (flush_lock). A CPU that wants the lock while another waits for it serves its own bit as
 *    it spins, so two senders, or a sender and a CPU spinning with interrupts off, never wait
 *    for each other. On an overcommitted L0 the CPU to wait for may not be running at all: the
 *    waiter spins with spin_wait, which yields its pCPU to L0 now and then.
 */
#include "l0/l0.h"
#include "shim/apic.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/irq.h"
#include "shim/paging.h"
#include "shim/spinlock.h"
#include "shim/stats.h"
#include "shim/time.h"
#include "shim/x86.h"

struct flush_stats flush_stats;
bool flush_assisted, flush_clock_on;
static volatile uint32_t tlb_clock = 1;

#define FLUSH_TIME_EVERY 16             /* assisted flushes: one in this many is timed */
static struct {
    uint32_t n;
} __aligned(64) assisted_count[MAX_CPUS];   /* per CPU, a line each: none bounces between them */

static spinlock_t flush_lock = SPINLOCK_INIT;
static struct {
    volatile uint64_t pending;          /* CPUs that have not flushed yet */
    uint64_t va;
    unsigned flags;
} req;

/* Time of a full flush that starts now: read before it, recorded after it. */
static uint32_t clock_now(void)
{
    return __atomic_load_n(&tlb_clock, __ATOMIC_ACQUIRE);
}

static void clock_flushed(uint32_t t)
{
    __atomic_store_n(&this_cpu()->tlb_time, t, __ATOMIC_RELEASE);
}

uint32_t flush_clock_stamp(void)
{
    /* unique and after every flush time already taken: a CPU whose time is larger flushed later */
    return __atomic_fetch_add(&tlb_clock, 1, __ATOMIC_SEQ_CST);
}

void flush_load_cr3(uint64_t cr3)
{
    uint32_t t = clock_now();

    write_cr3(cr3);
    if (!paging_global)                 /* global guest entries survive a CR3 load */
        clock_flushed(t);
}

static void flush_local(uint64_t va, unsigned flags)
{
    if (flags & FLUSH_ALL) {
        uint32_t t = clock_now();
        if (paging_global) {
            /* global entries too (the guest's user ones may be): only a CR4.PGE toggle does it,
             * and each CR4 write is an exit to L0: the cost seed 002 removes */
            uint64_t cr4 = read_cr4();
            write_cr4(cr4 & ~CR4_PGE);
            write_cr4(cr4);
            STAT_INC(cr4_writes);
            STAT_INC(cr4_writes);
        } else {
            write_cr3(read_cr3());
        }
        clock_flushed(t);
        __atomic_fetch_add(&flush_stats.local, 1, __ATOMIC_RELAXED);
    } else {
        for (uint64_t i = 0; i < (1ull << FLUSH_ORDER_OF(flags)); i++)
            invlpg(va + i * PAGE_SIZE);
        __atomic_fetch_add(&flush_stats.local_va, 1, __ATOMIC_RELAXED);
    }
}

/* This CPU's part of the request in flight, if it has one. Interrupts off: a VEC_FLUSH taken in
 * the middle (serve also runs from a waiting spin) could answer this request and let the next
 * one start, and we would clear our bit in that one after flushing with this one's va. */
static void serve(void)
{
    uint64_t me = FLUSH_CPU(this_cpu()->id), f = irq_save();

    if (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE) & me) {
        flush_local(req.va, req.flags);
        __atomic_fetch_and(&req.pending, ~me, __ATOMIC_RELEASE);
    }
    irq_restore(f);
}

static void flush_irq(struct cpu_regs *r)
{
    serve();
}

void flush_init(void)
{
    irq_register(VEC_FLUSH, flush_irq);
}

void flush_probe(int want_assisted, int want_clock)
{
    /* one real call proves it works (an L0 may refuse: then IPIs) */
    flush_assisted = want_assisted != 0 && l0->flush_tlb && l0->flush_tlb() == 0;
    flush_clock_on = want_clock < 0 ? !flush_assisted : want_clock;
}

static void flush_ipi(uint64_t mask, uint64_t va, unsigned flags)
{
    spin_lock_serving(&flush_lock, serve);     /* in ticket order: a busy flusher cannot keep us out */
    uint64_t t0 = now_ns();
    req.va = va;
    req.flags = flags;
    __atomic_store_n(&req.pending, mask, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < MAX_CPUS; i++)
        if (mask & FLUSH_CPU(i))
            apic_send_ipi(cpus[i]->apic_id, VEC_FLUSH);

    uint64_t warn_at = t0 + 1000000000ull;
    unsigned spins = 0;
    while (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE)) {
        /* the clock only now and then: an L0 may trap rdtsc, and then each read is an exit */
        if (warn_at && spins % SPIN_YIELD_EVERY == 0 && now_ns() > warn_at) {
            pr_warn("TLB flush: CPUs %#lx have not answered for 1 s\n", req.pending);
            warn_at = 0;
        }
        spin_wait(&spins);
    }
    __atomic_fetch_add(&flush_stats.wait_ns, now_ns() - t0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&flush_stats.remote_ipi, 1, __ATOMIC_RELAXED);
    spin_unlock(&flush_lock);
}

void flush_tlb(uint64_t mask, uint64_t va, unsigned flags)
{
    struct cpu *c = this_cpu();
    uint64_t others = 0;

    ASSERT(flags & (FLUSH_ALL | FLUSH_VA));
    for (unsigned i = 0; i < MAX_CPUS; i++)
        if ((mask & FLUSH_CPU(i)) && i != c->id && cpus[i] && cpus[i]->online)
            others |= FLUSH_CPU(i);
    if (others && flush_assisted && !(flags & FLUSH_NO_ASSIST)) {
        /* The time L0 takes is sampled, one flush in FLUSH_TIME_EVERY, and counted that many
         * times over: timing each would read the clock twice around the one hypercall, and
         * an L0 that traps RDTSC makes each read an exit of its own. */
        bool timed = assisted_count[c->id].n++ % FLUSH_TIME_EVERY == 0;
        uint64_t t0 = timed ? now_ns() : 0;
        int rc = l0->flush_tlb();       /* every CPU of ours, this one included */
        if (timed)
            __atomic_fetch_add(&flush_stats.wait_ns, (now_ns() - t0) * FLUSH_TIME_EVERY, __ATOMIC_RELAXED);
        if (rc == 0) {
            __atomic_fetch_add(&flush_stats.remote_assisted, 1, __ATOMIC_RELAXED);
            return;
        }
        pr_warn("TLB flush: L0's assisted flush failed (%d): using IPIs from now on\n", rc);
        flush_assisted = false;
    }
    if (mask & FLUSH_CPU(c->id))
        flush_local(va, flags);
    if (others)
        flush_ipi(others, va, flags);
}

void flush_tlb_since(uint64_t mask, uint32_t stamp, unsigned flags)
{
    if (flush_clock_on) {
        for (unsigned i = 0; i < MAX_CPUS; i++) {
            if (!(mask & FLUSH_CPU(i)) || !cpus[i])
                continue;
            if ((int32_t)(__atomic_load_n(&cpus[i]->tlb_time, __ATOMIC_ACQUIRE) - stamp) > 0) {
                mask &= ~FLUSH_CPU(i);
                __atomic_fetch_add(&flush_stats.clock_skipped, 1, __ATOMIC_RELAXED);
            }
        }
        if (!mask)
            return;
    }
    flush_tlb(mask, 0, flags);
}

void flush_report(void)
{
    const struct flush_stats *f = &flush_stats;

    pr_info("TLB flushes: local %lu + %lu one-range, remote %lu assisted + %lu by IPI (%lu IPIs sent in all), "
            "%lu CPUs skipped by the clock, %lu us waited; CR4 writes %lu\n", f->local, f->local_va,
            f->remote_assisted, f->remote_ipi, stats_live.ipis_sent, f->clock_skipped, f->wait_ns / 1000,
            stats_live.cr4_writes);
}
