/*
 * evtchn-fifo: FIFO event channels (public/event_channel.h EVTCHNOP_init_control, expand_array,
 * set_priority; Xen 4.17's common/event_fifo.c). Linux uses FIFO whenever init_control succeeds,
 * so every Linux guest of a shim that offers it runs on these rules; this guest checks them one by
 * one, with events masked (vcpu_info's upcall mask) and the queues read as Linux reads them
 * (drivers/xen/events/events_fifo.c), until the last step turns delivery on.
 *
 * Ours (evtchn-fifo=on, the default):
 *  1. before FIFO: an IPI port a bound and sent (2-level pending); expand_array -EOPNOTSUPP;
 *     set_priority -ENOSYS (Xen's answer on the 2-level ABI);
 *  2. init_control refused for a vCPU we lack (-ENOENT), an offset past the page or misaligned
 *     (-EINVAL), a frame not ours (-EINVAL); then 0 with link_bits 17; a second one -EINVAL;
 *  3. an event array page with every word MASKED (as Linux prepares it): a was pending before
 *     the switch, so it is PENDING now, and masked, so not LINKED; EVTCHNOP_unmask links it:
 *     head[7] is a, ready bit 7 is set, the upcall is pending;
 *  4. b and c unmasked by the guest: sends queue in order (a sent twice is queued once);
 *     set_priority(c, 3) puts c ahead of b; priorities past 15 and ports out of range -EINVAL;
 *  5. a masked port is PENDING but not queued; EVTCHNOP_unmask queues it;
 *  6. SCHEDOP_poll returns at once for a pending FIFO port, at its timeout for an idle one;
 *  7. close: the word is no longer PENDING, and MASKED stays as the guest left it (clear): Xen's
 *     evtchn_free only clears the pending bit (evtchn_fifo_clear_pending), on both ABIs;
 *  8. with a callback and events on, a send is delivered as an upcall;
 *  9. EVTCHNOP_reset ends FIFO (Xen goes back to 2-level): expand_array -EOPNOTSUPP again, and a
 *     new init_control succeeds.
 * The stock shim has no FIFO (a documented difference, lib/testbed.h), nor has ours with
 * evtchn-fifo=off (this guest then runs with fifo.expect=off): all three ops -EOPNOTSUPP, checked
 * exactly, so Linux stays on 2-level.
 *
 * Expect: stock PASS on xen (its -EOPNOTSUPP); ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"
#include "mm.h"

const char test_title[] = "evtchn-fifo: init_control, expand_array, set_priority, queues, masking, reset";

#define PENDING (1u << EVTCHN_FIFO_PENDING)
#define MASKED (1u << EVTCHN_FIFO_MASKED)
#define LINKED (1u << EVTCHN_FIFO_LINKED)
#define DEF EVTCHN_FIFO_PRIORITY_DEFAULT

static struct evtchn_fifo_control_block *cb;
static volatile uint32_t *words;

static long evop(unsigned cmd, void *arg)
{
	return hypercall_event_channel_op(cmd, arg);
}

static long init_control(unsigned long gfn, uint32_t offset, uint32_t vcpu, uint8_t *link_bits)
{
	struct evtchn_init_control ic = { .control_gfn = gfn, .offset = offset, .vcpu = vcpu };
	long rc = evop(EVTCHNOP_init_control, &ic);

	if (link_bits)
		*link_bits = ic.link_bits;
	return rc;
}

static long expand(const void *page)
{
	struct evtchn_expand_array e = { .array_gfn = virt_to_mfn(page) };

	return evop(EVTCHNOP_expand_array, &e);
}

static long set_priority(uint32_t port, uint32_t prio)
{
	struct evtchn_set_priority sp = { .port = port, .priority = prio };

	return evop(EVTCHNOP_set_priority, &sp);
}

/* Linux's consumer: the ready word, then each ready queue from its head, unlinking each word;
 * the pending unmasked ports in the order taken (at most n). */
