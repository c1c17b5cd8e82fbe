/*
 * nmi-storm: real NMIs, sent from outside (run-guest --nmi-every: QEMU's monitor command `nmi`
 * standalone, `xl trigger DOM nmi 0` under a Xen L0), landing while the guest crosses the edge
 * between itself and the shim as often as it can.
 *
 * An NMI can arrive at any instruction of the shim, including the few ring-0 ones that still run
 * on the guest's GS base: the first instruction of an IDT stub entered from the guest, the
 * SYSCALL entry before its swapgs, the return path after its swapgs and before its iretq. A
 * handler that trusts GS there (this_cpu()) reads the guest's base as the shim's. To make such a
 * mistake fault instead of reading zeros by luck, this guest sets its FS base, its kernel GS base
 * and its user GS base to canonical addresses that nothing maps (SEGBASE_FS, SEGBASE_GS_KERNEL,
 * SEGBASE_GS_USER), three different ones so that a swap mixed up shows too. It never touches
 * %fs or %gs itself.
 *
 * Then, for secs=N seconds of its pvclock (default 20), it runs rounds of:
 *  - a cheap hypercall (XENVER_version), whose answer must be the same every time;
 *  - an int3, bounced by the shim to our own #BP handler, which must see it once, after the int3;
 *  - a round trip to user mode (iret to ring 3, SYSCALL back to our callback), which must end
 *    with the function returning, not a fault;
 *  - the three bases read back with the emulated rdmsr (FS_BASE, GS_BASE, SHADOW_GS_BASE: a #GP
 *    the shim emulates, one more crossing), which must still be what we set.
 * It prints progress every 5 s and, at the end, the rounds and what each step counted. Virtual
 * NMIs (a shim that passed the real ones on to us) go to an NMI callback that only counts them:
 * neither shim does that today, and no rule here decides it (printed, not checked).
 *
 * The guest passes on any shim that keeps running it (and without NMIs at all); the test is in
 * the suite's lines (run-guest --nmi-every, --expect-line, --reject-line): our shim must have
 * answered NMIs (its "NMI on CPU0: state report" console lines) and never died of one. The stock
 * shim ignores such NMIs: its line is the oracle that the guest itself passes. Standalone (QEMU
 * TCG takes an interrupt between translation blocks, and right after delivering an exception)
 * most NMIs land on the first instruction of the #GP stub of our rdmsr or the #BP stub of our
 * int3, the window a shim must get right; a shim that gets it wrong faults on our GS there, and
 * then again in its fault handler, and hangs, so the run ends as a timeout rather than a report.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"
#include "traps.h"
#include "user.h"

const char test_title[] = "nmi-storm: real NMIs while the guest crosses into the shim, GS/FS bases unmapped";

#define MSR_FS_BASE        0xc0000100
#define MSR_GS_BASE        0xc0000101
#define MSR_SHADOW_GS_BASE 0xc0000102

/* L4 slot 254: canonical, below the hypervisor's hole, and nothing of ours is there */
#define FS_BASE       0x00007f0000000000ul
#define GS_KERNEL     0x00007f0000200000ul
#define GS_USER       0x00007f0000400000ul

/* storm_int3: one int3; the #BP frame's rip is storm_int3_ret */
extern char storm_int3_ret[];
void storm_int3(void);
__asm__(".text\n"
	".globl storm_int3\n"
	"storm_int3:\n"
	"	int3\n"
	".globl storm_int3_ret\n"
	"storm_int3_ret:\n"
	"	ret\n");

static volatile bool int3_armed;
static volatile unsigned long int3_seen, int3_bad_rip;
static volatile unsigned long virtual_nmis;

/* Our #BP handler's work (lib/traps.c asks us first): count the int3 we raised. */
bool trap_hook(struct trap_frame *f)
{
	if (f->vector != 3 || !int3_armed)
		return false;
	int3_armed = false;
	int3_seen++;
	if (f->rip != (unsigned long)storm_int3_ret)
		int3_bad_rip = f->rip;
	return true;
}

/* lib/nmientry.S: a virtual NMI, only counted (see the header) */
void nmi_handler(const uint64_t *frame)
{
	(void)frame;
	virtual_nmis++;
}

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

/* In user mode: a little work, so that some NMIs land there too. */
static void user_spin(void)
{
	for (volatile unsigned int i = 0; i < 64; i++)
		;
}

