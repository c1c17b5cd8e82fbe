/* timer.c: per-CPU sorted timer queues; the earliest deadline programs this CPU's LAPIC timer. */
#include "shim/apic.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/symbols.h"
#include "shim/time.h"
#include "shim/timer.h"
#include "shim/x86.h"

void timer_init(struct timer *t, timer_fn fn, void *arg)
{
    memset(t, 0, sizeof(*t));
    t->fn = fn;
    t->arg = arg;
}

/* now: a clock read the caller made, or 0 */
static void reprogram(struct timer_queue *q, uint64_t now)
{
    uint64_t want = q->head ? q->head->deadline : 0;

    if (want != q->programmed) {
        q->programmed = want;
        apic_timer_program(want, now);
    }
}

static void unlink(struct timer_queue *q, struct timer *t)
{
    for (struct timer **pp = &q->head; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    t->next = NULL;
    t->queued = false;
}

void timer_set(struct timer *t, uint64_t deadline)
{
    timer_set_seen(t, deadline, 0);
}

void timer_set_seen(struct timer *t, uint64_t deadline, uint64_t now)
{
    struct timer_queue *q = &this_cpu()->timers;
    uint64_t f = irq_save();

    if (t->queued)
        unlink(q, t);
    t->deadline = deadline ? deadline : 1;
    struct timer **pp = &q->head;
    while (*pp && (*pp)->deadline <= t->deadline)
        pp = &(*pp)->next;
    t->next = *pp;
    *pp = t;
    t->queued = true;
    reprogram(q, now);
    irq_restore(f);
}

void timer_cancel(struct timer *t)
{
    struct timer_queue *q = &this_cpu()->timers;
    uint64_t f = irq_save();

    if (t->queued)
        unlink(q, t);
    reprogram(q, 0);
    irq_restore(f);
}

void timer_interrupt(void)
{
    struct cpu *c = this_cpu();
    struct timer_queue *q = &c->timers;

    c->nr_timer_irqs++;
    q->programmed = 0;                  /* the one-shot has fired */
    /* one clock read for the lot and for setting the next (each read may be an L0 exit): a
     * deadline the callbacks' time carried past is set in the past below, and fires at once */
    uint64_t now = now_ns();
    for (;;) {
        struct timer *t = q->head;
        if (!t || t->deadline > now)
            break;
        q->head = t->next;
        t->next = NULL;
        t->queued = false;
        t->fn(t, t->arg);
    }
    reprogram(q, now);          /* late by the callbacks' time at most */
}

/* For a CPU's state report: what its queue holds and what the hardware was last set for. */
void timer_report(void)
{
    const struct cpu *c = this_cpu();
    const struct timer_queue *q = &c->timers;
    uint64_t now = now_ns();
    char sym[64];
    int n = 0;

    printk(LOG_WARN, "  timers: %lu interrupts; set for %s%ld us from now\n", c->nr_timer_irqs,
           q->programmed ? "" : "nothing, ", q->programmed ? (int64_t)(q->programmed - now) / 1000 : 0);
    for (const struct timer *t = q->head; t && n < 6; t = t->next, n++) {
        symbol_format(sym, sizeof(sym), (uint64_t)(uintptr_t)t->fn);
        printk(LOG_WARN, "    %ld us: %s\n", (int64_t)(t->deadline - now) / 1000, sym);
    }
}

void timer_cpu_init(void)
{
    this_cpu()->timers = (struct timer_queue){ NULL, 0 };
}
