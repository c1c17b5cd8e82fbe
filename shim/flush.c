/*
 * flush.c: TLB flushes. Every flush goes through flush_tlb(), so that the remote mechanism (IPIs
 * or the L0's assisted flush, the TLB-flush clock) can be chosen in one place.
 *
 * Remote CPUs get an IPI on VEC_FLUSH and acknowledge by clearing their bit in the request; the
 * sender waits for every bit. One request is in flight at a time (flush_lock). A CPU that wants
 * the lock while another CPU waits for it to acknowledge serves its own bit as it spins, so two
 * senders, or a sender and a CPU that spins with interrupts off, never wait for each other; and
 * it waits in ticket order, so a CPU that flushes again and again cannot keep another out.
 */
#include "flush.h"
#include "apic.h"
#include "config.h"
#include "console.h"
#include "cpu.h"
#include "debug.h"
#include "irq.h"
#include "spinlock.h"
#include "time.h"
#include "x86.h"

struct flush_stats flush_stats;

static spinlock_t flush_lock = SPINLOCK_INIT;
static struct {
    volatile uint64_t pending;          /* CPUs that have not flushed yet */
    uint64_t va;
    unsigned flags;
} req;

static void flush_local(uint64_t va, unsigned flags)
{
    if (flags & FLUSH_ALL) {
        write_cr3(read_cr3());
        flush_stats.local++;
    } else {
        invlpg(va);
        flush_stats.local_va++;
    }
}

/* This CPU's part of the request in flight, if it has one. */
static void serve(void)
{
    uint64_t me = FLUSH_CPU(this_cpu()->id);

    if (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE) & me) {
        flush_local(req.va, req.flags);
        __atomic_fetch_and(&req.pending, ~me, __ATOMIC_RELEASE);
    }
}

static void flush_irq(struct cpu_regs *r)
{
    serve();
}

void flush_init(void)
{
    irq_register(VEC_FLUSH, flush_irq);
}

static void flush_remote(uint64_t mask, uint64_t va, unsigned flags)
{
    spin_lock_serving(&flush_lock, serve);
    req.va = va;
    req.flags = flags;
    __atomic_store_n(&req.pending, mask, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < MAX_CPUS; i++)
        if (mask & FLUSH_CPU(i))
            apic_send_ipi(cpus[i]->apic_id, VEC_FLUSH);
    flush_stats.remote++;

    uint64_t warn_at = now_ns() + 1000000000ull;
    while (__atomic_load_n(&req.pending, __ATOMIC_ACQUIRE)) {
        if (warn_at && now_ns() > warn_at) {
            pr_warn("TLB flush: CPUs %#lx have not answered for 1 s\n", req.pending);
            warn_at = 0;
        }
        cpu_relax();
    }
    spin_unlock(&flush_lock);
}

void flush_tlb(uint64_t mask, uint64_t va, unsigned flags)
{
    struct cpu *c = this_cpu();
    uint64_t others = 0;

    for (unsigned i = 0; i < MAX_CPUS; i++)
        if ((mask & FLUSH_CPU(i)) && i != c->id && cpus[i] && cpus[i]->online)
            others |= FLUSH_CPU(i);

    ASSERT(flags & (FLUSH_ALL | FLUSH_VA));
    if (mask & FLUSH_CPU(c->id))
        flush_local(va, flags);
    if (others)
        flush_remote(others, va, flags);
}
