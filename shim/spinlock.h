/* spinlock.h: a ticket spinlock (fair, so a preempted vCPU's waiters queue in order). */
#ifndef SHIM_SPINLOCK_H
#define SHIM_SPINLOCK_H

#include "x86.h"

typedef struct {
    volatile uint16_t head, tail;
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

static inline void spin_lock(spinlock_t *l)
{
    uint16_t me = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != me)
        cpu_relax();
}

/* spin_lock, calling wait() while it waits its turn (for work that must go on meanwhile). */
static inline void spin_lock_serving(spinlock_t *l, void (*wait)(void))
{
    uint16_t me = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != me) {
        wait();
        cpu_relax();
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