/* secs=N from our command line, else def */
static unsigned long arg_secs(unsigned long def)
{
	char buf[16];
	unsigned long v = 0;

	if (!cmdline_word("secs", buf, sizeof(buf)))
		return def;
	for (const char *p = buf; *p; p++) {
		if (*p < '0' || *p > '9')
			test_fail("secs=%s: want a whole number of seconds", buf);
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (!v || v > 3600)
		test_fail("secs=%s: want 1..3600", buf);
	return v;
}

/* The first failure of each kind is printed; the rest only counted. */
static unsigned long failures;
static void failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failed(const char *fmt, ...)
{
	va_list ap;

	if (failures++ >= 5)
		return;
	printf("FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void set_bases(void)
{
	static const struct { unsigned int which; unsigned long base; const char *name; } b[] = {
		{ SEGBASE_FS, FS_BASE, "FS" },
		{ SEGBASE_GS_KERNEL, GS_KERNEL, "kernel GS" },
		{ SEGBASE_GS_USER, GS_USER, "user GS" },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(b); i++) {
		check(pt_lookup(b[i].base, NULL) == 0, "%s base %#lx is not mapped", b[i].name, b[i].base);
		long rc = HC(__HYPERVISOR_set_segment_base, b[i].which, b[i].base, 0);
		if (!check(rc == 0, "set_segment_base %s = %#lx: %ld %s", b[i].name, b[i].base, rc, errno_name(rc)))
			test_fail("cannot set the segment bases");
	}
}

void test_main(void)
{
	unsigned long secs = arg_secs(20);
	struct callback_register cb = { .type = CALLBACKTYPE_nmi, .address = (unsigned long)nmi_entry };
	long rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
	check(rc == 0, "CALLBACKOP_register(nmi): %ld %s", rc, errno_name(rc));
	user_init();
	const long version = hypercall_xen_version(XENVER_version, NULL);
	check(version > 0, "XENVER_version = %#lx", version);
	set_bases();
	check(rdmsr(MSR_FS_BASE) == FS_BASE && rdmsr(MSR_GS_BASE) == GS_KERNEL &&
	      rdmsr(MSR_SHADOW_GS_BASE) == GS_USER, "the bases read back: FS %#lx, GS %#lx, shadow GS %#lx",
	      rdmsr(MSR_FS_BASE), rdmsr(MSR_GS_BASE), rdmsr(MSR_SHADOW_GS_BASE));
	printf("nmi-storm: crossing into the shim for %lu s\n", secs);

	const uint64_t t0 = pvclock_ns_shared(), end = t0 + secs * 1000000000ull;
	uint64_t next_report = t0 + 5000000000ull, now;
	unsigned long rounds = 0;

	/* The clock only every 64 rounds: under Xen each of its rdtsc is an L0 exit, and an NMI
	 * from L0 comes in at the next entry, so reading it every round would put most of them on
	 * our rdtsc instead of spreading them over the rounds. */
	for (now = t0; now < end; now = rounds % 64 ? now : pvclock_ns_shared()) {
		long v = hypercall_xen_version(XENVER_version, NULL);
		if (v != version)
			failed("round %lu: XENVER_version = %#lx, was %#lx", rounds, v, version);

		unsigned long before = int3_seen;
		int3_armed = true;
		storm_int3();
		if (int3_seen != before + 1 || int3_bad_rip) {
			failed("round %lu: int3 seen %lu time(s) by our handler, rip %#lx (want 1, %p)", rounds,
			       int3_seen - before, int3_bad_rip, storm_int3_ret);
			int3_armed = false;
			int3_bad_rip = 0;
		}

		unsigned long u = user_run(user_spin);
		if (u)
			failed("round %lu: user mode ended in a fault: %#lx at rip %#lx", rounds, u, user_fault_rip);

		uint64_t fs = rdmsr(MSR_FS_BASE), gs = rdmsr(MSR_GS_BASE), ugs = rdmsr(MSR_SHADOW_GS_BASE);
		if (fs != FS_BASE || gs != GS_KERNEL || ugs != GS_USER)
			failed("round %lu: bases changed: FS %#lx, GS %#lx, shadow GS %#lx", rounds, fs, gs, ugs);

		rounds++;
		if (now >= next_report) {
			printf("nmi-storm: %lu s: %lu rounds, %lu failures, %lu virtual NMIs\n",
			       (unsigned long)((now - t0) / 1000000000ull), rounds, failures, virtual_nmis);
			next_report += 5000000000ull;
		}
	}

	printf("nmi-storm: %lu rounds in %lu s, each a hypercall, an int3, a user-mode trip and the bases read "
	       "back; %lu int3 seen by our handler; %lu virtual NMIs reached us\n", rounds, secs, int3_seen,
	       virtual_nmis);
	check(rounds > 0, "at least one round ran (%lu)", rounds);
	check(failures == 0, "every step of every round was right (%lu failures)", failures);
}
