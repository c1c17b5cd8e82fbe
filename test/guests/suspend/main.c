/*
 * suspend: a PV guest's suspend and resume through the ABI, driven by the toolstack as Linux's is
 * (issue 17). dom0's driver (test/l0/dom0/suspend-ctl) runs xl save -c, xl save + xl restore and
 * xl migrate; each asks the guest through xenstore: control/shutdown reads "suspend", the guest
 * acknowledges (writes "") and calls SCHEDOP_shutdown(SHUTDOWN_suspend) with its start_info's
 * frame in the third argument (the PV rule: the saver finds start_info there). The call returns 1
 * when the suspend was cancelled (xl save -c: the domain goes on where it was) and 0 in a new
 * domain (restore, migration). What each must keep and reset, as Xen restores a PV guest (the
 * toolstack's restore and, for a shim, its own rebuild):
 *  - both: the memory (a pattern in 16 pages reads back), page types (a pinned L1 is still pinned:
 *    pinning it again is -EINVAL), the registers the hypercall keeps (rbx, rbp, r12-r15: the
 *    shim must not lose the vCPU's state while the domain is away), a pvclock that never goes
 *    back, a store that answers (start_info's ring, maybe moved) and a console that prints (these
 *    lines), a timer and an IPI that arrive, and GNTTABOP_setup_table giving a frame;
 *  - cancelled: the same domain (its domid), the event channels as they were (the VIRQ_TIMER
 *    port's status is still virq, binding it again is -EEXIST) and vcpu_info still where the
 *    guest registered it (registering it again is -EINVAL or -EBUSY);
 *  - new domain: a new domid; shared_info where start_info now says; vcpu_info back in
 *    shared_info (registering it again succeeds: Linux does so); every event channel closed but
 *    the store's and console's (their numbers from start_info), every port masked and none pending
 *    but those two (the toolstack's memset for a restored PV guest: a port Linux keeps masked, its
 *    spinlock kicker, must not inherit an old clear mask, or the kicker's event BUG()s it).
 * Command line: suspend.checkpoints=N suspend.saves=N suspend.migrates=N, done in that order
 * (run-guest gives dom0's driver the same). Each round prints "SUSPEND ready OP K" before it
 * waits and "SUSPEND resumed OP K: domain D, away N ms" after its checks (K counts that OP's
 * rounds, as the driver does; N is the wall time across the call, the downtime it saw).
 *
 * The 32-bit PAE build (suspend-pv32) makes the call with int $0x82 and checks esi, edi and ebp
 * (what a three-argument compat hypercall leaves alone); the rest is the same, in the 32-bit
 * layouts (start_info, shared_info, 32-port event words).
 *
 * Expect: ours PASS on xen, both builds. stock XFAIL on xen: a restored guest's ports keep their
 * old mask bits (test/README.md, known bugs). No toolstack standalone: no line for l0=none.
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "xs.h"

const char test_title[] = "suspend: SCHEDOP_shutdown(suspend) under xl save -c, save/restore and migrate";

#define NPAT 16
static uint64_t *pat[NPAT];
static uint64_t *pinned_l1;
static evtchn_port_t tport, iport;
static char vi_page[4096] __attribute__((aligned(4096)));
static struct xs_msg m;
static unsigned long domid;
static long away_ms;		/* the wall time across the suspend */

enum op { CHECKPOINT, SAVE, MIGRATE };
static const char *const op_name[] = { "checkpoint", "save", "migrate" };

/* Wall time in ns: shared_info's wallclock (the time at system time 0) plus the pvclock. The
 * downtime a round reports is its change across the suspend: the pvclock alone is system time,
 * which the stock shim's stays still while the domain is away (its own Xen's clock) and ours
 * runs on (L0's): both may, as system time on another host starts elsewhere. */
static uint64_t wall_ns(void)
{
	uint32_t v;
	uint64_t sec, nsec;

	do {
		v = __atomic_load_n(&shared_info->wc_version, __ATOMIC_ACQUIRE);
		sec = ((uint64_t)shared_info->xen_wc_sec_hi << 32) | shared_info->wc_sec;   /* (arch's in 32-bit) */
		nsec = shared_info->wc_nsec;
	} while ((v & 1) || v != __atomic_load_n(&shared_info->wc_version, __ATOMIC_ACQUIRE));
	return sec * 1000000000ull + nsec + pvclock_ns();
}

