/* vtimer.h: the guest's timers on the shim's per-CPU timers, its runstate, its wallclock. */
#ifndef PV_EVENTS_VTIMER_H
#define PV_EVENTS_VTIMER_H

#include "shim/lib.h"
#include "xen-abi.h"

struct pv_vcpu;

void pv_vcpu_init(struct pv_vcpu *v, unsigned id);
void pv_timer_singleshot(struct pv_vcpu *v, uint64_t deadline, uint64_t now);  /* deadline 0: stop; now: timer_set_seen */
void pv_timer_periodic(struct pv_vcpu *v, uint64_t period_ns);     /* 0: stop */
void pv_timer_virq_bound(struct pv_vcpu *v);    /* VIRQ_TIMER was bound: start the periodic tick */
void pv_timers_changed(struct pv_vcpu *v);      /* apply timer changes made for v (any CPU) */
void pv_timer_watchdog_changed(void);   /* a watchdog deadline moved: vCPU 0's CPU re-arms */
void pv_timer_periodic_pause(struct pv_vcpu *v);    /* v blocks: its tick stops */
void pv_timer_periodic_resume(struct pv_vcpu *v);   /* v runs again: one catch-up tick at most */
void pv_runstate_set(struct pv_vcpu *v, int state);
void pv_runstate_get(const struct pv_vcpu *v, struct vcpu_runstate_info *out);
void pv_runstate_publish(struct pv_vcpu *v, const struct vcpu_runstate_info *ri);  /* to its area */
struct vcpu_runstate_info_x86_32;
void pv_runstate_compat(const struct vcpu_runstate_info *ri, struct vcpu_runstate_info_x86_32 *c);
void pv_wallclock_init(void);

#endif
