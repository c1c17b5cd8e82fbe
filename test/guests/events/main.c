/*
 * events: event channels and upcalls, the 2-level ABI (public/event_channel.h, xen.h's
 * shared_info and vcpu_info).
 *
 * A PV kernel gets its interrupts as events: a port that fires sets its bit in
 * shared_info.evtchn_pending; unless the port's evtchn_mask bit is set, the hypervisor also sets
 * the port's word in vcpu_info.evtchn_pending_sel and evtchn_upcall_pending, and when
 * vcpu_info.evtchn_upcall_mask is clear it enters the callback registered with
 * CALLBACKOP_register(CALLBACKTYPE_event) on a bounce frame, events masked; the kernel's
 * HYPERVISOR_iret unmasks them. EVTCHNOP_unmask of a pending port must deliver it then (Linux
 * relies on that to not lose an event it masked). Linux binds VIRQ_TIMER for its clock events,
 * IPIs for its cross-CPU calls, and uses close and status.
 *
 * Method: register the callback, stop the default 100 Hz tick, then
 *  1. bind an IPI, send it with events masked: pending, selector and upcall_pending set, no
 *     upcall; unmask events: an upcall that sees the selector and takes the port once (other
 *     ports may come too: Xen's console backend answers the console port);
 *  2. send with events on: delivered on the way back from the send itself;
 *  3. mask the port, send: pending only, nothing delivered; EVTCHNOP_unmask: delivered;
 *  4. bind VIRQ_TIMER (twice: -EEXIST), a 5 ms singleshot timer, SCHEDOP_block: the timer port
 *     is delivered once;
 *  5. status of each port (ipi, virq), close, status closed, close again and send on it -EINVAL,
 *     an IPI for a vCPU we do not have -ENOENT, a port beyond the 2-level range -EINVAL, a VIRQ
 *     number out of range -EINVAL; vcpu_op is_up for vCPU 0 (1) and 1 (-ENOENT), runstate running.
 */
#include "guest.h"
#include "events.h"

const char test_title[] = "events: bind_ipi/send/unmask upcalls, VIRQ_TIMER, close and status";

static unsigned long upcalls_now(void)
{
	return __atomic_load_n(&events_upcalls, __ATOMIC_SEQ_CST);
}

