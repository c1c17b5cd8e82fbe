/*
 * evtchn-limit: how many event channels a guest gets (xl.cfg's max_event_channels, libxl's
 * max_evtchn_port; Xen 4.17's get_free_port: -ENOSPC past the domain's highest port; the 2-level
 * ABI's ceiling for a 64-bit guest is port 4095). A guest with many vCPUs and devices needs
 * more than the default 1024, and the operator raises the limit in the config; a shim must then
 * hand them out, not stop at a table of its own.
 *
 * Checked: IPIs are bound on vCPU 0 until a bind fails; that failure is -ENOSPC and the highest
 * port bound is exactly the domain's highest (ports.max= on the command line: 1023 for xl's
 * default, what --xl max_event_channels= set, 4095 for ours standalone, which has no toolstack
 * and allows the whole 2-level range). Then the highest port works: a send on it is delivered
 * to the callback; and after closing them all, a bind gets the lowest number back.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"

const char test_title[] = "evtchn-limit: ports up to the domain's max_event_channels, -ENOSPC after";

#define MAX_BOUND EVENTS_PORTS

static evtchn_port_t bound[MAX_BOUND];

void test_main(void)
{
	char buf[16];

	if (!cmdline_word("ports.max", buf, sizeof(buf)))
		test_fail("no ports.max= on the command line: the test has no expectation");
	unsigned long want_max = 0;
	for (const char *c = buf; *c >= '0' && *c <= '9'; c++)
		want_max = want_max * 10 + (unsigned long)(*c - '0');
	check(events_init() == 0, "callback registered");

	unsigned n = 0, highest = 0, lowest = ~0u;
	long rc = 0;
	while (n < MAX_BOUND) {
		evtchn_port_t p;
		rc = evtchn_bind_ipi(0, &p);
		if (rc)
			break;
		bound[n++] = p;
		highest = p > highest ? p : highest;
		lowest = p < lowest ? p : lowest;
	}
	printf("bound %u IPI ports (%u to %u); then %ld %s\n", n, lowest, highest, rc, errno_name(rc));
	check(rc == -XEN_ENOSPC, "the bind past the last port: %ld %s (want -ENOSPC)", rc, errno_name(rc));
	check(highest == want_max, "the highest port bound: %u (want %lu)", highest, want_max);

	/* the highest one works: unmasked, sent, delivered */
	evtchn_port_t top = highest;
	check(evtchn_unmask(top) == 0, "unmask %u", top);
	events_enable();
	check(evtchn_send(top) == 0, "send %u", top);
	uint64_t end = pvclock_ns() + 1000000000ul;
	while (!events_seen[top] && pvclock_ns() < end) {
		struct sched_poll sp = { .nr_ports = 1, .timeout = end };
		set_xen_guest_handle(sp.ports, &top);
		hypercall_sched_op(SCHEDOP_poll, &sp);
	}
	check(events_seen[top] == 1, "port %u delivered %u times (want 1)", top, events_seen[top]);
	events_disable();

	unsigned closed = 0;
	for (unsigned i = 0; i < n; i++)
		closed += evtchn_close(bound[i]) == 0;
	check(closed == n, "closed %u of %u", closed, n);
	evtchn_port_t again;
	rc = evtchn_bind_ipi(0, &again);
	check(rc == 0 && again == lowest, "a bind after closing them all: %ld, port %u (want %u)", rc, again, lowest);
}
