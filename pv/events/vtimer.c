/*
 * vtimer.c: the guest's time. Its timers (the singleshot one of VCPUOP_set_singleshot_timer and
 * set_timer_op, the periodic one) run on the shim's per-CPU timers and raise VIRQ_TIMER on the
 * vCPU; the periodic tick is 10 ms from the start, as Xen gives every PV vCPU, but only armed
 * once VIRQ_TIMER is bound (a tick nobody listens to would cost an L0 exit for nothing), and, as
 * Xen runs it, only while the vCPU runs: blocked, it sleeps through its ticks. Also the
 * runstate (running/blocked, with the time spent in each) and the wallclock in shared_info.
 */
#include "l0/l0.h"
#include "compat/layout.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/vcpu.h"
#include "shim/time.h"
#include "shim/x86.h"

#define MS 1000000ull

static void runstate_refresh(struct pv_vcpu *v);

static void singleshot_fn(struct timer *t, void *arg)
{
    runstate_refresh(arg);
    pv_virq_raise(arg, VIRQ_TIMER);
}

/* Xen's catch-up rule: one event per expiry, never a burst after a long delay. */
static void periodic_fn(struct timer *t, void *arg)
{
    struct pv_vcpu *v = arg;
    uint64_t now = now_ns();

    if (!v->period_ns || !ev_virq_port(&pv_dom.ev, v->id, VIRQ_TIMER))
        return;                         /* re-armed when VIRQ_TIMER is bound again */
    runstate_refresh(v);
    pv_virq_raise(v, VIRQ_TIMER);
    v->periodic_last = now;
    timer_set(&v->periodic, now + v->period_ns);
}

static void poll_fn(struct timer *t, void *arg)
{
    /* nothing: the interrupt itself ends the hlt (SCHEDOP_poll's, or a halt's watch), and the
     * halt loop looks again */
}

void pv_vcpu_init(struct pv_vcpu *v, unsigned id)
{
    memset(v, 0, sizeof(*v));
    v->id = id;
    v->vi = &pv_dom.shared->vcpu_info[id];
    v->vi->evtchn_upcall_mask = 1;      /* events masked until the guest is ready, as Xen starts it */
    v->period_ns = PV_DEFAULT_PERIOD_NS;
    timer_init(&v->singleshot, singleshot_fn, v);
    timer_init(&v->periodic, periodic_fn, v);
    timer_init(&v->poll, poll_fn, v);
    timer_init(&v->halt_watch, poll_fn, v);
    v->runstate.state = id ? RUNSTATE_offline : RUNSTATE_running;    /* the others start down, as in Xen */
    v->runstate.state_entry_time = now_ns();
    v->stolen_seen = l0->stolen_ns ? l0->stolen_ns(id) : 0;
}

void pv_timer_singleshot(struct pv_vcpu *v, uint64_t deadline, uint64_t now)
{
    if (deadline)
        timer_set_seen(&v->singleshot, deadline, now);  /* a past deadline fires at once */
    else
        timer_cancel(&v->singleshot);
}

/* The periodic timer as period_ns and the VIRQ binding say: armed from now, or stopped. Only
 * on the vCPU's own CPU, where its timers live. */
static void periodic_rearm(struct pv_vcpu *v)
{
    if (!v->period_ns || !ev_virq_port(&pv_dom.ev, v->id, VIRQ_TIMER)) {
        timer_cancel(&v->periodic);
        return;
    }
    v->periodic_last = now_ns();
    if (!READ_ONCE(v->blocked))         /* blocked: pv_timer_periodic_resume arms it */
        timer_set(&v->periodic, v->periodic_last + v->period_ns);
}

/* Xen's tick runs only while its vCPU runs (the scheduler stops it when the vCPU blocks, and
 * vcpu_periodic_timer_work starts it again): a blocked vCPU is not woken by it, and when it runs
 * again it gets one tick if a period has passed since the last (a catch-up, never a burst), and
 * the tick goes on from then. A guest that never stops its tick (Mini-OS, small kernels; Linux
 * stops it) then idles without a wakeup every 10 ms. On the vCPU's own CPU. */
void pv_timer_periodic_pause(struct pv_vcpu *v)
{
    timer_cancel(&v->periodic);
}

void pv_timer_periodic_resume(struct pv_vcpu *v)
{
    if (!v->period_ns || !ev_virq_port(&pv_dom.ev, v->id, VIRQ_TIMER))
        return;
    uint64_t now = now_ns(), next = v->periodic_last + v->period_ns;
    if (now >= next) {
        runstate_refresh(v);
        pv_virq_raise(v, VIRQ_TIMER);
        v->periodic_last = now;
        next = now + v->period_ns;
    }
    timer_set(&v->periodic, next);
}

/* Made for another vCPU: its CPU re-arms (vcpu.c's kick, or when it starts). */
static void changed_remotely(struct pv_vcpu *v)
{
    __atomic_store_n(&v->timers_changed, true, __ATOMIC_RELEASE);
    pv_vcpu_kick(v);
}

void pv_timers_changed(struct pv_vcpu *v)
{
    periodic_rearm(v);
    if (v->id == 0)
        pv_watchdog_rearm();            /* the domain's watchdog timer lives on vCPU 0's CPU */
}

void pv_timer_watchdog_changed(void)
{
    struct pv_vcpu *v0 = &pv_dom.vcpu[0];

    if (pv_current() == v0)
        pv_watchdog_rearm();
    else
        changed_remotely(v0);
}