void test_main(void)
{
	struct vcpu_info *vi = &shared_info->vcpu_info[0];
	struct evtchn_status st;
	evtchn_port_t p = 0, t = 0, t2 = 0;
	long rc;

	check(vi->evtchn_upcall_mask == 1, "events start masked (upcall_mask %u)", vi->evtchn_upcall_mask);
	rc = events_init();
	if (!check(rc == 0, "CALLBACKOP_register(event): %ld %s", rc, errno_name(rc)))
		test_fail("no event callback");
	struct callback_unregister un = { .type = CALLBACKTYPE_event };
	rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_unregister, &un, 0);
	check(rc == -XEN_EINVAL, "the event callback cannot be unregistered: %ld %s", rc, errno_name(rc));
	rc = vcpu_op(VCPUOP_stop_periodic_timer, 0, NULL);
	check(rc == 0, "VCPUOP_stop_periodic_timer: %ld %s", rc, errno_name(rc));

	/* 1. IPI, events masked */
	rc = evtchn_bind_ipi(0, &p);
	if (!check(rc == 0 && p > 0 && p < EVENTS_PORTS, "bind_ipi(vcpu 0): %ld %s, port %u", rc, errno_name(rc), p))
		test_fail("no IPI port");
	rc = evtchn_status(p, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_ipi && st.vcpu == 0, "status(ipi port): %ld, status %u vcpu %u",
	      rc, st.status, st.vcpu);
	rc = evtchn_send(p);
	check(rc == 0, "send(ipi) with events masked: %ld %s", rc, errno_name(rc));
	check(port_pending(p), "  its pending bit is set");
	check((vi->evtchn_pending_sel >> (p / 64)) & 1, "  its selector bit is set (sel %#lx)", vi->evtchn_pending_sel);
	check(vi->evtchn_upcall_pending == 1, "  evtchn_upcall_pending is set");
	check(upcalls_now() == 0, "  no upcall while masked (%lu)", upcalls_now());
	events_enable();
	/* the console backend may send events of its own (Xen's does): count ports, not upcalls */
	check(upcalls_now() >= 1, "unmasking events delivers an upcall (%lu)", upcalls_now());
	check(events_seen[p] == 1, "  it took the IPI port (%u)", events_seen[p]);
	check((events_sel_at_entry >> (p / 64)) & 1, "  the selector on entry had the port's word (%#lx)",
	      events_sel_at_entry);
	check(!port_pending(p) && vi->evtchn_upcall_pending == 0, "  pending bit and upcall flag consumed");
	check(vi->evtchn_upcall_mask == 0, "  events are on again after its iret");

	/* 2. events on: delivered on the way back from the send */
	rc = evtchn_send(p);
	check(rc == 0 && events_seen[p] == 2, "send(ipi) with events on is delivered at once: %ld, seen %u",
	      rc, events_seen[p]);

	/* 3. a masked port waits for EVTCHNOP_unmask */
	port_mask(p);
	rc = evtchn_send(p);
	check(rc == 0 && port_pending(p), "send(masked port): %ld, pending %d", rc, port_pending(p));
	check(events_seen[p] == 2, "  not delivered (seen %u)", events_seen[p]);
	check(!((vi->evtchn_pending_sel >> (p / 64)) & 1), "  no selector bit for a masked port");
	rc = evtchn_unmask(p);
	check(rc == 0 && !port_masked(p), "EVTCHNOP_unmask: %ld %s", rc, errno_name(rc));
	check(events_seen[p] == 3, "  the pending port is delivered on unmask (seen %u)", events_seen[p]);

	/* 4. VIRQ_TIMER from a singleshot timer, waiting in SCHEDOP_block */
	rc = evtchn_bind_virq(VIRQ_TIMER, 0, &t);
	if (!check(rc == 0 && t > 0 && t < EVENTS_PORTS && t != p, "bind_virq(VIRQ_TIMER): %ld %s, port %u", rc,
		   errno_name(rc), t))
		test_fail("no timer port");
	rc = evtchn_bind_virq(VIRQ_TIMER, 0, &t2);
	check(rc == -XEN_EEXIST, "bind_virq(VIRQ_TIMER) again: %ld %s", rc, errno_name(rc));
	rc = evtchn_status(t, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_virq && st.u.virq == VIRQ_TIMER, "status(timer port): %ld, status %u virq %u",
	      rc, st.status, st.u.virq);
	struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = pvclock_ns() + 5000000, .flags = 0 };
	rc = vcpu_op(VCPUOP_set_singleshot_timer, 0, &ss);
	check(rc == 0, "set_singleshot_timer(+5 ms): %ld %s", rc, errno_name(rc));
	for (unsigned i = 0; i < 1000 && !events_seen[t]; i++)
		sched_block();
	check(events_seen[t] == 1, "  VIRQ_TIMER delivered once (%u)", events_seen[t]);
	check(events_seen[p] == 3, "  and nothing on the IPI port (%u)", events_seen[p]);

	/* 5. close and status */
	rc = evtchn_close(p);
	check(rc == 0, "close(ipi port): %ld %s", rc, errno_name(rc));
	rc = evtchn_status(p, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_closed, "  status: %ld, status %u (closed %u)", rc, st.status,
	      EVTCHNSTAT_closed);
	rc = evtchn_close(p);
	check(rc == -XEN_EINVAL, "  closing it again: %ld %s", rc, errno_name(rc));
	rc = evtchn_send(p);
	check(rc == -XEN_EINVAL, "  sending on it: %ld %s", rc, errno_name(rc));
	rc = evtchn_close(t);
	check(rc == 0, "close(timer port): %ld %s", rc, errno_name(rc));
	evtchn_port_t x;
	rc = evtchn_bind_ipi(1, &x);
	check(rc == -XEN_ENOENT, "bind_ipi(vcpu 1) with one vCPU: %ld %s", rc, errno_name(rc));
	rc = evtchn_status(4096, &st);
	check(rc == -XEN_EINVAL, "status(port 4096): %ld %s", rc, errno_name(rc));
	rc = evtchn_bind_virq(NR_VIRQS, 0, &x);
	check(rc == -XEN_EINVAL, "bind_virq(NR_VIRQS): %ld %s", rc, errno_name(rc));
	rc = vcpu_op(VCPUOP_is_up, 0, NULL);
	check(rc == 1, "is_up(vcpu 0): %ld", rc);
	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	check(rc == -XEN_ENOENT, "is_up(vcpu 1): %ld %s", rc, errno_name(rc));
	struct vcpu_runstate_info ri;
	rc = vcpu_op(VCPUOP_get_runstate_info, 0, &ri);
	check(rc == 0 && ri.state == RUNSTATE_running, "get_runstate_info: %ld, state %d", rc, ri.state);
	printf("upcalls %lu\n", upcalls_now());
}
