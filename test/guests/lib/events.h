/*
 * events.h: receiving Xen events in a test guest (2-level ABI). events_init() registers an event
 * callback (evtentry.S) that saves every register, scans the pending bitmaps as Linux does
 * (selector word, then pending & ~mask, clearing each pending bit it takes), counts each port in
 * events_seen[], and returns with HYPERVISOR_iret. Events stay masked (vcpu_info's
 * evtchn_upcall_mask) until the test clears the mask with events_enable().
 *
 * Several vCPUs (the smp test): each has its own callback entry (events_callback(vcpu), which goes
 * into its VCPUOP_initialise context) and its own vcpu_info. The pending bitmap is shared, so, as
 * Linux does, a vCPU's callback takes only the ports bound to it (evtchn_bind_ipi/virq record
 * whose a port is; every other port is vCPU 0's) and leaves the others to their owner's upcall.
 */
#ifndef GUEST_EVENTS_H
#define GUEST_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include "xen-abi.h"

#define EVENTS_PORTS 4096
#define EVENTS_VCPUS 2

extern volatile uint32_t events_seen[EVENTS_PORTS];    /* taken by its owner's callback */
extern volatile unsigned long events_upcalls;          /* callback entries, all vCPUs */
extern volatile unsigned long events_upcalls_on[EVENTS_VCPUS];
extern volatile unsigned long events_sel_at_entry;     /* evtchn_pending_sel on the last entry */
extern struct vcpu_info *events_vcpu;                  /* the vcpu_info in use (vCPU 0) */

long events_init(void);                 /* CALLBACKOP_register(event); 0 or the error */
/* events_init, then VIRQ_TIMER bound on vCPU 0 (events still masked): its port; any error ends
 * the test */
evtchn_port_t events_init_timer(void);
void events_enable(void);               /* clear the mask, then let anything pending in */
void events_disable(void);

/* The same for any vCPU; events_enable_on must run on that vCPU (its trip to Xen is its own). */
unsigned long events_callback(unsigned vcpu);  /* its callback entry */
struct vcpu_info *events_vcpu_info(unsigned vcpu);
void events_enable_on(unsigned vcpu);
void events_disable_on(unsigned vcpu);

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

/* The pvclock of vCPU 0 (its vcpu_info time), in ns; pvclock_ns_on: of another vCPU, which
 * only that vCPU may read (its tsc_timestamp is taken on its own CPU). */
uint64_t pvclock_ns(void);
/* The same before events_init(): vCPU 0's time from shared_info (start.c maps it first). */
uint64_t pvclock_ns_shared(void);
uint64_t pvclock_ns_on(unsigned vcpu);

#endif