static unsigned long word_num(const char *key)
{
	char v[16];
	unsigned long n = 0;

	if (!cmdline_word(key, v, sizeof(v)))
		return 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			test_fail("%s=%s: not a number", key, v);
		n = n * 10 + (unsigned long)(*p - '0');
	}
	return n;
}

static uint64_t pattern(unsigned page, unsigned i, unsigned long salt)
{
	return (0x9e3779b97f4a7c15ull * (page * 512u + i + 1)) ^ salt;
}

static unsigned long read_domid(void)
{
	long t = xs_one(XS_READ, "domid", &m);
	unsigned long d = 0;

	if (t != XS_READ)
		return 0;
	for (uint32_t i = 0; i < m.h.len && m.body[i] >= '0' && m.body[i] <= '9'; i++)
		d = d * 10 + (unsigned long)(m.body[i] - '0');
	return d;
}

static long gnttab_setup_one(xen_pfn_t *frame, int16_t *status)
{
	struct gnttab_setup_table s = { .dom = DOMID_SELF, .nr_frames = 1, .status = 1 };

	set_xen_guest_handle(s.frame_list, frame);
	long rc = hypercall(__HYPERVISOR_grant_table_op, GNTTABOP_setup_table, (unsigned long)&s, 1, 0, 0);
	*status = s.status;
	return rc;
}

/* vcpu_info into our page (offset 64), as Linux places it; events stay where they were. */
static long register_vcpu_info(void)
{
	struct vcpu_register_vcpu_info r = { .mfn = pfn_to_mfn((unsigned long)vi_page >> 12), .offset = 64 };
	long rc = vcpu_op(VCPUOP_register_vcpu_info, 0, &r);

	if (!rc)
		events_vcpu = (struct vcpu_info *)(vi_page + 64);
	return rc;
}

/* Wait (up to 5 s) for the port's count to pass `from`. */
static bool arrived(evtchn_port_t p, uint32_t from)
{
	uint64_t end = pvclock_ns() + 5000000000ul;

	while (events_seen[p] == from && pvclock_ns() < end)
		sched_block();
	return events_seen[p] != from;
}

/* The state checked after each round: set up once. */
static void setup(void)
{
	long rc;

	for (unsigned p = 0; p < NPAT; p++) {
		pat[p] = page_alloc();
		for (unsigned i = 0; i < 512; i++)
			pat[p][i] = pattern(p, i, 0);
	}
	pinned_l1 = page_alloc();
	memset(pinned_l1, 0, 4096);
	rc = page_ro(pinned_l1);
	rc = rc ? rc : pin(1, pinned_l1);
	if (rc)
		test_fail("pinning a scratch L1: %ld %s", rc, errno_name(rc));
	rc = pin(1, pinned_l1);
	check(rc == -XEN_EINVAL, "a pinned L1 pinned again: %ld %s (-EINVAL)", rc, errno_name(rc));

	rc = vcpu_op(VCPUOP_stop_periodic_timer, 0, NULL);
	rc = rc ? rc : evtchn_bind_virq(VIRQ_TIMER, 0, &tport);
	rc = rc ? rc : evtchn_bind_ipi(0, &iport);
	if (rc)
		test_fail("binding VIRQ_TIMER and an IPI: %ld %s", rc, errno_name(rc));
	rc = register_vcpu_info();
	if (rc)
		test_fail("VCPUOP_register_vcpu_info: %ld %s", rc, errno_name(rc));
	events_enable();
	domid = read_domid();
	if (!domid)
		test_fail("reading domid from the store: %s", xs_show(-1, &m));
	printf("domain %lu: timer port %u, IPI port %u, store port %u, console port %u\n", domid, tport, iport,
	       start_info->store_evtchn, start_info->console.domU.evtchn);
}

