/*
 * spinlock.h: a ticket spinlock (fair, so a preempted vCPU's waiters queue in order). On an
 * overcommitted L0 the holder may not be running at all (on one pCPU, a contended lock always
 * means that): a waiter that has spun a while gives its pCPU back to L0 instead of spinning out
 * its time slice, so that the holder runs sooner.
 */
#ifndef SHIM_SPINLOCK_H
#define SHIM_SPINLOCK_H

#include "shim/x86.h"

#define SPIN_YIELD_EVERY 1024           /* spins between yields to L0 */

void cpu_yield(void);                   /* smp.c: L0 may run another vCPU of ours (no-op: no L0) */

/* One step of a busy wait for another CPU. */
static inline void spin_wait(unsigned *spins)
{
    if (++*spins % SPIN_YIELD_EVERY == 0)
        cpu_yield();
    else
        cpu_relax();
}

typedef struct {
    volatile uint16_t head, tail;
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

static inline void spin_lock(spinlock_t *l)
{
    uint16_t me = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    unsigned spins = 0;
    while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != me)
        spin_wait(&spins);
}

/* spin_lock, calling wait() while it waits its turn (for work that must go on meanwhile). */
static inline void spin_lock_serving(spinlock_t *l, void (*wait)(void))
{
    uint16_t me = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    unsigned spins = 0;
    while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != me) {
        wait();
        spin_wait(&spins);
    }
}

static inline bool spin_trylock(spinlock_t *l)
{
    uint16_t h = __atomic_load_n(&l->head, __ATOMIC_RELAXED);
    uint16_t t = h;
    return __atomic_compare_exchange_n(&l->tail, &t, (uint16_t)(h + 1), false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_unlock(spinlock_t *l)
{
    __atomic_store_n(&l->head, (uint16_t)(l->head + 1), __ATOMIC_RELEASE);
}

static inline uint64_t spin_lock_irqsave(spinlock_t *l)
{
    uint64_t f = irq_save();
    spin_lock(l);
    return f;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, uint64_t f)
{
    spin_unlock(l);
    irq_restore(f);
}

#endif
