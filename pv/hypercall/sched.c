/*
 * sched.c: __HYPERVISOR_sched_op. The guest's vCPU owns its shim CPU, so yield only refreshes
 * the clock and block/poll halt the CPU (sti; hlt) until an interrupt (a timer, an L0 event, a
 * kick from another vCPU's CPU) makes what they wait for true, an NMI is sent to the vCPU (Xen's
 * vcpu_kick unblocks it), or the vCPU is taken down. Block enables event delivery first, as Xen's
 * does. Shutdown passes its reason to L0 unchanged.
 */
#include "l0/l0.h"
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/balloon.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/vcpu.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/panic.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define POLL_MAX_PORTS 128              /* Xen's limit */

static const char *reason_name(unsigned r)
{
    static const char *const names[] = { "poweroff", "reboot", "suspend", "crash", "watchdog", "soft_reset" };
    return r < ARRAY_SIZE(names) ? names[r] : "unknown";
}

void pv_shutdown(unsigned reason)
{
    pv_console_flush();
    pr_info("guest shut down: %s (%u)\n", reason_name(reason), reason);
    pv_hypercall_report();
    pr_info("guest events: %lu upcalls, %lu bounces, %lu faults of our iret to it; pvclock kept from going "
            "back %lu times, %lu us ahead at most; %lu halts ended by the watch, not a wakeup\n", pv_dom.nr_upcalls,
            pv_dom.nr_bounces, pv_dom.nr_iret_faults, pv_dom.clock_held_back, pv_dom.clock_ahead_max / 1000,
            pv_dom.halts_rescued);
    flush_report();
    balloon_report();
    shim_shutdown(reason);
}

/*
 * Halt until done(v, arg) holds; interrupts (which may make it true) run in the hlt. Another
 * CPU that makes it true kicks this one (upcall.c), but a kick has been seen to go missing under
 * the test bed's nested L0 (a vCPU blocked for 20 minutes with its upcall pending and unmasked,
 * the other vCPUs waiting on it), so the halt also looks again every HALT_WATCH_NS: a lost
 * wakeup costs that long, not the guest, and is counted (halts_rescued, the shutdown line).
 */
static void halt_until(struct pv_vcpu *v, bool (*done)(struct pv_vcpu *, const void *), const void *arg)
{
    uint64_t woken = v->kicks_taken + v->raised_here;  /* what would explain an ending */
    uint64_t next_watch = 0;

    pv_runstate_set(v, RUNSTATE_blocked);
    __atomic_store_n(&v->blocked, true, __ATOMIC_SEQ_CST);     /* before the checks: see upcall.c */
    pv_timer_periodic_pause(v);         /* as Xen: no tick while blocked (vtimer.c) */
    for (;;) {
        cli();
        if (done(v, arg) || READ_ONCE(v->down) || (READ_ONCE(v->nmi_pending) && !v->nmi_masked))
            break;
        /* The watch is set anew before every halt, not kept when it looks armed: an 8-vCPU
         * Linux once sat halted here for minutes with an event pending, its kick lost and no
         * timer in its CPU's queue (how the watch went missing is not understood yet). The
         * first from the clock read that marked the vCPU blocked (a read may be an L0 exit),
         * a later one from a new read. */
        uint64_t now = next_watch ? now_ns() : v->runstate.state_entry_time;
        next_watch = now + HALT_WATCH_NS;
        timer_set_seen(&v->halt_watch, next_watch, now);
        sti_hlt();                      /* sti's shadow: no wakeup is lost between check and hlt */
    }
    /* done, with nothing that delivers events to this vCPU in between: the watch found it */
    if (next_watch && !v->halt_watch.queued && v->kicks_taken + v->raised_here == woken && done(v, arg)) {
        v->halts_rescued++;
        /* whether the kick was sent and never taken (lost on the way) or never sent at all */
        if (__atomic_fetch_add(&pv_dom.halts_rescued, 1, __ATOMIC_RELAXED) < 8)
            pr_warn("vCPU%u: a wakeup never came, the halt's watch found it (kicks so far: %lu sent to it, %lu taken; kicks close together arrive as one)\n",
                    v->id, v->kicks_sent, v->kicks_taken);
    }
    timer_cancel(&v->halt_watch);
    __atomic_store_n(&v->blocked, false, __ATOMIC_RELEASE);
    pv_timer_periodic_resume(v);        /* with interrupts off: a tick it raises is seen below */
    sti();
    pv_runstate_set(v, RUNSTATE_running);
    pv_time_update();
}

static bool event_pending(struct pv_vcpu *v, const void *arg)
{
    return pv_events_pending(v);
}

struct poll_set {
    evtchn_port_t ports[POLL_MAX_PORTS];
    unsigned n;
    uint64_t timeout;
    bool upcall_was_pending;
};

/* Xen's poll ends on a polled port pending (masked or not), an event to deliver now, a new
 * upcall (its kick wakes the vCPU even with events masked), or the timeout. */
static bool poll_done(struct pv_vcpu *v, const void *arg)
{
    const struct poll_set *p = arg;
    bool upcall = pv_events_pending(v);

    for (unsigned i = 0; i < p->n; i++)
        if (pv_port_is_pending(p->ports[i]))
            return true;
    if (upcall && (!READ_ONCE(v->vi->evtchn_upcall_mask) || !p->upcall_was_pending))
        return true;
    return p->timeout && now_ns() >= p->timeout;
}