/* Until dom0 asks (control/shutdown is "suspend"): then acknowledge, as Linux does. */
static void await_request(unsigned round, enum op op)
{
	static const char ack[] = "control/shutdown\0";
	uint64_t start = pvclock_ns(), end = start + 600000000000ul, next_note = start + 30000000000ul;

	printf("SUSPEND ready %s %u\n", op_name[op], round);
	for (;;) {
		long t = xs_one(XS_READ, "control/shutdown", &m);
		if (t == XS_READ && m.h.len == 7 && !memcmp(m.body, "suspend", 7))
			break;
		if (t == XS_READ && m.h.len)
			test_fail("control/shutdown says '%s' while waiting for a suspend", m.body);
		uint64_t now = pvclock_ns();
		if (now > end)
			test_fail("%s %u: no suspend request from dom0 in 600 s", op_name[op], round);
		if (now > next_note) {	/* a sign of life for the bed's stall watch (a slow migration) */
			printf("  waiting for dom0's request: %lu s\n", (unsigned long)((now - start) / 1000000000ul));
			next_note = now + 30000000000ul;
		}
		struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = pvclock_ns() + 100000000ul };
		vcpu_op(VCPUOP_set_singleshot_timer, 0, &ss);
		sched_block();
	}
	long t = xs_req(XS_WRITE, 0, ack, sizeof(ack) - 1, &m);
	if (!xs_is_reply(t, XS_WRITE, &m, "OK"))
		test_fail("acknowledging the suspend request: %s", xs_show(t, &m));
}

/*
 * SCHEDOP_shutdown(SHUTDOWN_suspend) with known values in the registers the hypercall keeps;
 * *changed gets those that came back different (0: all kept).
 */
#ifdef __i386__
/*
 * The 32-bit build: int $0x82 with ebx, ecx and edx the arguments; esi, edi and ebp, which a
 * three-argument call leaves alone (the cdecl callee-saved registers but ebx, an argument), must
 * come back as they went. The result goes through a static: ebp is not ours to name here.
 */
static unsigned long suspend_diff;

static long suspend_call(unsigned long si_mfn, unsigned long *changed)
{
	struct sched_shutdown r = { .reason = SHUTDOWN_suspend };
	long eax = __HYPERVISOR_sched_op;
	unsigned long a1 = SCHEDOP_shutdown, a2 = (unsigned long)&r, a3 = si_mfn;

	__asm__ volatile("push %%ebp; push %%esi; push %%edi\n\t"
			 "mov $0x5b5b00b2, %%ebp\n\t"
			 "mov $0x5b5b00b3, %%esi\n\t"
			 "mov $0x5b5b00b4, %%edi\n\t"
			 "int $0x82\n\t"
			 "xor $0x5b5b00b2, %%ebp\n\t"
			 "xor $0x5b5b00b3, %%esi\n\t"
			 "xor $0x5b5b00b4, %%edi\n\t"
			 "or %%esi, %%ebp\n\t"
			 "or %%edi, %%ebp\n\t"
			 "mov %%ebp, %[diff]\n\t"
			 "pop %%edi; pop %%esi; pop %%ebp"
			 : "+a"(eax), "+b"(a1), "+c"(a2), "+d"(a3), [diff] "=m"(suspend_diff)
			 :
			 : "memory", "cc");
	*changed = suspend_diff;
	return eax;
}
#else
static long suspend_call(unsigned long si_mfn, unsigned long *changed)
{
	struct sched_shutdown r = { .reason = SHUTDOWN_suspend };
	long rax = __HYPERVISOR_sched_op;
	unsigned long a1 = SCHEDOP_shutdown, a2 = (unsigned long)&r, a3 = si_mfn, diff;

	__asm__ volatile("push %%rbx; push %%rbp; push %%r12; push %%r13; push %%r14; push %%r15\n\t"
			 "movabs $0x5b5b0000000000b1, %%rbx\n\t"
			 "movabs $0x5b5b0000000000b2, %%rbp\n\t"
			 "movabs $0x5b5b0000000000b3, %%r12\n\t"
			 "movabs $0x5b5b0000000000b4, %%r13\n\t"
			 "movabs $0x5b5b0000000000b5, %%r14\n\t"
			 "movabs $0x5b5b0000000000b6, %%r15\n\t"
			 "syscall\n\t"
			 "movabs $0x5b5b0000000000b1, %%rcx; xor %%rcx, %%rbx\n\t"
			 "movabs $0x5b5b0000000000b2, %%rcx; xor %%rcx, %%rbp\n\t"
			 "movabs $0x5b5b0000000000b3, %%rcx; xor %%rcx, %%r12\n\t"
			 "movabs $0x5b5b0000000000b4, %%rcx; xor %%rcx, %%r13\n\t"
			 "movabs $0x5b5b0000000000b5, %%rcx; xor %%rcx, %%r14\n\t"
			 "movabs $0x5b5b0000000000b6, %%rcx; xor %%rcx, %%r15\n\t"
			 "mov %%rbx, %%rcx; or %%rbp, %%rcx; or %%r12, %%rcx; or %%r13, %%rcx\n\t"
			 "or %%r14, %%rcx; or %%r15, %%rcx\n\t"
			 "pop %%r15; pop %%r14; pop %%r13; pop %%r12; pop %%rbp; pop %%rbx"
			 : "+a"(rax), "+D"(a1), "+S"(a2), "+d"(a3), "=c"(diff)
			 :
			 : "r8", "r9", "r10", "r11", "memory", "cc");
	*changed = diff;
	return rax;
}
#endif

