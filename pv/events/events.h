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

/* ports.c: a port's state under the guest's ABI, 2-level or FIFO. set_pending and unmask: true
 * when v's upcall went pending (the caller kicks v if it is another CPU's). */
bool pv_port_set_pending(unsigned port, struct pv_vcpu *v);
bool pv_port_unmask(unsigned port, struct pv_vcpu *v);
bool pv_port_is_pending(unsigned port);
bool pv_port_is_masked(unsigned port);
void pv_port_quiet(unsigned port);      /* not pending: a closed port (its mask stays) */
extern bool pv_fifo_offered;            /* evtchn-fifo=on|off */
struct evtchn_init_control;
int pv_fifo_init_control(struct evtchn_init_control *ic);
int pv_fifo_expand_array(uint64_t gfn);
int pv_fifo_set_priority(unsigned port, unsigned prio);
void pv_fifo_stop(void);                /* back to 2-level (EVTCHNOP_reset, a restored domain) */

int pv_evtchn_hold_number(uint32_t *at);    /* hypercall/evtchn.c: a new local port's number (0: any) */
/* upcall.c: the guest's port follows an L0 port (its events arrive on the guest's port) */
int pv_evtchn_route_l0(unsigned port, uint32_t l0_port);

#endif