static unsigned consume(evtchn_port_t *out, unsigned n)
{
	unsigned got = 0;
	uint32_t ready = __atomic_exchange_n(&cb->ready, 0, __ATOMIC_SEQ_CST);

	for (unsigned q = 0; q < EVTCHN_FIFO_MAX_QUEUES; q++) {
		if (!(ready & (1u << q)))
			continue;
		uint32_t port = cb->head[q];
		cb->head[q] = 0;
		while (port) {
			volatile uint32_t *w = &words[port];
			uint32_t old = *w, new;
			do
				new = old & ~(LINKED | EVTCHN_FIFO_LINK_MASK);
			while (!__atomic_compare_exchange_n(w, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
			if ((old & PENDING) && !(old & MASKED)) {
				__atomic_fetch_and(w, ~PENDING, __ATOMIC_SEQ_CST);
				if (got < n)
					out[got++] = port;
			}
			port = old & EVTCHN_FIFO_LINK_MASK;
		}
	}
	return got;
}

static void expect_order(const char *what, unsigned want_n, evtchn_port_t p0, evtchn_port_t p1)
{
	evtchn_port_t got[4] = { 0 };
	unsigned n = consume(got, 4);

	check(n == want_n && (n < 1 || got[0] == p0) && (n < 2 || got[1] == p1),
	      "%s: %u ports came out (%u, %u), want %u (%u, %u)", what, n, got[0], got[1], want_n, p0, p1);
}

static void refused(void)
{
	long rc = init_control(virt_to_mfn(page_alloc()), 0, 0, NULL);

	check(rc == -XEN_EOPNOTSUPP, "init_control: %ld %s (want -EOPNOTSUPP: no FIFO here)", rc, errno_name(rc));
	rc = expand(page_alloc());
	check(rc == -XEN_EOPNOTSUPP, "expand_array: %ld %s (want -EOPNOTSUPP)", rc, errno_name(rc));
	evtchn_port_t a;
	check(evtchn_bind_ipi(0, &a) == 0, "bind_ipi");
	rc = set_priority(a, 3);
	check(rc == -XEN_EOPNOTSUPP, "set_priority: %ld %s (want -EOPNOTSUPP)", rc, errno_name(rc));
}

void test_main(void)
{
	char want[8];
	long rc;

	if (!testbed_ours() || (cmdline_word("fifo.expect", want, sizeof(want)) && !strcmp(want, "off"))) {
		refused();
		return;
	}
	check(events_init() == 0, "callback registered (events stay masked until step 8)");
	struct vcpu_info *vi = events_vcpu;

	/* 1 */
	evtchn_port_t a, b, c, d;
	check(evtchn_bind_ipi(0, &a) == 0, "bind_ipi a");
	check(evtchn_send(a) == 0, "send a (2-level)");
	check(port_pending(a), "a pending in the 2-level bitmap");
	void *arr = page_alloc();
	rc = expand(arr);
	check(rc == -XEN_EOPNOTSUPP, "expand_array before init_control: %ld %s (want -EOPNOTSUPP)", rc, errno_name(rc));
	rc = set_priority(a, 3);
	check(rc == -XEN_ENOSYS, "set_priority on the 2-level ABI: %ld %s (want -ENOSYS)", rc, errno_name(rc));

	/* 2 */
	cb = page_alloc();
	unsigned long cb_mfn = virt_to_mfn(cb);
	uint8_t bits = 0;
	rc = init_control(cb_mfn, 0, 1, NULL);
	check(rc == -XEN_ENOENT, "init_control(vcpu 1) with one vCPU: %ld %s", rc, errno_name(rc));
	rc = init_control(cb_mfn, 4096 - 64, 0, NULL);
	check(rc == -XEN_EINVAL, "init_control(offset past the page): %ld %s", rc, errno_name(rc));
	rc = init_control(cb_mfn, 4, 0, NULL);
	check(rc == -XEN_EINVAL, "init_control(offset 4): %ld %s", rc, errno_name(rc));
	rc = init_control(0xffffffffful, 0, 0, NULL);
	check(rc == -XEN_EINVAL, "init_control(a frame not ours): %ld %s", rc, errno_name(rc));
	rc = init_control(cb_mfn, 0, 0, &bits);
	check(rc == 0 && bits == EVTCHN_FIFO_LINK_BITS, "init_control: %ld %s, link_bits %u", rc, errno_name(rc), bits);
	rc = init_control(virt_to_mfn(page_alloc()), 0, 0, NULL);
	check(rc == -XEN_EINVAL, "a second init_control for vCPU 0: %ld %s", rc, errno_name(rc));

	/* 3 */
	words = arr;
	for (unsigned i = 0; i < PAGE_SIZE / 4; i++)
		words[i] = MASKED;
	rc = expand(arr);
	check(rc == 0, "expand_array: %ld %s", rc, errno_name(rc));
	check(words[a] == (PENDING | MASKED), "a after the switch: %#x (want PENDING|MASKED)", words[a]);
	vi->evtchn_upcall_pending = 0;
	check(evtchn_unmask(a) == 0, "unmask a");
	check(words[a] == (PENDING | LINKED), "a unmasked: %#x (want PENDING|LINKED)", words[a]);
	check(cb->head[DEF] == a && cb->ready == 1u << DEF, "head[7] %u (want %u), ready %#x", cb->head[DEF], a,
	      cb->ready);
	check(vi->evtchn_upcall_pending == 1, "the upcall is pending");
	expect_order("a", 1, a, 0);

	/* 4 */
	check(evtchn_bind_ipi(0, &b) == 0 && evtchn_bind_ipi(0, &c) == 0, "bind_ipi b, c");
	check(words[b] == MASKED, "a new port's word: %#x (want MASKED, as the guest left it)", words[b]);
	words[b] &= ~MASKED;
	words[c] &= ~MASKED;
	check(evtchn_send(b) == 0 && evtchn_send(a) == 0 && evtchn_send(c) == 0 && evtchn_send(a) == 0, "sends");
	check((words[b] & EVTCHN_FIFO_LINK_MASK) == a && (words[a] & EVTCHN_FIFO_LINK_MASK) == c,
	      "links: b -> %u, a -> %u (want b -> a -> c)", words[b] & EVTCHN_FIFO_LINK_MASK,
	      words[a] & EVTCHN_FIFO_LINK_MASK);
	evtchn_port_t got[4] = { 0 };
	unsigned n = consume(got, 4);
	check(n == 3 && got[0] == b && got[1] == a && got[2] == c, "order: %u ports %u %u %u (want %u %u %u)", n,
	      got[0], got[1], got[2], b, a, c);
	rc = set_priority(c, 16);
	check(rc == -XEN_EINVAL, "set_priority 16: %ld %s", rc, errno_name(rc));
	rc = set_priority(1u << 20, 3);
	check(rc == -XEN_EINVAL, "set_priority of port 2^20: %ld %s", rc, errno_name(rc));
	check(set_priority(c, 3) == 0, "set_priority(c, 3)");
	check(evtchn_send(b) == 0 && evtchn_send(c) == 0, "send b, c");
	check(cb->ready == ((1u << 3) | (1u << DEF)), "ready %#x (want queues 3 and 7)", cb->ready);
	expect_order("c (priority 3) before b", 2, c, b);

	/* 5 */
	words[b] |= MASKED;
	check(evtchn_send(b) == 0, "send b masked");
	check(words[b] == (PENDING | MASKED) && cb->ready == 0, "masked b: %#x, ready %#x (want PENDING|MASKED, 0)",
	      words[b], cb->ready);
	check(evtchn_unmask(b) == 0, "unmask b");
	check(words[b] == (PENDING | LINKED) && cb->head[DEF] == b, "b unmasked: %#x, head %u", words[b], cb->head[DEF]);

	/* 6 (b is still pending) */
	struct sched_poll sp = { .nr_ports = 1, .timeout = pvclock_ns() + 2000000000ul };
	set_xen_guest_handle(sp.ports, &b);
	uint64_t t0 = pvclock_ns();
	rc = hypercall_sched_op(SCHEDOP_poll, &sp);
	check(rc == 0 && pvclock_ns() - t0 < 1000000000ul, "poll of a pending port: %ld after %lu ms", rc,
	      (pvclock_ns() - t0) / 1000000);
	expect_order("b", 1, b, 0);
	sp.timeout = pvclock_ns() + 20000000ul;
	set_xen_guest_handle(sp.ports, &c);
	t0 = pvclock_ns();
	rc = hypercall_sched_op(SCHEDOP_poll, &sp);
	check(rc == 0 && pvclock_ns() - t0 >= 15000000ul, "poll of an idle port: %ld after %lu ms (want its 20 ms timeout)",
	      rc, (pvclock_ns() - t0) / 1000000);

	/* 7 */
	words[c] &= ~MASKED;
	check(evtchn_send(c) == 0 && evtchn_close(c) == 0, "send c, close c");
	check((words[c] & (PENDING | MASKED)) == 0, "closed c: %#x (want not PENDING, and not MASKED: the guest's "
	      "bit, which close leaves alone)", words[c]);
	consume(got, 4);

	/* 8 */
	check(evtchn_bind_ipi(0, &d) == 0, "bind_ipi d");
	words[d] &= ~MASKED;
	unsigned long before = events_upcalls;
	events_enable();
	check(evtchn_send(d) == 0, "send d");
	check(events_upcalls > before, "the send was delivered: upcalls %lu -> %lu", before, events_upcalls);
	expect_order("d", 1, d, 0);
	events_disable();

	/* 9 */
	struct evtchn_reset r = { .dom = DOMID_SELF };
	rc = evop(EVTCHNOP_reset, &r);
	check(rc == 0, "reset: %ld %s", rc, errno_name(rc));
	rc = expand(page_alloc());
	check(rc == -XEN_EOPNOTSUPP, "expand_array after reset: %ld %s (want -EOPNOTSUPP: 2-level again)", rc,
	      errno_name(rc));
	rc = init_control(virt_to_mfn(page_alloc()), 0, 0, NULL);
	check(rc == 0, "init_control after reset: %ld %s", rc, errno_name(rc));
}
