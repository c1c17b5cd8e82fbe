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
 *  4. bind VIRQ_TIMER (twice: -EEXIST), a 5 ms singleshot timer: the timer port is delivered
 *     once (waits here are SCHEDOP_poll with a timeout, so a lost event fails instead of hanging;
 *     the timer guest tests SCHEDOP_block);
 *  5. bind_vcpu refused for an IPI and a per-vCPU VIRQ, -ENOENT for a vCPU we do not have;
 *     status of each port (ipi, virq), close, status closed, close again and send on it -EINVAL,
 *     an IPI for a vCPU we do not have -ENOENT, a port beyond the 2-level range (4096 ports; 1024
 *     in the 32-bit build, whose words are 32 bits) -EINVAL, a VIRQ number out of range -EINVAL;
 *     vcpu_op is_up for vCPU 0 (1) and 1 (-ENOENT), runstate running
 *     (the FIFO ABI has a guest of its own, evtchn-fifo);
 * Then, before any port is closed (step 5 comes last):
 *  6. a loopback interdomain channel (alloc_unbound + bind_interdomain to ourselves; the shim
 *     forwards both to L0, standalone it keeps them in its own table): statuses show each end,
 *     sends arrive both ways; closing one end leaves the other unbound for us again (Xen's
 *     evtchn_close), and it can be bound anew; a port left unbound for domain 0 cannot be bound
 *     by us (-EINVAL), nor a domain that does not exist (-ESRCH); a port closed and bound again
 *     under the same number keeps the guest's mask (unmasked) and has no stale event (Xen's
 *     evtchn_close clears pending only);
 *  7. SCHEDOP_poll returns at once for a pending masked port, at its timeout for an idle one;
 *  8. VCPUOP_register_vcpu_info into a page of ours: the mask and time come along, a second
 *     registration fails, IPIs and the pvclock work through the new place.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build (a 32-bit PAE guest,
 * 32-port words): stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"

/*
 * A 2-level word (xen_ulong_t: the pending and mask words, the selector) holds 64 ports, 32 in
 * the 32-bit build: Xen's BITS_PER_EVTCHN_WORD(d) is 32 for a domain with a 32-bit shared_info
 * (xen/include/xen/sched.h), and the ABI has that many words (xen/common/event_2l.c,
 * evtchn_2l_init: max_evtchns = bits * bits, 4096 ports or 1024).
 */
#define WORD_BITS (8 * sizeof(xen_ulong_t))
#define PORTS_2L (WORD_BITS * WORD_BITS)

const char test_title[] = "events: bind_ipi/send/unmask upcalls, VIRQ_TIMER, close and status";

static unsigned long upcalls_now(void)
{
	return __atomic_load_n(&events_upcalls, __ATOMIC_SEQ_CST);
}

/* Wait until port has been seen `count` times, at most ~1 s of pvclock: SCHEDOP_poll on it with
 * a timeout, so that a lost event ends in a FAILED line, never a hang (events are on: what is
 * pending is delivered as each poll returns). */
static bool wait_port(evtchn_port_t port, uint32_t count)
{
	uint64_t end = pvclock_ns() + 1000000000ul;

	while (events_seen[port] < count && pvclock_ns() < end) {
		struct sched_poll sp = { .nr_ports = 1, .timeout = end };

		set_xen_guest_handle(sp.ports, &port);
		hypercall_sched_op(SCHEDOP_poll, &sp);
	}
	return events_seen[port] >= count;
}

