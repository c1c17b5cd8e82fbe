/*
 * watchdog.c: SCHEDOP_watchdog, the domain's two watchdogs (public/sched.h; Xen's
 * domain_watchdog in common/sched/core.c, which Linux's xen_wdt drives). id 0 makes one that
 * fires timeout seconds from now and returns its id (1 or 2; -ENOSPC when both are in use); a
 * known id with a timeout moves its deadline (the kick), with 0 it stops and frees it; an
 * unknown id is -EINVAL. When one fires the domain ends with SHUTDOWN_watchdog, as xl's
 * on_watchdog then decides. The deadlines are the domain's; their one timer lives on vCPU 0's
 * CPU (the timers are per CPU), armed for the nearest, and another vCPU's change reaches it
 * through the kick that re-arms a vCPU's timers (pv_timers_changed).
 */
#include "pv/domain/domain.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/spinlock.h"
#include "shim/time.h"
#include "shim/xerrno.h"

#define NR_WATCHDOGS 2                  /* Xen's NR_DOMAIN_WATCHDOG_TIMERS */

static spinlock_t lock = SPINLOCK_INIT;
static bool in_use[NR_WATCHDOGS];
static uint64_t deadline[NR_WATCHDOGS];
static struct timer timer;              /* on vCPU 0's CPU */

static void fire(struct timer *t, void *arg)
{
    uint64_t f = spin_lock_irqsave(&lock), now = now_ns();
    int fired = -1;

    for (unsigned i = 0; i < NR_WATCHDOGS; i++)
        if (in_use[i] && deadline[i] <= now)
            fired = (int)i;
    spin_unlock_irqrestore(&lock, f);
    if (fired >= 0) {
        pr_info("the guest's watchdog %d fired\n", fired + 1);
        pv_shutdown(SHUTDOWN_watchdog);
    }
    pv_watchdog_rearm();                /* a kick moved the deadline meanwhile */
}

void pv_watchdog_rearm(void)
{
    uint64_t f = spin_lock_irqsave(&lock), next = 0;

    for (unsigned i = 0; i < NR_WATCHDOGS; i++)
        if (in_use[i] && (!next || deadline[i] < next))
            next = deadline[i];
    if (!timer.fn)
        timer_init(&timer, fire, NULL);
    if (next)
        timer_set(&timer, next);
    else
        timer_cancel(&timer);
    spin_unlock_irqrestore(&lock, f);
}

void pv_watchdog_reset(void)
{
    uint64_t f = spin_lock_irqsave(&lock);

    for (unsigned i = 0; i < NR_WATCHDOGS; i++)
        in_use[i] = false;
    spin_unlock_irqrestore(&lock, f);
    pv_timer_watchdog_changed();
}

long pv_sched_watchdog(uint64_t arg)
{
    struct sched_watchdog w;
    long rc = 0;

    if (copy_from_guest(&w, arg, sizeof(w)))
        return ERR(-XEN_EFAULT, "the sched_watchdog struct cannot be read");
    uint64_t f = spin_lock_irqsave(&lock), when = now_ns() + (uint64_t)w.timeout * 1000000000ull;
    if (w.id == 0) {
        unsigned i = 0;
        while (i < NR_WATCHDOGS && in_use[i])
            i++;
        if (i == NR_WATCHDOGS) {
            rc = ERR(-XEN_ENOSPC, "both watchdogs are in use");
        } else {
            in_use[i] = true;
            deadline[i] = when;
            rc = (long)i + 1;
        }
    } else if (w.id > NR_WATCHDOGS || !in_use[w.id - 1]) {
        rc = ERR(-XEN_EINVAL, "no such watchdog");
    } else if (w.timeout == 0) {
        in_use[w.id - 1] = false;
    } else {
        deadline[w.id - 1] = when;
    }
    spin_unlock_irqrestore(&lock, f);
    if (rc >= 0)
        pv_timer_watchdog_changed();
    return rc;
}
