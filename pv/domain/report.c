/*
 * report.c: the guest vCPU's side of a CPU's state report (shim/traps.c prints one when L0 sends
 * the CPU an NMI: `xl trigger DOM nmi VCPU`, which the test bed does for a guest that stalls).
 * Everything a lost wakeup hides in: is the vCPU blocked, what does its vcpu_info say, which of
 * its ports are pending and unmasked, and are its timers queued.
 */
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "shim/console.h"
#include "shim/time.h"

static const char *const state_name[] = { "running", "runnable", "blocked", "offline" };
static const char *const port_kind[8] = { "free", "unbound", "interdomain, remote port", "virq", "ipi" };

void pv_vcpu_report(void)
{
    const struct pv_vcpu *v = pv_current();
    const struct shared_info *s = pv_dom.shared;
    uint64_t now = now_ns();

    if (!s || this_cpu()->id >= pv_dom.nr_vcpus) {
        printk(LOG_WARN, "  no guest vCPU on this CPU\n");
        return;
    }
    printk(LOG_WARN, "  vCPU%u: %s%s%s%s%s, runstate %s; upcall pending %u mask %u sel %#lx; nmi %s%s\n",
           v->id, v->started ? "started" : "not started", v->down ? ", down" : "",
           v->blocked ? ", blocked" : "", v->timers_changed ? ", timers changed" : "",
           v->event_callback ? "" : ", no callback", state_name[v->runstate.state & 3],
           v->vi->evtchn_upcall_pending, v->vi->evtchn_upcall_mask,
           (unsigned long)v->vi->evtchn_pending_sel, v->nmi_pending ? "pending" : "none",
           v->nmi_masked ? " (masked)" : "");
    printk(LOG_WARN, "  timers: singleshot %s%ld us, periodic %s%lu ms, poll %s\n",
           v->singleshot.queued ? "in " : "idle, last ", (int64_t)(v->singleshot.deadline - now) / 1000,
           v->periodic.queued ? "every " : "idle, period ", v->period_ns / 1000000,
           v->poll.queued ? "queued" : "idle");
    printk(LOG_WARN, "  wakeups: %lu kicks sent to it, %lu taken, %lu events raised on its CPU, "
           "%lu halts ended by the watch\n", v->kicks_sent, v->kicks_taken, v->raised_here, v->halts_rescued);
    /* the pending ports that notify this vCPU: what each is, and whether it is masked */
    for (unsigned port = 1; port < EV_NR_PORTS; port++) {
        const struct ev_port *e = ev_get(&pv_dom.ev, port);
        if (!e || e->vcpu != v->id || !pv_port_is_pending(port))
            continue;
        printk(LOG_WARN, "  port %u pending%s: %s %u\n", port, pv_port_is_masked(port) ? ", masked" : "",
               port_kind[e->state & 7],
               e->state == EV_VIRQ ? e->virq : e->state == EV_INTERDOMAIN ? e->remote_port : 0);
    }
}