/* A new domain: the mappings of what moved, before anything prints or reads the clock. */
static long rebuild(void)
{
	long rc = shared_info_map();

	events_vcpu = &shared_info->vcpu_info[0];
	long crc = console_ring_init();
	rc = rc ? rc : crc;
	return rc ? rc : xs_init();
}

/* Every port masked and none pending but the store's and console's (read before any rebind). */
static void check_reset_ports(const char *opn, unsigned round)
{
	unsigned unmasked = 0, pending = 0, first_unmasked = 0, first_pending = 0;

	/* the 2-level range: 4096 ports, 1024 in the 32-bit shared_info (32-bit words) */
	for (unsigned p = 1; p < sizeof(shared_info->evtchn_pending) * 8; p++) {
		bool ours = p == start_info->store_evtchn || p == start_info->console.domU.evtchn;
		if (!port_masked(p) && !unmasked++)
			first_unmasked = p;
		if (!ours && port_pending(p) && !pending++)
			first_pending = p;
	}
	check(!unmasked, "%s %u: every port masked (%u unmasked, the first %u)", opn, round, unmasked,
	      first_unmasked);
	check(!pending, "%s %u: none pending but store and console (%u, the first %u)", opn, round, pending,
	      first_pending);
	struct evtchn_status st;
	long rc = evtchn_status(tport, &st);
	bool reused = tport == start_info->store_evtchn || tport == start_info->console.domU.evtchn;
	check(rc == 0 && (st.status == EVTCHNSTAT_closed || reused),
	      "%s %u: the old VIRQ_TIMER port %u is closed: %ld, status %u", opn, round, tport, rc, st.status);
}