/* The guest's clock now, read off its own record (what it will see on return). */
static uint64_t guest_clock(const struct pv_vcpu *v)
{
    const struct vcpu_time_info *t = &v->vi->time;
    const struct clock_line l = { t->tsc_timestamp, t->system_time, t->tsc_to_system_mul, t->tsc_shift };

    return clock_line_ns(&l, rdtsc());
}

/* A poll that ends before its timeout by the guest's clock must have had a cause: a port, an
 * upcall, an NMI or a down. One that had none is the shim's clock and the guest's disagreeing
 * (a CI run once saw a 20 ms poll end after 2 ms); say so with the figures, the first few times. */
static void poll_check_end(struct pv_vcpu *v, const struct poll_set *set)
{
    static unsigned told;

    if (!set->timeout)
        return;
    uint64_t g = guest_clock(v), now = now_ns();
    if (g >= set->timeout)
        return;
    bool port = false;
    for (unsigned i = 0; i < set->n; i++)
        port |= pv_port_is_pending(set->ports[i]);
    bool upcall = pv_events_pending(v) && (!READ_ONCE(v->vi->evtchn_upcall_mask) || !set->upcall_was_pending);
    if (port || upcall || READ_ONCE(v->nmi_pending) || READ_ONCE(v->down))
        return;
    if (__atomic_fetch_add(&told, 1, __ATOMIC_RELAXED) < 4)
        pr_warn("vCPU%u: a poll ended %lu us before its timeout by the guest's clock, with no cause: "
                "the shim's clock %ld us past the timeout, the guest's %ld us ahead of the shim's "
                "(held %lu us), record version %u\n", v->id, (set->timeout - g) / 1000,
                (int64_t)(now - set->timeout) / 1000, (int64_t)(g - now) / 1000, v->clock_ahead / 1000,
                v->vi->time.version);
}

/* SCHEDOP_poll, its argument read (a 32-bit guest's translated: compat/). */
long pv_sched_poll(const struct sched_poll *in)
{
    struct pv_vcpu *v = pv_current();
    const struct sched_poll sp = *in;
    static struct poll_set sets[PV_MAX_VCPUS];  /* each vCPU polls for its own ports and timeout */
    struct poll_set *set = &sets[v->id];

    if (sp.nr_ports > POLL_MAX_PORTS)
        return ERR(-XEN_EINVAL, "sp.nr_ports > POLL_MAX_PORTS");
    if (!guest_range_ok((uint64_t)sp.ports.p, 1))
        return ERR(-XEN_EFAULT, "as Xen: the list must start at a guest address, even empty");
    if (copy_from_guest(set->ports, (uint64_t)sp.ports.p, sp.nr_ports * sizeof(evtchn_port_t)))
        return ERR(-XEN_EFAULT, "the ports cannot be read");
    set->n = sp.nr_ports;
    set->timeout = sp.timeout;
    set->upcall_was_pending = pv_events_pending(v);
    for (unsigned i = 0; i < set->n; i++)
        if (set->ports[i] >= EV_NR_PORTS)
            return ERR(-XEN_EINVAL, "set->ports[i] >= EV_NR_PORTS");
    if (set->timeout)
        timer_set(&v->poll, set->timeout);
    halt_until(v, poll_done, set);
    timer_cancel(&v->poll);
    poll_check_end(v, set);
    return 0;
}

/* SCHEDOP_shutdown's reason, from sched_op or sched_op_compat: returns only if it is refused,
 * or for a suspend (srec: the guest's start_info frame), when the guest runs again. */
long pv_sched_shutdown(unsigned reason, uint64_t srec)
{
    if (reason > SHUTDOWN_MAX)
        return ERR(-XEN_EINVAL, "reason > SHUTDOWN_MAX");
    if (reason == SHUTDOWN_suspend)
        return pv_suspend(pv_current(), srec);
    pv_shutdown(reason);
}

long hc_sched_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct pv_vcpu *v = pv_current();
    struct sched_shutdown s;

    switch (cmd) {
    case SCHEDOP_yield:
        pv_time_update();
        return 0;
    case SCHEDOP_block:
        WRITE_ONCE(v->vi->evtchn_upcall_mask, 0);
        halt_until(v, event_pending, NULL);
        return 0;                       /* pv_syscall's return delivers the upcall */
    case SCHEDOP_poll: {
        struct sched_poll sp;
        if (copy_from_guest(&sp, arg, sizeof(sp)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&sp, arg, sizeof(sp))");
        return pv_sched_poll(&sp);
    }
    case SCHEDOP_shutdown:
        if (copy_from_guest(&s, arg, sizeof(s)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&s, arg, sizeof(s))");
        return pv_sched_shutdown(s.reason, a3);
    case SCHEDOP_shutdown_code:
        if (copy_from_guest(&s, arg, sizeof(s)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&s, arg, sizeof(s))");
        pv_dom.shutdown_code = s.reason;        /* the reason a later crash reports (kexec) */
        return 0;
    case SCHEDOP_remote_shutdown: {
        /* as Xen for a domU: a domain it cannot find is -ESRCH (there is none but the guest
         * here, and Xen does not take DOMID_SELF for it), the guest itself -EPERM (XSM) */
        struct sched_remote_shutdown rs;
        if (copy_from_guest(&rs, arg, sizeof(rs)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&rs, arg, sizeof(rs))");
        return ERR(l0->domid && rs.domain_id == l0->domid() ? -XEN_EPERM : -XEN_ESRCH, "remote_shutdown: not for a domU");
    }
    case SCHEDOP_watchdog:
        return pv_sched_watchdog(arg);
    case SCHEDOP_pin_override:
        return ERR(-XEN_EPERM);              /* the hardware domain's */
    default:
        return ERR(-XEN_ENOSYS);
    }
}