void pv_timer_periodic(struct pv_vcpu *v, uint64_t period_ns)
{
    v->period_ns = period_ns;
    if (v != pv_current())
        changed_remotely(v);
    else
        periodic_rearm(v);
}

void pv_timer_virq_bound(struct pv_vcpu *v)
{
    if (v != pv_current())
        changed_remotely(v);
    else if (v->period_ns && !v->periodic.queued)
        periodic_rearm(v);
}

/*
 * Close the current state's span at now. The time L0 kept the vCPU's CPU off a pCPU meanwhile
 * (the L0's steal) goes to RUNSTATE_runnable, as Xen books a vCPU waiting for a pCPU: that is
 * what Linux shows as steal time (with l0-steal=on; else stolen_ns stays 0). The stock shim's
 * runstate counts only its own scheduling, so its guest does not see L0's steal
 * (test/guests/steal).
 */
static void runstate_close(struct vcpu_runstate_info *rs, uint64_t *stolen_seen, unsigned id, uint64_t now)
{
    uint64_t span = now > rs->state_entry_time ? now - rs->state_entry_time : 0;
    uint64_t stolen = l0->stolen_ns ? l0->stolen_ns(id) : 0;
    uint64_t s = stolen - *stolen_seen;

    *stolen_seen = stolen;
    if (rs->state == RUNSTATE_offline || s > span)
        s = rs->state == RUNSTATE_offline ? 0 : span;   /* never more than the time that passed */
    rs->time[rs->state] += span - s;
    rs->time[RUNSTATE_runnable] += s;
    rs->state_entry_time = now;
}

void pv_runstate_get(const struct pv_vcpu *v, struct vcpu_runstate_info *out)
{
    uint64_t seen = v->stolen_seen;

    *out = v->runstate;
    runstate_close(out, &seen, v->id, now_ns());
    out->state_entry_time = v->runstate.state_entry_time;   /* as Xen: times up to now, entry as it was */
}

/* The guest's copy. With VMASST_TYPE_runstate_update_flag, XEN_RUNSTATE_UPDATE in
 * state_entry_time marks it as being rewritten, so a reader on another vCPU retries. */
/* A 32-bit guest's vcpu_runstate_info: packed to 4 bytes (entry time at 4, the times at 12). */
void pv_runstate_compat(const struct vcpu_runstate_info *ri, struct vcpu_runstate_info_x86_32 *c)
{
    c->state = ri->state;
    c->state_entry_time = ri->state_entry_time;
    memcpy(c->time, ri->time, sizeof(c->time));
}

void pv_runstate_publish(struct pv_vcpu *v, const struct vcpu_runstate_info *ri)
{
    uint64_t at = v->runstate_area + (pv_dom.compat ? 4 : offsetof(struct vcpu_runstate_info, state_entry_time));
    bool flag = pv_dom.vm_assist & (1ull << VMASST_TYPE_runstate_update_flag);
    uint64_t t = ri->state_entry_time | XEN_RUNSTATE_UPDATE;
    struct vcpu_runstate_info_x86_32 c;

    if (!v->runstate_area)
        return;
    /* best effort, as Xen: a bad address is the guest's problem */
    if (flag && copy_to_guest(at, &t, sizeof(t)))
        return;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (pv_dom.compat) {
        pv_runstate_compat(ri, &c);
        copy_to_guest(v->runstate_area, &c, sizeof(c));
    } else {
        copy_to_guest(v->runstate_area, ri, sizeof(*ri));
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (flag)
        copy_to_guest(at, &ri->state_entry_time, sizeof(t));
}

void pv_runstate_set(struct pv_vcpu *v, int state)
{
    uint64_t f = irq_save();            /* the timer's refresh (below) may come in between */
    uint64_t now = now_ns();

    runstate_close(&v->runstate, &v->stolen_seen, v->id, now);
    v->runstate.state = state;
    pv_runstate_publish(v, &v->runstate);
    irq_restore(f);
}

/* With l0-steal=on, a running vCPU's runstate also moves on at its timer ticks, so that its
 * steal time shows while it computes (Xen rewrites it at every context switch). Without, there
 * is nothing new to say between transitions. On the vCPU's own CPU. */
static void runstate_refresh(struct pv_vcpu *v)
{
    if (l0_steal && v->runstate.state == RUNSTATE_running && v->runstate_area)
        pv_runstate_set(v, RUNSTATE_running);
}

void pv_wallclock_init(void)
{
    struct shared_info *s = pv_dom.shared;
    uint64_t base = l0->wallclock_base ? l0->wallclock_base() : 0;
    uint64_t sec = base / 1000000000ull;

    if (pv_dom.compat) {                /* a 32-bit guest's: wc_sec_hi is in its arch part */
        struct shared_info_x86_32 *c = (struct shared_info_x86_32 *)s;
        __atomic_store_n(&c->wc_version, c->wc_version + 1, __ATOMIC_SEQ_CST);
        c->wc_sec = (uint32_t)sec;
        c->arch.wc_sec_hi = (uint32_t)(sec >> 32);
        c->wc_nsec = (uint32_t)(base % 1000000000ull);
        __atomic_store_n(&c->wc_version, c->wc_version + 1, __ATOMIC_SEQ_CST);
        return;
    }
    __atomic_store_n(&s->wc_version, s->wc_version + 1, __ATOMIC_SEQ_CST);
    s->wc_sec = (uint32_t)sec;
    s->wc_sec_hi = (uint32_t)(sec >> 32);
    s->wc_nsec = (uint32_t)(base % 1000000000ull);
    __atomic_store_n(&s->wc_version, s->wc_version + 1, __ATOMIC_SEQ_CST);
}