static void round_checks(unsigned round, enum op op, long rc, unsigned long changed, uint64_t t0, uint64_t w0)
{
	const char *opn = op_name[op];
	bool cancelled = op == CHECKPOINT;
	long want = cancelled ? 1 : 0;

	check(rc == want, "%s %u: SCHEDOP_shutdown(suspend) returned %ld (%ld: %s)", opn, round, rc, want,
	      cancelled ? "cancelled, the same domain" : "resumed in a new domain");
#ifdef __i386__
	check(!changed, "%s %u: esi, edi, ebp kept across it (changed bits %#lx)", opn, round, changed);
#else
	check(!changed, "%s %u: rbx, rbp, r12-r15 kept across it (changed bits %#lx)", opn, round, changed);
#endif
	uint64_t now = pvclock_ns();
	away_ms = (long)(wall_ns() - w0) / 1000000;
	check(now >= t0, "%s %u: the pvclock went on: %lu ms after the call", opn, round,
	      (unsigned long)((int64_t)(now - t0) / 1000000));
	unsigned bad = 0;
	for (unsigned p = 0; p < NPAT; p++)
		for (unsigned i = 0; i < 512; i++)
			bad += pat[p][i] != pattern(p, i, 0);
	check(!bad, "%s %u: %u pages of memory read back (%u words differ)", opn, round, NPAT, bad);
	long prc = pin(1, pinned_l1);
	check(prc == -XEN_EINVAL, "%s %u: the pinned L1 is still pinned (pinning it again: %ld %s)", opn, round, prc,
	      errno_name(prc));

	unsigned long d = read_domid();
	if (cancelled)
		check(d == domid, "%s %u: still domain %lu (the store says %lu)", opn, round, domid, d);
	else
		check(d && d != domid, "%s %u: a new domain: %lu, was %lu", opn, round, d, domid);
	domid = d;

	struct evtchn_status st;
	long vrc = register_vcpu_info();
	if (cancelled) {
		check(vrc == -XEN_EINVAL || vrc == -XEN_EBUSY, "%s %u: vcpu_info still registered (again: %ld %s)",
		      opn, round, vrc, errno_name(vrc));
		long src = evtchn_status(tport, &st);
		check(src == 0 && st.status == EVTCHNSTAT_virq && st.u.virq == VIRQ_TIMER,
		      "%s %u: port %u still bound to VIRQ_TIMER: %ld, status %u", opn, round, tport, src, st.status);
		evtchn_port_t again;
		long brc = evtchn_bind_virq(VIRQ_TIMER, 0, &again);
		check(brc == -XEN_EEXIST, "%s %u: binding VIRQ_TIMER again: %ld %s (-EEXIST)", opn, round, brc,
		      errno_name(brc));
	} else {
		check(vrc == 0, "%s %u: vcpu_info was back in shared_info (registered again: %ld %s)", opn, round, vrc,
		      errno_name(vrc));
		long brc = evtchn_bind_virq(VIRQ_TIMER, 0, &tport);
		brc = brc ? brc : evtchn_bind_ipi(0, &iport);
		/* bound ports keep the restored mask: unmask them, as Linux does */
		brc = brc ? brc : evtchn_unmask(tport);
		brc = brc ? brc : evtchn_unmask(iport);
		check(brc == 0, "%s %u: VIRQ_TIMER and an IPI bound again: %ld %s (ports %u, %u)", opn, round, brc,
		      errno_name(brc), tport, iport);
		vcpu_op(VCPUOP_stop_periodic_timer, 0, NULL);
	}
	events_enable();

	uint32_t seen = events_seen[iport];
	long irc = evtchn_send(iport);
	check(irc == 0 && arrived(iport, seen), "%s %u: an IPI to ourselves arrives: %ld", opn, round, irc);
	seen = events_seen[tport];
	struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = pvclock_ns() + 5000000 };
	long trc = vcpu_op(VCPUOP_set_singleshot_timer, 0, &ss);
	check(trc == 0 && arrived(tport, seen), "%s %u: a 5 ms timer fires: %ld", opn, round, trc);

	xen_pfn_t frame = 0;
	int16_t gst;
	long grc = gnttab_setup_one(&frame, &gst);
	check(grc == 0 && gst == GNTST_okay && frame, "%s %u: GNTTABOP_setup_table: %ld, status %d, frame %#lx", opn,
	      round, grc, gst, (unsigned long)frame);
}

void test_main(void)
{
	unsigned long n[3] = { word_num("suspend.checkpoints"), word_num("suspend.saves"), word_num("suspend.migrates") };
	unsigned round;
	long rc;

	if (strcmp(testbed_l0(), "xen"))
		test_skip("no toolstack to suspend us without a Xen L0");
	if (!n[0] && !n[1] && !n[2])
		test_fail("no suspend.checkpoints/saves/migrates on the command line: nothing to do");
	if ((rc = events_init()))
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	if ((rc = xs_init()))
		test_fail("mapping the store ring: %ld %s", rc, errno_name(rc));
	setup();
	unsigned long si_mfn = virt_to_mfn(start_info);

	for (enum op op = CHECKPOINT; op <= MIGRATE; op++)
		for (unsigned long k = 0; k < n[op]; k++) {
			round = (unsigned)k + 1;
			await_request(round, op);
			uint64_t t0 = pvclock_ns(), w0 = wall_ns();
			unsigned long changed;
			events_disable();
			rc = suspend_call(si_mfn, &changed);
			if (rc == 0) {
				long mrc = rebuild();
				if (mrc)
					test_fail("round %u: remapping shared_info, console and store: %ld %s", round, mrc,
						  errno_name(mrc));
				check_reset_ports(op_name[op], round);
			}
			round_checks(round, op, rc, changed, t0, w0);
			printf("SUSPEND resumed %s %u: domain %lu, away %ld ms\n", op_name[op], round, domid, away_ms);
		}
}
