/*
 * report.c: the guest vCPU's side of a CPU's state report (shim/traps.c prints one when L0 sends
 * the CPU an NMI: `xl trigger DOM nmi VCPU`, which the test bed does for a guest that stalls).
 * Everything a lost wakeup hides in: is the vCPU blocked, what does its vcpu_info say, which of
 * its ports are pending and unmasked, and are its timers queued.
 */
#include "domain.h"
#include "console.h"
#include "time.h"

static const char *const state_name[] = { "running", "runnable", "blocked", "offline" };

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
    /* ports pending and not masked, for this vCPU or any (the first few words) */
    for (unsigned w = 0; w < EV_NR_PORTS / 64; w++) {
        uint64_t p = s->evtchn_pending[w], m = s->evtchn_mask[w];
        if (p)
            printk(LOG_WARN, "  ports %u-%u: pending %#lx, of them unmasked %#lx\n", w * 64, w * 64 + 63,
                   (unsigned long)p, (unsigned long)(p & ~m));
    }
}