/* 6. interdomain to ourselves: alloc_unbound + bind_interdomain, forwarded to L0 */
static void loopback(void)
{
	struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = DOMID_SELF };
	struct evtchn_status st;
	long rc = hypercall_event_channel_op(EVTCHNOP_alloc_unbound, &a);

	if (!check(rc == 0 && a.port > 0 && a.port < EVENTS_PORTS, "alloc_unbound(self): %ld %s, port %u", rc,
		   errno_name(rc), a.port))
		return;
	rc = evtchn_status(a.port, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_unbound, "  status: %ld, status %u (unbound %u)", rc, st.status,
	      EVTCHNSTAT_unbound);
	struct evtchn_bind_interdomain b = { .remote_dom = DOMID_SELF, .remote_port = a.port };
	rc = hypercall_event_channel_op(EVTCHNOP_bind_interdomain, &b);
	if (!check(rc == 0 && b.local_port > 0 && b.local_port < EVENTS_PORTS && b.local_port != a.port,
		   "bind_interdomain(self, %u): %ld %s, port %u", a.port, rc, errno_name(rc), b.local_port))
		return;
	rc = evtchn_status(a.port, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_interdomain && st.u.interdomain.port == b.local_port,
	      "  status of the first end: %ld, status %u, remote port %u", rc, st.status, st.u.interdomain.port);
	rc = evtchn_status(b.local_port, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_interdomain && st.u.interdomain.port == a.port,
	      "  status of the second end: %ld, status %u, remote port %u", rc, st.status, st.u.interdomain.port);
	uint32_t sa = events_seen[a.port], sb = events_seen[b.local_port];     /* ports are reused */
	rc = evtchn_send(b.local_port);
	check(rc == 0 && wait_port(a.port, sa + 1), "send on one end arrives on the other: %ld, seen %u", rc,
	      events_seen[a.port] - sa);
	rc = evtchn_send(a.port);
	check(rc == 0 && wait_port(b.local_port, sb + 1), "  and back: %ld, seen %u", rc, events_seen[b.local_port] - sb);

	/* Xen's evtchn_close: the other end of an interdomain channel is unbound again, still for us,
	 * and can be bound anew; a port unbound for another domain is not ours to bind */
	rc = evtchn_close(b.local_port);
	check(rc == 0, "close the second end: %ld %s", rc, errno_name(rc));
	rc = evtchn_status(a.port, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_unbound, "  the first end is unbound again: %ld, status %u", rc,
	      st.status);
	b.local_port = 0;
	rc = hypercall_event_channel_op(EVTCHNOP_bind_interdomain, &b);
	check(rc == 0 && b.local_port > 0 && b.local_port < EVENTS_PORTS, "  and bound again: %ld %s, port %u", rc,
	      errno_name(rc), b.local_port);
	sa = events_seen[a.port];
	rc = evtchn_send(b.local_port);
	check(rc == 0 && wait_port(a.port, sa + 1), "  send on the new end arrives: %ld, seen %u", rc,
	      events_seen[a.port] - sa);
	evtchn_close(b.local_port);
	evtchn_close(a.port);

	/* Xen's close clears a port's pending bit and leaves its mask alone: bound again under that
	 * number (the lowest free), a port starts as the guest left the mask, unmasked here */
	evtchn_port_t p1 = 0, p2 = 0;
	rc = evtchn_bind_ipi(0, &p1);
	bool was_masked = port_masked(p1);
	rc = rc ? rc : evtchn_close(p1);
	rc = rc ? rc : evtchn_bind_ipi(0, &p2);
	check(rc == 0 && p2 == p1 && !was_masked && !port_masked(p2) && !port_pending(p2),
	      "an IPI port closed and bound again (%u, then %u): %ld, masked %d, pending %d (want neither)", p1, p2,
	      rc, port_masked(p2), port_pending(p2));
	evtchn_close(p2);

	struct evtchn_alloc_unbound a0 = { .dom = DOMID_SELF, .remote_dom = 0 };
	rc = hypercall_event_channel_op(EVTCHNOP_alloc_unbound, &a0);
	check(rc == 0 && a0.port > 0, "alloc_unbound(for domain 0): %ld %s, port %u", rc, errno_name(rc), a0.port);
	struct evtchn_bind_interdomain b0 = { .remote_dom = DOMID_SELF, .remote_port = a0.port };
	rc = hypercall_event_channel_op(EVTCHNOP_bind_interdomain, &b0);
	check(rc == -XEN_EINVAL, "  bind_interdomain(self, that port): %ld %s (want -EINVAL: not left for us)", rc,
	      errno_name(rc));
	if (rc == 0)
		evtchn_close(b0.local_port);
	evtchn_close(a0.port);
	b0 = (struct evtchn_bind_interdomain){ .remote_dom = 0x7000, .remote_port = 1 };
	rc = hypercall_event_channel_op(EVTCHNOP_bind_interdomain, &b0);
	check(rc == -XEN_ESRCH, "bind_interdomain(a domain that does not exist): %ld %s (want -ESRCH)", rc,
	      errno_name(rc));
}

/* 7. SCHEDOP_poll: returns at once for a pending (even masked) port, else at its timeout */
static void poll(void)
{
	evtchn_port_t q;
	long rc = evtchn_bind_ipi(0, &q);

	if (!check(rc == 0, "bind_ipi for poll: %ld %s", rc, errno_name(rc)))
		return;
	port_mask(q);
	evtchn_send(q);
	struct sched_poll sp = { .nr_ports = 1, .timeout = pvclock_ns() + 1000000000ul };
	set_xen_guest_handle(sp.ports, &q);
	uint64_t t0 = pvclock_ns();
	rc = hypercall_sched_op(SCHEDOP_poll, &sp);
	uint64_t took = pvclock_ns() - t0;
	check(rc == 0 && took < 500000000ul, "poll(masked pending port): %ld, returned after %lu us", rc,
	      (unsigned long)(took / 1000));
	__atomic_fetch_and(&shared_info->evtchn_pending[q / WORD_BITS], ~(1ul << (q % WORD_BITS)),
			   __ATOMIC_SEQ_CST);
	t0 = pvclock_ns();
	sp.timeout = t0 + 20000000ul;
	rc = hypercall_sched_op(SCHEDOP_poll, &sp);
	took = pvclock_ns() - t0;
	check(rc == 0 && pvclock_ns() >= sp.timeout, "poll(idle port, 20 ms): %ld, returned after %lu us", rc,
	      (unsigned long)(took / 1000));
	sp.nr_ports = 129;
	rc = hypercall_sched_op(SCHEDOP_poll, &sp);
	check(rc == -XEN_EINVAL, "poll(129 ports): %ld %s", rc, errno_name(rc));
}

