/*
 * events.h: receiving Xen events in a test guest (2-level ABI). events_init() registers an event
 * callback (evtentry.S) that saves every register, scans the pending bitmaps as Linux does
 * (selector word, then pending & ~mask, clearing each pending bit it takes), counts each port in
 * events_seen[], and returns with HYPERVISOR_iret. Events stay masked (vcpu_info's
 * evtchn_upcall_mask) until the test clears the mask with events_enable().
 */
#ifndef GUEST_EVENTS_H
#define GUEST_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include "xen-abi.h"

#define EVENTS_PORTS 4096

extern volatile uint32_t events_seen[EVENTS_PORTS];
extern volatile unsigned long events_upcalls;          /* callback entries */
extern volatile unsigned long events_sel_at_entry;     /* evtchn_pending_sel on the last entry */
extern struct vcpu_info *events_vcpu;                  /* the vcpu_info in use (vCPU 0) */

long events_init(void);                 /* CALLBACKOP_register(event); 0 or the error */
void events_enable(void);               /* clear the mask, then let anything pending in */
void events_disable(void);

bool port_pending(unsigned port);
bool port_masked(unsigned port);
void port_mask(unsigned port);

/* Event-channel, vcpu_op and timer wrappers: the hypercall's result. */
long evtchn_bind_ipi(unsigned vcpu, evtchn_port_t *port);
long evtchn_bind_virq(unsigned virq, unsigned vcpu, evtchn_port_t *port);
long evtchn_send(evtchn_port_t port);
long evtchn_unmask(evtchn_port_t port);
long evtchn_close(evtchn_port_t port);
long evtchn_status(evtchn_port_t port, struct evtchn_status *st);
long vcpu_op(int cmd, unsigned vcpu, void *arg);
long set_timer_op(uint64_t deadline);
long sched_block(void);

/* The pvclock of the vCPU (vcpu_info time), in ns. */
uint64_t pvclock_ns(void);

#endif
