/* timer.h: per-CPU one-shot software timers over the LAPIC timer, in L0-clock nanoseconds. */
#ifndef SHIM_TIMER_H
#define SHIM_TIMER_H

#include "shim/lib.h"

struct timer;
typedef void (*timer_fn)(struct timer *t, void *arg);

struct timer {
    struct timer *next;
    uint64_t deadline;                  /* now_ns() value */
    timer_fn fn;
    void *arg;
    bool queued;
};

struct timer_queue {
    struct timer *head;                 /* sorted by deadline */
    uint64_t programmed;                /* deadline the hardware is set for, 0 = none */
};

void timer_init(struct timer *t, timer_fn fn, void *arg);
/* Arm on the calling CPU (re-arming moves it). */
void timer_set(struct timer *t, uint64_t deadline);
/* The same, with now: the clock as the caller has just read it, so that setting the hardware
 * need not read it again (an L0 that traps RDTSC exits on each read); 0 when there is none. */
void timer_set_seen(struct timer *t, uint64_t deadline, uint64_t now);
void timer_cancel(struct timer *t);
void timer_interrupt(void);             /* the LAPIC timer vector's handler */
void timer_cpu_init(void);
void timer_report(void);                /* printk this CPU's queue (a state report) */

#endif