/* 8. VCPUOP_register_vcpu_info: the vcpu_info moves into a page of ours */
static char vi_page[4096] __attribute__((aligned(4096)));

static void move_vcpu_info(evtchn_port_t t)
{
	struct vcpu_register_vcpu_info r = { .mfn = pfn_to_mfn((unsigned long)vi_page >> 12), .offset = 128 };
	struct vcpu_info *nvi = (struct vcpu_info *)(vi_page + 128);
	evtchn_port_t q;

	struct vcpu_register_vcpu_info bad = r;
	bad.offset = 4096 - 32;
	long rc = vcpu_op(VCPUOP_register_vcpu_info, 0, &bad);
	/* -EINVAL in Xen 4.17.0; -ENXIO once vcpu_info areas were reworked (Debian's 4.17 has it) */
	check(rc == -XEN_EINVAL || rc == -XEN_ENXIO, "register_vcpu_info straddling a page: %ld %s", rc,
	      errno_name(rc));
	events_disable();
	rc = vcpu_op(VCPUOP_register_vcpu_info, 0, &r);
	if (!check(rc == 0, "register_vcpu_info(our page + 128): %ld %s", rc, errno_name(rc))) {
		events_enable();
		return;
	}
	events_vcpu = nvi;
	check(nvi->evtchn_upcall_mask == 1, "  the mask came along (%u)", nvi->evtchn_upcall_mask);
	check(nvi->time.tsc_to_system_mul != 0, "  and the time");
	events_enable();
	rc = vcpu_op(VCPUOP_register_vcpu_info, 0, &r);
	check(rc == -XEN_EINVAL || rc == -XEN_EBUSY, "  registering again: %ld %s", rc, errno_name(rc));
	rc = evtchn_bind_ipi(0, &q);
	uint32_t seen = events_seen[q];         /* ports are reused: count from here */
	rc = rc ? rc : evtchn_send(q);
	check(rc == 0 && events_seen[q] == seen + 1, "an IPI is delivered through the new vcpu_info: %ld, seen %u",
	      rc, events_seen[q] - seen);
	uint64_t t0 = pvclock_ns();
	struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = t0 + 5000000 };
	seen = events_seen[t];
	rc = vcpu_op(VCPUOP_set_singleshot_timer, 0, &ss);
	bool fired = rc == 0 && wait_port(t, seen + 1);
	uint64_t took = pvclock_ns() - t0;
	check(fired && took >= 5000000 && took < 500000000, "a 5 ms timer with the new vcpu_info's clock: %ld, after %lu us",
	      rc, (unsigned long)(took / 1000));
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
	check((vi->evtchn_pending_sel >> (p / WORD_BITS)) & 1, "  its selector bit is set (sel %#lx)",
	      vi->evtchn_pending_sel);
	check(vi->evtchn_upcall_pending == 1, "  evtchn_upcall_pending is set");
	check(upcalls_now() == 0, "  no upcall while masked (%lu)", upcalls_now());
	events_enable();
	/* the console backend may send events of its own (Xen's does): count ports, not upcalls */
	check(upcalls_now() >= 1, "unmasking events delivers an upcall (%lu)", upcalls_now());
	check(events_seen[p] == 1, "  it took the IPI port (%u)", events_seen[p]);
	check((events_sel_at_entry >> (p / WORD_BITS)) & 1, "  the selector on entry had the port's word (%#lx)",
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
	check(!((vi->evtchn_pending_sel >> (p / WORD_BITS)) & 1), "  no selector bit for a masked port");
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
	wait_port(t, 1);
	check(events_seen[t] == 1, "  VIRQ_TIMER delivered once (%u)", events_seen[t]);
	check(events_seen[p] == 3, "  and nothing on the IPI port (%u)", events_seen[p]);

	/* 6-8 before any close: the stock shim cannot always reuse a closed port's number (-EBUSY) */
	loopback();
	poll();
	move_vcpu_info(t);

	/* 5. bind_vcpu, close and status */
	struct evtchn_bind_vcpu bv = { .port = p, .vcpu = 0 };
	rc = hypercall_event_channel_op(EVTCHNOP_bind_vcpu, &bv);
	check(rc == -XEN_EINVAL, "bind_vcpu(ipi port): %ld %s (an IPI stays on its vCPU)", rc, errno_name(rc));
	bv.port = t;
	rc = hypercall_event_channel_op(EVTCHNOP_bind_vcpu, &bv);
	check(rc == -XEN_EINVAL, "bind_vcpu(VIRQ_TIMER port): %ld %s (a per-vCPU VIRQ)", rc, errno_name(rc));
	bv.vcpu = 1;
	rc = hypercall_event_channel_op(EVTCHNOP_bind_vcpu, &bv);
	check(rc == -XEN_ENOENT, "bind_vcpu(to vCPU 1): %ld %s", rc, errno_name(rc));
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
	rc = evtchn_status(PORTS_2L, &st);
	check(rc == -XEN_EINVAL, "status(port %u, past the 2-level range): %ld %s", (unsigned)PORTS_2L, rc,
	      errno_name(rc));
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
