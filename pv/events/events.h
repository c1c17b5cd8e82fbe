/* events.h: delivering the guest's events (upcall.c) and numbering its ports (hypercall/evtchn.c). */
#ifndef PV_EVENTS_EVENTS_H
#define PV_EVENTS_EVENTS_H

#include "shim/lib.h"

struct cpu_regs;
struct pv_vcpu;

/* upcall.c: pv_upcall_check runs on every return to the guest. */
void pv_upcall_check(struct cpu_regs *r);
void pv_evtchn_init(void);              /* the guest's table, with start_info's console and store ports */
void pv_evtchn_raise(unsigned port);    /* a port fires (any context) */
void pv_virq_raise(struct pv_vcpu *v, unsigned virq);
bool pv_events_pending(const struct pv_vcpu *v);   /* upcall pending (the guest's mask aside) */

int pv_evtchn_hold_number(uint32_t *at);    /* hypercall/evtchn.c: a new local port's number (0: any) */
/* upcall.c: the guest's port follows an L0 port (its events arrive on the guest's port) */
int pv_evtchn_route_l0(unsigned port, uint32_t l0_port);

#endif
