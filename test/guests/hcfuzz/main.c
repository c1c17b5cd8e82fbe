/*
 * hcfuzz: a hostile guest (issue 15). Thousands of random hypercalls, every number 0-63 (and
 * some beyond), random sub-ops and arguments, pointers that are NULL, unmapped, our read-only
 * pages, our text, the hypervisor's hole, non-canonical, just below 2^47 or straddling a page
 * edge, random multicall lists, and random mmu_update/mmuext_op batches against page tables we
 * own (gen.c says how each argument is chosen). A shim must take all of it: never panic, hang
 * or corrupt itself or us. Xen's rule for a PV guest is that a hypercall with bad input fails
 * with an errno; it crashes the domain only for a few things the ABI names (a bad iret frame,
 * a shutdown asked for), and this guest does none of those, so any crash or hang is a failure.
 *
 * The guest keeps itself alive by construction. Calls that end or reshape it are left out or
 * made in forms that must be refused, or our state is put back right after them:
 *  - iret: left out (it reshapes our registers by design; test/guests/multicall checks it);
 *  - SCHEDOP_shutdown and sched_op_compat(shutdown): only with pointers nothing can be read
 *    from (Xen shuts down for any reason it reads, even > SHUTDOWN_MAX); remote_shutdown never
 *    names us; a watchdog only with an id that names none (id 0 would arm one);
 *  - SCHEDOP_block with our IPI pending (it returns at once); SCHEDOP_poll with a timeout of
 *    at most 2 ms, or none with our pending IPI in its list;
 *  - VCPUOP_down never for vCPU 0 (our only one: the last vCPU down powers the domain off);
 *    VCPUOP_register_vcpu_info only in refused forms (it would move our event mask away);
 *    runstate and time areas only in the sink or where writes fault;
 *  - set_trap_table, set_callbacks, callback_op, nmi_op: random tables and addresses, then at
 *    once our own back (events stay masked meanwhile, and NMIs arrive only after a send);
 *  - set_debugreg: breakpoints enabled only on addresses we never touch;
 *  - MMUEXT_NEW_BASEPTR only our own L4 or frames that must be refused; every page-table op
 *    names scratch frames (pinned, unpinned, written, cleared at random), spare frames, or
 *    frames that are not ours, never a live table or a page of our data;
 *  - update_va_mapping only on four pages of our own that each batch puts back;
 *  - decrease_reservation and exchange give back only spare frames; EVTCHNOP_close, bind_vcpu
 *    and reset never touch our console, store or IPI ports; EVTCHNOP_init_control never gets
 *    a frame of ours (FIFO would leave the fuzzer's own 2-level event handling behind).
 *
 * After each batch (batch=, default 64 calls) the guest puts its state back and checks it: a
 * guard region holds the pattern it was filled with, the live page tables match a snapshot
 * (accessed/dirty bits aside), the m2p still maps our frames to our pfns, every scratch frame
 * can be cleared again (no page-type reference leaked), xen_version and a console write give
 * what they gave at the start, an event sent to ourselves arrives, and the pvclock advanced.
 * Every direct VCPUOP_send_nmi that succeeded must have reached our NMI handler, and a few
 * answers must be as the ABI fixes them whatever else goes on (check_rules).
 *
 * Command line: seed=N (default 1), calls=N (default 3000), batch=N, trace=1 (print each call,
 * what its pointers read, and its result: diff two shims' traces for a seed), trace_from=N (the
 * same from call N on). A failure prints the last calls (number
 * and arguments), so a run replays with the same seed. The end: calls made, per-hypercall
 * counts and result histograms, and (on our shim) the shim's own counters follow at shutdown.
 *
 * The 32-bit PAE build (pv32) makes the same calls in the 32-bit ABI: int 0x82, every argument
 * 32 bits (64-bit values of the compat calls split in two: update_va_mapping's PTE,
 * update_descriptor, set_timer_op), set_callbacks and callbacks as cs:eip, PAE page tables, and
 * pointers and frame numbers a 32-bit guest can give (hcfuzz.h, gen.c). Where Xen's compat layer
 * answers differently check_rules says which rule. Its own NMI entry is below.
 *
 * Expected: PASS on the stock shim (Xen L0) and on ours under both L0 kinds; the -pv32 build on
 * the stock shim.
 */
#include "hcfuzz.h"
#include "events.h"
#include "traps.h"

GUEST_USE_HYPERCALL_PAGE();
extern char hypercall_page[];

const char test_title[] = "hcfuzz: random hypercalls from a hostile guest";

struct world W;

/* ---------------- the PRNG ---------------- */

static uint64_t rng;

uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* "name=N" from our command line (decimal or 0x hex), else def. */
static uint64_t opt(const char *name, uint64_t def)
{
	const char *s = (const char *)start_info->cmd_line;
	size_t len = strlen(name);

	for (const char *p = s; (p = strstr(p, name)); p += len) {
		if ((p != s && p[-1] != ' ') || p[len] != '=')
			continue;
		uint64_t v = 0;
		const char *q = p + len + 1;
		unsigned base = 10;
		if (q[0] == '0' && q[1] == 'x')
			base = 16, q += 2;
		for (;; q++) {
			unsigned d = *q >= '0' && *q <= '9' ? (unsigned)(*q - '0')
				   : *q >= 'a' && *q <= 'f' ? (unsigned)(*q - 'a' + 10) : 99;
			if (d >= base)
				break;
			v = v * base + d;
		}
		return v;
	}
	return def;
}

/* ---------------- our memory ---------------- */

static uint8_t scr[NSCR][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
uint8_t uvm_page[NUVM][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
#define NSPARE0 8
static uint8_t spare_page[NSPARE0][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static uint8_t guard[GUARD_PAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static uint64_t snap[NPT_MAX][512];

/* The guard's pattern: its own PRNG stream, so it can be made again to compare with. */
static uint64_t guard_word(uint64_t i)
{
	uint64_t z = 0x5a17ull * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;

	z ^= z >> 31;
	z *= 0x94d049bb133111ebull;
	return z ^ (z >> 29);
}

/* ---------------- what happened ---------------- */

#define HIST_SLOTS 8
struct hist {
	unsigned long calls, pos;	/* pos: results > 0 (versions, counts, ports) */
	long rc[HIST_SLOTS];		/* results <= 0, by value */
	unsigned long n[HIST_SLOTS];
	unsigned long other;
};
static struct hist hist[65];		/* [64]: numbers beyond 63 */
static unsigned long nr_direct, nr_entries, nr_batches;

static void record(uint64_t op, long rc)
{
	struct hist *h = &hist[op < 64 ? op : 64];

	h->calls++;
	if (rc > 0) {
		h->pos++;
		return;
	}
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (h->n[i] && h->rc[i] == rc) {
			h->n[i]++;
			return;
		}
		if (!h->n[i]) {
			h->rc[i] = rc;
			h->n[i] = 1;
			return;
		}
	}
	h->other++;
}

/* The last calls, for a replay. */
#define NLAST 6
static struct last {
	unsigned long n;
	struct call c;
	long rc;
	bool done;
} lastc[NLAST];
static unsigned long callno;

static void print_call(const struct last *l)
{
	printf("  call %lu: %s (%#lx) args %#lx %#lx %#lx %#lx %#lx", l->n, hc_name(l->c.op), (unsigned long)l->c.op,
	       (unsigned long)l->c.a[0], (unsigned long)l->c.a[1], (unsigned long)l->c.a[2],
	       (unsigned long)l->c.a[3], (unsigned long)l->c.a[4]);
	if (l->done)
		printf(" -> %ld %s\n", l->rc, l->rc > 0 ? "" : errno_name(l->rc));
	else
		printf(" -> (did not return)\n");
	/* what the pointers into the window read (as of now: results may have replaced input) */
	for (int i = 0; i < 3; i++) {
		uint64_t w;
		unsigned n = 0;
		for (; n < 16 && win_read(l->c.a[i] + n * 8, &w, 8); n++) {
			if (!n)
				printf("    arg%d reads", i + 1);
			printf(" %#llx", (unsigned long long)w);
		}
		if (n)
			printf("\n");
	}
}

static void print_last(void)
{
	printf("hcfuzz: seed=%lu, the last calls before this:\n", (unsigned long)opt("seed", 1));
	for (unsigned long i = callno > NLAST ? callno - NLAST : 0; i < callno; i++)
		print_call(&lastc[i % NLAST]);
}

/* Any trap is fatal here: say what we last asked for, then the library's report. */
bool trap_hook(struct trap_frame *f)
{
	(void)f;
	print_last();
	return false;
}

static _Noreturn void fail(const char *what, unsigned long a, unsigned long b)
{
	printf("hcfuzz: FAILED after batch %lu: %s (%#lx, %#lx)\n", nr_batches, what, a, b);
	print_last();
	test_fail("hcfuzz: %s", what);
}

/* ---------------- making calls ---------------- */

static volatile unsigned long nmis;
static bool trace;
static uint64_t trace_from;		/* trace=1 from this call on (trace_from=N) */

void nmi_handler(const uint64_t *frame)
{
	(void)frame;
	nmis++;
}

#ifdef __i386__
/* The 32-bit build's hypercall gate: eax = number, ebx, ecx, edx, esi, edi (gen_call leaves
 * them 32 bits wide). */
static long raw_hypercall(uint64_t nr, const uint64_t a[5])
{
	unsigned long eax = (unsigned long)nr, ebx = (unsigned long)a[0], ecx = (unsigned long)a[1],
		      edx = (unsigned long)a[2], esi = (unsigned long)a[3], edi = (unsigned long)a[4];

	__asm__ volatile("int $0x82"
			 : "+a"(eax), "+b"(ebx), "+c"(ecx), "+d"(edx), "+S"(esi), "+D"(edi)
			 :
			 : "memory", "cc");
	return (long)eax;
}

#else
/* A raw syscall with all 64 bits of the number (the library's takes an unsigned int). */
static long raw_hypercall(uint64_t nr, const uint64_t a[5])
{
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];
	uint64_t rdi = a[0], rsi = a[1], rdx = a[2];
	long rax = (long)nr;

	__asm__ volatile("syscall"
			 : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+r"(r10), "+r"(r8)
			 :
			 : "rcx", "r11", "memory", "cc");
	return rax;
}
#endif

static long issue(const struct call *c)
{
	/* a fifth of the calls through the hypercall page, where it has a stub for the number */
	if (c->op < 64 && chance(20) && (unsigned char)hypercall_page[c->op * 32] != 0xcc) {
		hypercall_set_path(HC_PAGE);
		long rc = hypercall((unsigned)c->op, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4]);
		hypercall_set_path(HC_SYSCALL);
		return rc;
	}
	return raw_hypercall(c->op, c->a);
}

static long callback_reg(unsigned type, uint64_t address)
{
#ifdef __i386__
	/* a 32-bit guest's callback is cs:eip (xen_callback_t) */
	struct callback_register r = { .type = (uint16_t)type, .address = { FLAT_KERNEL_CS, (unsigned long)address } };
#else
	struct callback_register r = { .type = (uint16_t)type, .address = address };
#endif

	return HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &r, 0);
}

static void nmi_register(void)
{
	long rc = callback_reg(CALLBACKTYPE_nmi, (uintptr_t)nmi_entry);

	if (rc)
		fail("registering our NMI handler again", (unsigned long)rc, 0);
}

static void restore_traps(void)
{
	long rc = hypercall_set_trap_table(NULL);	/* clears the whole table, as Xen */

	if (rc || (rc = traps_init()))
		fail("putting our trap table back", (unsigned long)rc, 0);
	nmi_register();
}

static void restore_callbacks(void)
{
	long rc = events_init();

	if (rc)
		fail("putting our event callback back", (unsigned long)rc, 0);
	/* the others were never ours: a zero address, what we started with */
	callback_reg(CALLBACKTYPE_failsafe, 0);
	callback_reg(CALLBACKTYPE_syscall, 0);
	callback_reg(CALLBACKTYPE_syscall32, 0);
	callback_reg(CALLBACKTYPE_sysenter, 0);
}

/* Make our IPI port pending, unmasked, with events still masked (block and poll return). */
static void ipi_pending(void)
{
	const unsigned bits = 8 * sizeof(shared_info->evtchn_pending[0]);	/* 32 in the 32-bit build */

	__atomic_fetch_and(&shared_info->evtchn_pending[W.ipi / bits], ~(1ul << (W.ipi % bits)), __ATOMIC_SEQ_CST);
	evtchn_unmask(W.ipi);
	long rc = evtchn_send(W.ipi);
	if (rc)
		fail("sending to our own IPI port", (unsigned long)rc, W.ipi);
}

static void learn_port(uint32_t port)
{
	if (!port || port >= 4096 || port_protected(port))
		return;
	for (unsigned i = 0; i < W.nr_ports; i++)
		if (W.ports[i] == port)
			return;
	if (W.nr_ports < ARRAY_SIZE(W.ports))
		W.ports[W.nr_ports++] = port;
}

static void spare_add(uint64_t mfn)
{
	if (W.nr_spare < NSPARE_MAX)
		W.spare[W.nr_spare++] = mfn;
}

/*
 * Frames we gave back. A pinned one stays pinned, in use and ours until unpinned (the stock
 * shim's answer, test/guests/balloon), holding whatever tables it references: the batch's end
 * unpins these too.
 */
static uint64_t gone[64];
static unsigned nr_gone;

static void spare_drop(uint64_t mfn)
{
	for (unsigned i = 0; i < W.nr_spare; i++)
		if (W.spare[i] == mfn) {
			W.spare[i] = W.spare[--W.nr_spare];
			gone[nr_gone++ % ARRAY_SIZE(gone)] = mfn;
			return;
		}
}

/* An exchange's progress before the call: the out list holds mfns only from there on. */
static uint64_t exchanged_before;

static void before_call(const struct call *c)
{
	struct xen_memory_exchange x;

	exchanged_before = ~0ull;
	if (c->op == __HYPERVISOR_memory_op && (c->a[0] & 0x3f) == XENMEM_exchange && win_read(c->a[1], &x, sizeof(x)))
		exchanged_before = x.nr_exchanged;
}

/* What a call that worked taught us: ports it bound, frames it gave us or took. */
static void learn(const struct call *c, long rc)
{
	if (c->op == __HYPERVISOR_event_channel_op && rc == 0) {
		static const unsigned port_at[] = {
			[EVTCHNOP_bind_interdomain] = 8, [EVTCHNOP_bind_virq] = 8, [EVTCHNOP_alloc_unbound] = 4,
			[EVTCHNOP_bind_ipi] = 4,
		};
		uint32_t port;
		if (c->a[0] < ARRAY_SIZE(port_at) && port_at[c->a[0]] && win_read(c->a[1] + port_at[c->a[0]], &port, 4))
			learn_port(port);
	}
	if (c->op == __HYPERVISOR_memory_op) {
		struct xen_memory_reservation r;
		struct xen_memory_exchange x;
		unsigned op = c->a[0] & 0x3f;
		uint64_t start = c->a[0] >> 6;
		xen_pfn_t m;	/* 32 bits in the 32-bit build */
		if ((op == XENMEM_populate_physmap || op == XENMEM_increase_reservation ||
		     op == XENMEM_decrease_reservation) && rc > (long)start && win_read(c->a[1], &r, sizeof(r))) {
			for (uint64_t i = start; i < (uint64_t)rc && i < start + 64; i++) {
				if (!win_read((uintptr_t)r.extent_start.p + i * sizeof(m), &m, sizeof(m)))
					break;
				for (uint64_t j = 0; j < (1ull << MIN(r.extent_order, 6u)); j++) {
					if (op == XENMEM_decrease_reservation)
						spare_drop(m + j);
					else
						spare_add(m + j);
				}
			}
		}
		/*
		 * An exchange that worked (0) wrote every out extent: the in frames are gone, the out
		 * ones ours. Anything else may have done part of it with a count we cannot trust (the
		 * struct may be read-only): we lose track, which costs nothing (a stale frame is
		 * refused, an unknown one just stays ours).
		 */
		if (op == XENMEM_exchange && rc == 0 && win_read(c->a[1], &x, sizeof(x)) && x.in.extent_order == 0 &&
		    x.out.extent_order == 0) {
			for (uint64_t i = exchanged_before; i < x.in.nr_extents && i < 64; i++) {
				if (win_read((uintptr_t)x.in.extent_start.p + i * sizeof(m), &m, sizeof(m)))
					spare_drop(m);
				if (win_read((uintptr_t)x.out.extent_start.p + i * sizeof(m), &m, sizeof(m)))
					spare_add(m);
			}
		}
	}
}

/* After a multicall: the result of each entry that ran, where the list can be read back. */
static void harvest(const struct call *c)
{
	multicall_entry_t e;

	for (unsigned i = 0; i < MIN((uint32_t)c->a[1], MC_MAX + 8u); i++) {
		if (!win_read(c->a[0] + i * sizeof(e), &e, sizeof(e)) || e.result == MC_SENTINEL)
			break;
		record(e.op, (long)e.result);
		nr_entries++;
	}
}

#ifdef __i386__
/*
 * Where a 32-bit guest's pointer may start for a call that checks it as a compat handle
 * (compat_handle_okay: __compat_addr_ok, below HYPERVISOR_COMPAT_VIRT_START). A call that checks
 * a native handle (guest_handle_okay: __addr_ok, below 2^47) takes every 32-bit address, and
 * finds a bad one only as it reads or writes there.
 */
static bool compat_guest(uint64_t va)
{
	return va < HOLE_START;
}
#else
static bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

/* Where a guest's pointer may start (Xen's __addr_ok): canonical, outside the hypervisor's hole. */
static bool canonical_guest(uint64_t va)
{
	return canonical(va) && !(va >= 0xffff800000000000ull && va < 0xffff880000000000ull);
}
#endif

/* A vcpu_guest_context the shim can read at p: its window (the generator places it nowhere else
 * that reads). */
static bool ctx_readable(uint64_t p)
{
	static struct vcpu_guest_context ctx;

	return win_read(p, &ctx, sizeof(ctx));
}

/*
 * Answers the ABI fixes whatever else is going on (Xen 4.17 and the stock shim give them): a
 * direct call that breaks one fails the run. Each rule came from a difference found here.
 */
static void check_rules(const struct call *c, long rc)
{
	const char *rule = NULL;

	switch (c->op) {
	case __HYPERVISOR_set_callbacks:
		if (rc != 0)
			rule = "set_callbacks returns 0 (each of its callbacks is registered on its own)";
		break;
	case __HYPERVISOR_sched_op_compat:
		if ((int)c->a[0] == SCHEDOP_yield && rc != 0)
			rule = "sched_op_compat(yield) is 0";
		if ((int)c->a[0] > SCHEDOP_shutdown && rc != -XEN_ENOSYS)
			rule = "sched_op_compat of a command past shutdown is -ENOSYS";
		break;
	case __HYPERVISOR_event_channel_op_compat:
	case __HYPERVISOR_physdev_op_compat: {
		/* one struct { cmd, the modern call's argument }, read whole */
		struct evtchn_op e;
		struct physdev_op p;
		bool ev = c->op == __HYPERVISOR_event_channel_op_compat;
		if (!(ev ? win_read(c->a[0], &e, sizeof(e)) : win_read(c->a[0], &p, sizeof(p)))) {
			if (rc != -XEN_EFAULT)
				rule = "a compat call whose struct cannot be read is -EFAULT";
		} else if (ev && e.cmd > EVTCHNOP_unmask && rc != -XEN_ENOSYS) {
			rule = "event_channel_op_compat of a command newer than unmask is -ENOSYS";
		}
		break;
	}
	case __HYPERVISOR_mmu_update:
	case __HYPERVISOR_mmuext_op: {
		/* the list's start first (even for no entries), then the domains */
		uint32_t fd = (uint32_t)c->a[3];
		uint16_t d = (uint16_t)fd;
		bool other = d != DOMID_SELF && d != DOMID_IO && d != DOMID_XEN;
#ifdef __i386__
		/*
		 * 32-bit: mmu_update (native) and compat_mmuext_op (x86_64/compat/mm.c) check the list
		 * with guest_handle_okay, below 2^47: no 32-bit list fails that, one Xen cannot read
		 * fails as it is read. compat_mmuext_op reads (translates) the ops before
		 * do_mmuext_op checks the domains, whose error then wins, and with no ops it never
		 * calls do_mmuext_op: no domain check at all (count 0).
		 */
		uint32_t n = (uint32_t)c->a[1] & ~0x80000000u;	/* less MMU_UPDATE_PREEMPTED */
		bool ext = c->op == __HYPERVISOR_mmuext_op;
		if (ext && !n)
			break;
		if ((other || (!ext && fd >> 16)) && rc != -XEN_ESRCH)
			rule = "a batch for a domain that is not here is -ESRCH";
		else if (ext && !other && d != DOMID_SELF && rc != -XEN_EPERM)
			rule = "mmuext_op for DOMID_IO or DOMID_XEN is -EPERM";
		else if (d == DOMID_SELF && !(fd >> 16) && n && c->a[0] >= W.hole_free && rc != -XEN_EFAULT)
			rule = "a batch of ours whose list lies in the hypervisor's range (unmapped) is -EFAULT";
#else
		if (!canonical_guest(c->a[0])) {
			if (rc != -XEN_EFAULT)
				rule = "a batch list that starts outside the guest's addresses is -EFAULT";
		} else if ((other || (c->op == __HYPERVISOR_mmu_update && fd >> 16)) && rc != -XEN_ESRCH) {
			rule = "a batch for a domain that is not here is -ESRCH";
		} else if (c->op == __HYPERVISOR_mmuext_op && !other && d != DOMID_SELF && rc != -XEN_EPERM) {
			rule = "mmuext_op for DOMID_IO or DOMID_XEN is -EPERM";
		}
#endif
		break;
	}
	case __HYPERVISOR_update_va_mapping_otherdomain: {
#ifdef __i386__
		uint16_t d = (uint16_t)c->a[4];		/* compat: va, lo, hi, flags, domid */
#else
		uint16_t d = (uint16_t)c->a[3];
#endif
		if ((d == DOMID_IO || d == DOMID_XEN) && rc != -XEN_EPERM)
			rule = "update_va_mapping_otherdomain for DOMID_IO or DOMID_XEN is -EPERM";
		else if (d != DOMID_SELF && d != DOMID_IO && d != DOMID_XEN && rc != -XEN_ESRCH)
			rule = "update_va_mapping_otherdomain for a domain that is not here is -ESRCH";
		break;
	}
	case __HYPERVISOR_get_debugreg:
	case __HYPERVISOR_set_debugreg: {
		unsigned reg = (uint32_t)c->a[0];	/* an int in Xen's prototype */
		bool get = c->op == __HYPERVISOR_get_debugreg;
		if (reg > 7 && rc != -XEN_ENODEV)
			rule = "a debug register past DR7 is -ENODEV";
		else if (get && (reg == 5 || reg == 7) && rc >= 0 && !(rc & 0x400))
			rule = "DR7 (and DR5, its alias) reads with bit 10 set";
		else if (!get && reg >= 4 && reg <= 7 && (c->a[1] >> 32) && rc != -XEN_EINVAL)
			rule = "DR4-DR7 (DR4 and DR5 are DR6 and DR7) take 32-bit values: -EINVAL";
		break;
	}
	case __HYPERVISOR_event_channel_op: {
		uint32_t cmd = (uint32_t)c->a[0];
		/* FIFO is never on here (init_control never gets a frame of ours); where a shim offers it,
		 * Xen reads the argument first, so a bad pointer may be -EFAULT instead */
		bool fault = rc == -XEN_EFAULT;
		if ((cmd == EVTCHNOP_bind_pirq || cmd > EVTCHNOP_set_priority) && rc != -XEN_EOPNOTSUPP)
			rule = "event_channel_op for PIRQs or an unknown command is -EOPNOTSUPP";
		else if (cmd == EVTCHNOP_expand_array && rc != -XEN_EOPNOTSUPP && !fault)
			rule = "expand_array before FIFO is -EOPNOTSUPP";
		else if (cmd == EVTCHNOP_init_control && rc >= 0)
			rule = "init_control with a frame that is not the guest's fails";
		else if (cmd == EVTCHNOP_set_priority && rc != -XEN_ENOSYS && rc != -XEN_EOPNOTSUPP && !fault)
			rule = "set_priority without FIFO is -ENOSYS (Xen's 2-level) or -EOPNOTSUPP (no FIFO at all)";
		break;
	}
	case __HYPERVISOR_set_segment_base: {
#ifdef __i386__
		/* do_set_segment_base: "x86/64 only", -ENOSYS for a 32-bit vCPU */
		if (rc != -XEN_ENOSYS)
			rule = "set_segment_base of a 32-bit guest is -ENOSYS";
#else
		uint32_t which = (uint32_t)c->a[0];	/* an unsigned int in Xen's prototype */
		if (which == SEGBASE_GS_USER_SEL && rc != 0)
			rule = "set_segment_base(GS_USER_SEL) never fails (a bad selector loads NUL)";
		else if (which < SEGBASE_GS_USER_SEL && rc != (canonical(c->a[1]) ? 0 : -XEN_EINVAL))
			rule = "set_segment_base of FS or a GS base: 0, or -EINVAL for a non-canonical one";
		else if (which > SEGBASE_GS_USER_SEL && rc != -XEN_EINVAL)
			rule = "set_segment_base of an unknown register is -EINVAL";
#endif
		break;
	}
	case __HYPERVISOR_memory_op: {
		unsigned op = c->a[0] & 0x3f;
		bool start = c->a[0] >> 6;
		if (start && (op == XENMEM_maximum_ram_page || op == XENMEM_current_reservation ||
			      op == XENMEM_maximum_reservation) && rc != -XEN_EINVAL)
			rule = "maximum_ram_page and the reservation queries with a start extent are -EINVAL";
		else if (start && (op == XENMEM_memory_map || op == XENMEM_machine_memory_map ||
				   op == XENMEM_machphys_mapping) && rc != -XEN_ENOSYS)
			rule = "the arch memory_ops with a start extent are -ENOSYS (Xen takes them by the whole cmd)";
#ifdef __i386__
		/* compat_arch_memory_op (x86_64/compat/mm.c) copies the struct in before it hands it to
		 * arch_memory_op, whose privilege check comes first */
		else if (!start && op == XENMEM_machine_memory_map &&
			 rc != (win_read(c->a[1], &(struct xen_memory_map){ 0 }, sizeof(struct xen_memory_map))
				? -XEN_EPERM : -XEN_EFAULT))
			rule = "XENMEM_machine_memory_map of a 32-bit guest: -EFAULT if its struct cannot be read, "
			       "else -EPERM (the hardware domain's)";
#else
		else if (!start && op == XENMEM_machine_memory_map && rc != -XEN_EPERM)
			rule = "XENMEM_machine_memory_map is the hardware domain's: -EPERM";
#endif
		break;
	}
	case __HYPERVISOR_sched_op: {
		struct sched_poll p;
		struct sched_remote_shutdown r;
		if (c->a[0] == SCHEDOP_pin_override && rc != -XEN_EPERM)
			rule = "SCHEDOP_pin_override is the hardware domain's: -EPERM";
		else if (c->a[0] == SCHEDOP_remote_shutdown && win_read(c->a[1], &r, sizeof(r)) && rc != -XEN_ESRCH)
			rule = "SCHEDOP_remote_shutdown of a domain that is not here is -ESRCH";
#ifdef __i386__
		/*
		 * 32-bit: do_poll checks the list with guest_handle_okay (below 2^47: compat_poll makes
		 * it a native handle) and reads it only after blocking, so an empty list is never read,
		 * and an event that wakes us first ends the poll (0) before the read.
		 */
		else if (c->a[0] == SCHEDOP_poll && win_read(c->a[1], &p, sizeof(p)) && p.nr_ports >= 1 &&
			 p.nr_ports <= 128 && (uintptr_t)p.ports.p >= W.hole_free && rc != -XEN_EFAULT && rc != 0)
			rule = "SCHEDOP_poll of ports in the hypervisor's range (unmapped) is -EFAULT (0 if woken first)";
#else
		else if (c->a[0] == SCHEDOP_poll && win_read(c->a[1], &p, sizeof(p)) && p.nr_ports <= 128 &&
			 !canonical_guest((uint64_t)p.ports.p) && rc != -XEN_EFAULT)
			rule = "SCHEDOP_poll with a port list outside the guest's addresses is -EFAULT, even empty";
#endif
		break;
	}
	case __HYPERVISOR_vcpu_op: {
		uint32_t cmd = (uint32_t)c->a[0], vcpu = (uint32_t)c->a[1];
		struct vcpu_register_vcpu_info vi;
		uint64_t area;
		if (vcpu != 0)
			break;
		if (cmd == VCPUOP_get_physid && rc != -XEN_EINVAL)
			rule = "VCPUOP_get_physid is for the hardware domain's pinned vCPUs: -EINVAL";
		else if (cmd == VCPUOP_initialise && rc != (ctx_readable(c->a[2]) ? -XEN_EEXIST : -XEN_EFAULT))
			rule = "VCPUOP_initialise of our running vCPU 0: -EFAULT if the context cannot be read, else -EEXIST";
#ifdef __i386__
		/* the compat calls read a 32-bit handle and check it with compat_handle_okay */
		else if ((cmd == VCPUOP_register_runstate_memory_area || cmd == VCPUOP_register_vcpu_time_memory_area) &&
			 win_read(c->a[2], &area, 4) && !compat_guest((uint32_t)area) && rc != -XEN_EFAULT)
			rule = "a runstate or time area in the hypervisor's range is -EFAULT";
#else
		else if ((cmd == VCPUOP_register_runstate_memory_area || cmd == VCPUOP_register_vcpu_time_memory_area) &&
			 win_read(c->a[2], &area, 8) && !canonical_guest(area) && rc != -XEN_EFAULT)
			rule = "a runstate or time area outside the guest's addresses is -EFAULT";
#endif
		/* misaligned for the guest's vcpu_info: Xen's map_vcpu_info takes alignof the compat
		 * one for a 32-bit guest (4: its uint64_t fields are 4-aligned), of the native one (8)
		 * else; _Alignof here is the same by the build's ABI */
		else if (cmd == VCPUOP_register_vcpu_info && win_read(c->a[2], &vi, sizeof(vi)) &&
			 (vi.offset > PAGE_SIZE - sizeof(struct vcpu_info) ||
			  (vi.offset & (_Alignof(struct vcpu_info) - 1))) && rc != -XEN_ENXIO)
			rule = "a vcpu_info that straddles a page or is misaligned is -ENXIO";
		break;
	}
	case __HYPERVISOR_grant_table_op:
		/* the op's struct is the guest's: one outside its addresses is never read or written */
#ifdef __i386__
		/* the hypervisor's range of a 32-bit guest: unmapped past the m2p (bad_ptr), and for
		 * query_size also the compat m2p, read-only (gen.c): its result cannot be written */
		if ((uint32_t)c->a[2] == 1 && !compat_guest(c->a[1]) &&
		    (c->a[0] == GNTTABOP_query_size || (c->a[0] == GNTTABOP_setup_table && c->a[1] >= W.hole_free)) &&
		    rc != -XEN_EFAULT)
			rule = "grant_table_op with its struct in the hypervisor's range is -EFAULT";
#else
		if ((uint32_t)c->a[2] == 1 && (c->a[0] == GNTTABOP_query_size || c->a[0] == GNTTABOP_setup_table) &&
		    !canonical_guest(c->a[1]) && rc != -XEN_EFAULT)
			rule = "grant_table_op with its struct outside the guest's addresses is -EFAULT";
#endif
		break;
#ifndef __i386__
	/* (a 32-bit guest's callback is cs:eip: no address is non-canonical) */
	case __HYPERVISOR_callback_op: {
		struct callback_register r;
		if (c->a[0] == CALLBACKOP_register && win_read(c->a[1], &r, sizeof(r)) && !canonical(r.address) &&
		    rc != -XEN_EINVAL)
			rule = "CALLBACKOP_register of a non-canonical address is -EINVAL";
		break;
	}
#endif
	}
	if (rule)
		fail(rule, (unsigned long)rc, 0);
}

static void exec(struct call *c)
{
	struct last *l = &lastc[callno % NLAST];
	unsigned long nmis_before = nmis;

	l->n = callno++;
	l->c = *c;
	l->done = false;
	if (c->flags & PRE_IPI)
		ipi_pending();
	bool tr = trace && l->n >= trace_from;
	if (tr)
		print_call(l);
	before_call(c);
	long rc = issue(c);
	l->rc = rc;
	l->done = true;
	nr_direct++;
	record(c->op, rc);
	check_rules(c, rc);

	if (c->flags & FIX_EVENTS)
		events_disable();
	if (c->flags & FIX_TRAPS)
		restore_traps();
	if (c->flags & FIX_CALLBACKS)
		restore_callbacks();
	if (c->flags & (FIX_NMI | FIX_CALLBACKS))
		nmi_register();
	if (c->op == __HYPERVISOR_set_debugreg && rc == 0 && c->a[0] < 4)
		W.dr[c->a[0]] = c->a[1];
	if (c->op == __HYPERVISOR_vcpu_op && c->a[0] == VCPUOP_send_nmi && (uint32_t)c->a[1] == 0 && rc == 0 &&
	    nmis == nmis_before)
		fail("VCPUOP_send_nmi to ourselves succeeded, but no NMI came", nmis, 0);
	if (c->op == __HYPERVISOR_multicall)
		harvest(c);
	learn(c, rc);
	if (tr)
		printf("    -> %ld %s\n", rc, rc > 0 ? "" : errno_name(rc));
}

/* ---------------- set-up, clean-up, checks ---------------- */

static long console_baseline, version_baseline;
static uint64_t last_clock;

/* Every live table reachable from our half of the L4, level by level, and a copy of each. */
static uint8_t pt_level[NPT_MAX];
static uint64_t pt_base_va[NPT_MAX];	/* the first address each table maps */

/*
 * Xen's own entries in a live table: its business. 64-bit: L4 slots 256-271. 32-bit PAE: in the
 * L2 under L3 slot 3, those from HYPERVISOR_VIRT_START up (the compat m2p's; the L3 has 4 slots).
 */
#ifdef __i386__
#define TOP_SLOTS 4u
static bool xen_slot(unsigned t, unsigned i)
{
	return pt_level[t] == 2 && pt_base_va[t] == 0xc0000000ull && i >= pt_index(HOLE_START, 2);
}
#else
#define TOP_SLOTS 256u		/* our half of the L4 */
static bool xen_slot(unsigned t, unsigned i)
{
	return t == 0 && i >= 256 && i < 272;
}
#endif

static void walk_live_tables(void)
{
	uint8_t *level = pt_level;

	W.pt_mfn[0] = virt_to_mfn((void *)start_info->pt_base);
	level[0] = PT_LEVELS;
	W.nr_pt = 1;
	for (unsigned t = 0; t < W.nr_pt; t++) {
		const uint64_t *tab = (const uint64_t *)(mfn_to_pfn(W.pt_mfn[t]) << PAGE_SHIFT);
		for (unsigned i = 0; i < (level[t] == PT_LEVELS ? TOP_SLOTS : 512u) && level[t] > 1; i++) {
			uint64_t e = tab[i];
			if (!(e & PTE_PRESENT) || (e & PTE_PSE) || xen_slot(t, i))
				continue;
			if (W.nr_pt == NPT_MAX)
				test_fail("more than %u live page tables", NPT_MAX);
			W.pt_mfn[W.nr_pt] = PTE_MFN(e);
			pt_base_va[W.nr_pt] = pt_base_va[t] + ((uint64_t)i << (PAGE_SHIFT + 9 * (level[t] - 1)));
			level[W.nr_pt++] = (uint8_t)(level[t] - 1);
		}
	}
	for (unsigned t = 0; t < W.nr_pt; t++)
		memcpy(snap[t], (const void *)(mfn_to_pfn(W.pt_mfn[t]) << PAGE_SHIFT), PAGE_SIZE);
}

#define AD_BITS (PTE_ACCESSED | PTE_DIRTY)

static void check_live_tables(void)
{
	for (unsigned t = 0; t < W.nr_pt; t++) {
		const uint64_t *tab = (const uint64_t *)(mfn_to_pfn(W.pt_mfn[t]) << PAGE_SHIFT);
		for (unsigned i = 0; i < 512; i++) {
			if (xen_slot(t, i))
				continue;
			if ((tab[i] ^ snap[t][i]) & ~AD_BITS) {
				printf("hcfuzz: live L%u table %u (mfn %#lx) entry %u (va %#llx): %#llx, was %#llx\n",
				       pt_level[t], t, W.pt_mfn[t], i,
				       (unsigned long long)(pt_base_va[t] + ((uint64_t)i << (PAGE_SHIFT + 9 * (pt_level[t] - 1)))),
				       (unsigned long long)tab[i], (unsigned long long)snap[t][i]);
				fail("a live page-table entry changed (table mfn, entry index)", W.pt_mfn[t], i);
			}
		}
	}
}

static void check_guard(void)
{
	const uint64_t *g = (const uint64_t *)guard;

	for (uint64_t i = 0; i < GUARD_PAGES * PAGE_SIZE / 8; i++)
		if (g[i] != guard_word(i))
			fail("the guard region changed (offset, value)", i * 8, g[i]);
}

static bool in_spare_pages(unsigned long pfn)
{
	unsigned long first = (unsigned long)spare_page >> PAGE_SHIFT;

	return pfn >= first && pfn < first + NSPARE0;
}

static void check_m2p(void)
{
	unsigned long first = (unsigned long)_image_start >> PAGE_SHIFT;
	unsigned long last = (unsigned long)_image_end >> PAGE_SHIFT;

	for (unsigned long pfn = first; pfn < last; pfn++) {
		if (in_spare_pages(pfn))
			continue;		/* given back: the p2m's old frame is not ours any more */
		unsigned long mfn = pfn_to_mfn(pfn);
		if (mfn_to_pfn(mfn) != pfn)
			fail("the m2p lost one of our frames (pfn, m2p entry)", pfn, mfn_to_pfn(mfn));
	}
}

static void close_ports(void)
{
	for (unsigned i = 0; i < W.nr_ports; i++)
		evtchn_close(W.ports[i]);
	W.nr_ports = 0;
	/* ports whose number we never learnt (a bind whose result could not be written back) */
	for (unsigned p = 1; p < 160; p++) {
		struct evtchn_status st;
		if (port_protected(p))
			continue;
		if (evtchn_status(p, &st) == 0 && st.status != EVTCHNSTAT_closed)
			evtchn_close(p);
	}
}

/* Put back everything the batch may have changed; then every scratch frame must be free. */
static void batch_end(void)
{
	uint64_t zero = 0;

	set_timer_op(0);
	vcpu_op(VCPUOP_stop_periodic_timer, 0, NULL);
	vcpu_op(VCPUOP_stop_singleshot_timer, 0, NULL);
	vcpu_op(VCPUOP_register_runstate_memory_area, 0, &zero);
	vcpu_op(VCPUOP_register_vcpu_time_memory_area, 0, &zero);
	HC(__HYPERVISOR_set_debugreg, 7, 0, 0);
	for (int i = 0; i < 4; i++) {
		HC(__HYPERVISOR_set_debugreg, i, 0, 0);
		W.dr[i] = 0;
	}
	HC(__HYPERVISOR_fpu_taskswitch, 0, 0, 0);
#ifndef __i386__	/* (64-bit only: a 32-bit guest has no segment bases to put back) */
	HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER_SEL, 0, 0);
	HC(__HYPERVISOR_set_segment_base, SEGBASE_FS, 0, 0);
	HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER, 0, 0);
	HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_KERNEL, 0, 0);
#endif
	HC(__HYPERVISOR_stack_switch, FLAT_KERNEL_SS, boot_rsp, 0);
	struct physdev_set_iopl iopl = { 0 };
	HC(__HYPERVISOR_physdev_op, PHYSDEVOP_set_iopl, &iopl, 0);
	struct physdev_set_iobitmap iob = { .nr_ports = 0 };
	HC(__HYPERVISOR_physdev_op, PHYSDEVOP_set_iobitmap, &iob, 0);
	for (unsigned t = 0; t < 6; t++)
		vm_assist(VMASST_CMD_disable, t);
	vm_assist(VMASST_CMD_disable, VMASST_TYPE_m2p_strict);
	mmuext1(MMUEXT_NEW_USER_BASEPTR, 0);
	struct mmuext_op ldt = { .cmd = MMUEXT_SET_LDT };
	mmuext(&ldt, 1, NULL);
	long rc = HC(__HYPERVISOR_set_gdt, NULL, 0, 0);
	if (rc)
		fail("set_gdt(NULL, 0) to drop a GDT", (unsigned long)rc, 0);
	for (unsigned i = 0; i < NUVM; i++)
		if ((rc = page_rw(uvm_page[i])))
			fail("putting back a remapped page (page, rc)", (unsigned long)uvm_page[i], (unsigned long)rc);
	restore_callbacks();
	nmi_register();

	/* every table unpinned (most were not pinned: refused), then each frame must clear */
	for (unsigned i = 0; i < NSCR; i++)
		mmuext1(MMUEXT_UNPIN_TABLE, W.scr_mfn[i]);
	for (unsigned i = 0; i < W.nr_spare; i++)
		mmuext1(MMUEXT_UNPIN_TABLE, W.spare[i]);
	for (unsigned i = 0; i < MIN(nr_gone, (unsigned)ARRAY_SIZE(gone)); i++)
		mmuext1(MMUEXT_UNPIN_TABLE, gone[i]);
	for (unsigned i = 0; i < NSCR; i++) {
		if ((rc = mmuext1(MMUEXT_CLEAR_PAGE, W.scr_mfn[i])))
			fail("a scratch frame cannot be cleared: a reference leaked? (frame, rc)", W.scr_mfn[i],
			     (unsigned long)rc);
		if ((rc = mmu_update1(((uint64_t)W.scr_mfn[i] << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE,
				      (uint64_t)(uintptr_t)scr[i] >> PAGE_SHIFT)))
			fail("putting a scratch frame's m2p entry back (frame, rc)", W.scr_mfn[i], (unsigned long)rc);
	}
	close_ports();
}

static void batch_check(void)
{
	check_guard();
	check_live_tables();
	check_m2p();

	long v = hypercall_xen_version(XENVER_version, NULL);
	if (v != version_baseline)
		fail("xen_version changed its answer", (unsigned long)v, (unsigned long)version_baseline);
	static const char line[] = "hcfuzz: console_io still works\n";
	long c = console_io_write(line, sizeof(line) - 1);
	if (c != console_baseline)
		fail("console_io write changed its answer", (unsigned long)c, (unsigned long)console_baseline);

	/* an event to ourselves must arrive through our callback */
	unsigned long seen = events_seen[W.ipi];
	ipi_pending();
	events_enable();
	events_disable();
	if (events_seen[W.ipi] == seen)
		fail("an event sent to ourselves did not arrive (port, upcalls)", W.ipi, events_upcalls);

	uint64_t now = pvclock_ns();
	if (now <= last_clock)
		fail("the pvclock did not advance (now, before)", now, last_clock);
	last_clock = now;
}

/* Build a few valid tables among the scratch frames, so that random updates meet real ones. */
static void batch_begin(void)
{
	unsigned s4 = (unsigned)below(NSCR), s3 = (unsigned)below(NSCR), s2 = (unsigned)below(NSCR),
		 s1 = (unsigned)below(NSCR);

	if (s4 == s3 || s3 == s2 || s2 == s1 || s4 == s2 || s4 == s1 || s3 == s1)
		return;
#ifdef __i386__
	/* PAE: an L3 of 4 slots on top (s4 stays unused) */
	mmu_update_t r[3] = {
		{ pte(W.scr_mfn[s1], 0) + below(512) * 8, pte(W.guard_mfn[below(GUARD_PAGES)], PTE_RO_FLAGS) },
		{ pte(W.scr_mfn[s2], 0) + below(512) * 8, pte(W.scr_mfn[s1], PDE_FLAGS) },
		{ pte(W.scr_mfn[s3], 0) + below(4) * 8, pte(W.scr_mfn[s2], PDE_FLAGS) },
	};
	long rc = mmu_update(r, 3, NULL), prc = 1;
	if (rc == 0 && chance(70))
		prc = pin(3, scr[s3]);
	if (trace && callno >= trace_from)
		printf("  batch %lu: scratch L3 %#lx -> L2 %#lx -> L1 %#lx: %ld, pinned %ld\n", nr_batches,
		       W.scr_mfn[s3], W.scr_mfn[s2], W.scr_mfn[s1], rc, prc);
#else
	mmu_update_t r[4] = {
		{ pte(W.scr_mfn[s1], 0) + below(512) * 8, pte(W.guard_mfn[below(GUARD_PAGES)], PTE_RO_FLAGS) },
		{ pte(W.scr_mfn[s2], 0) + below(512) * 8, pte(W.scr_mfn[s1], PDE_FLAGS) },
		{ pte(W.scr_mfn[s3], 0) + below(512) * 8, pte(W.scr_mfn[s2], PDE_FLAGS) },
		{ pte(W.scr_mfn[s4], 0) + below(256) * 8, pte(W.scr_mfn[s3], PDE_FLAGS) },
	};
	long rc = mmu_update(r, 4, NULL), prc = 1;
	if (rc == 0 && chance(70))
		prc = pin(4, scr[s4]);
	if (trace && callno >= trace_from)
		printf("  batch %lu: scratch L4 %#lx -> L3 %#lx -> L2 %#lx -> L1 %#lx: %ld, pinned %ld\n", nr_batches,
		       W.scr_mfn[s4], W.scr_mfn[s3], W.scr_mfn[s2], W.scr_mfn[s1], rc, prc);
#endif
}

/*
 * The frame set_gdt gets as "our read-only text": a page of the read-only text that runs
 * nothing. Validating a frame as a descriptor page rewrites every descriptor before the first
 * bad one (its DPL fixed up) even when the page is then refused, as Xen's validate_segdesc_page
 * does; handed the frame of code we run, that rewrote an instruction of ours (with main.o linked
 * before gen.o, record()'s "xor %edx,%edx" became "xor %esi,%edx" and the guest crashed). A
 * copy of our first text page at setup, so that it looks like code.
 */
__asm__(".pushsection .text.decoy, \"ax\", @progbits\n"
	".balign 4096\n"
	".globl gdt_decoy\n"
	"gdt_decoy:\n"
	".fill 4096, 1, 0\n"
	".popsection");

static void setup(void)
{
	long rc;

	/* our text (and the read-only data before the title) read-only: "the kernel image" */
	W.text_va = (unsigned long)_image_start;
	W.text_end = (unsigned long)test_title & ~(PAGE_SIZE - 1);
	memcpy(gdt_decoy, (const void *)W.text_va, PAGE_SIZE);
	for (unsigned long va = W.text_va; va < W.text_end; va += PAGE_SIZE)
		if ((rc = hypercall_update_va_mapping(va, pte_of((void *)va, PTE_RO_FLAGS), UVMF_INVLPG)))
			test_fail("making our text read-only: %ld %s", rc, errno_name(rc));

	/* the window: W2 reads W1's frame, read-only; W3 and S1 unmapped */
	if ((rc = hypercall_update_va_mapping((unsigned long)win[2], pte_of(win[1], PTE_RO_FLAGS), UVMF_INVLPG)) ||
	    (rc = hypercall_update_va_mapping((unsigned long)win[3], 0, UVMF_INVLPG)) ||
	    (rc = hypercall_update_va_mapping((unsigned long)sink[1], 0, UVMF_INVLPG)))
		test_fail("setting up the argument window: %ld %s", rc, errno_name(rc));

	for (unsigned i = 0; i < NSCR; i++) {
		W.scr_mfn[i] = virt_to_mfn(scr[i]);
		if ((rc = page_ro(scr[i])))
			test_fail("making a scratch frame read-only: %ld %s", rc, errno_name(rc));
	}
	for (unsigned i = 0; i < NUVM; i++)
		if ((rc = page_rw(uvm_page[i])))
			test_fail("mapping a remappable page: %ld %s", rc, errno_name(rc));
	for (unsigned i = 0; i < NSPARE0; i++) {
		spare_add(virt_to_mfn(spare_page[i]));
		if ((rc = hypercall_update_va_mapping((unsigned long)spare_page[i], 0, UVMF_INVLPG)))
			test_fail("unmapping a spare page: %ld %s", rc, errno_name(rc));
	}
	uint64_t *g = (uint64_t *)guard;
	for (uint64_t i = 0; i < GUARD_PAGES * PAGE_SIZE / 8; i++)
		g[i] = guard_word(i);
	for (unsigned i = 0; i < GUARD_PAGES; i++)
		W.guard_mfn[i] = virt_to_mfn(guard[i]);

	struct xen_machphys_mapping mp;
	if ((rc = hypercall_memory_op(XENMEM_machphys_mapping, &mp)))
		test_fail("XENMEM_machphys_mapping: %ld %s", rc, errno_name(rc));
	W.max_mfn = mp.max_mfn;
	W.min_mfn = ~0ul;
	for (unsigned long pfn = 0; pfn < start_info->nr_pages; pfn++)
		W.min_mfn = MIN(W.min_mfn, pfn_to_mfn(pfn));
	W.m2p_va = mp.v_start;
	W.m2p_bytes = mp.v_end - mp.v_start;
#ifdef __i386__
	/*
	 * What the generators take for unmapped (hcfuzz.h), checked 2 MiB (an L2 entry) at a time:
	 * nothing from NOMAP_START up to the hole, and in the hole nothing past the compat m2p's
	 * mapping (W.hole_free) up to 4 GiB.
	 */
	const uint64_t l2_span = 1ull << (PAGE_SHIFT + 9);
	int lvl;
	for (uint64_t va = NOMAP_START; va < HOLE_START; va += l2_span)
		if (pt_lookup((unsigned long)va, &lvl) || lvl < 2)
			test_fail("something is mapped at %#llx, where hcfuzz takes nothing to be", (unsigned long long)va);
	if (W.m2p_va != HOLE_START)
		test_fail("the m2p is at %#lx, not at the hole's start", W.m2p_va);
	uint64_t va = HOLE_START;
	while (va < HOLE_END && (pt_lookup((unsigned long)va, &lvl) || lvl < 2))
		va += l2_span;
	W.hole_free = va;
	for (; va < HOLE_END; va += l2_span)
		if (pt_lookup((unsigned long)va, &lvl) || lvl < 2)
			test_fail("the hypervisor's range is mapped at %#llx, past the m2p's end %#llx", (unsigned long long)va,
				  (unsigned long long)W.hole_free);
	if (W.hole_free > HOLE_END - l2_span)
		test_fail("the m2p fills the hypervisor's range: nothing unmapped there");
	printf("hcfuzz: 32-bit: the compat m2p is mapped at %#lx-%#llx, nothing past it\n", W.m2p_va,
	       (unsigned long long)W.hole_free - 1);
#endif
	W.shared_mfn = start_info->shared_info >> PAGE_SHIFT;
	W.cons_mfn = start_info->console.domU.mfn;
	W.store_mfn = start_info->store_mfn;
	W.cons_port = start_info->console.domU.evtchn;
	W.store_port = start_info->store_evtchn;

	if ((rc = events_init()))
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	if ((rc = evtchn_bind_ipi(0, &W.ipi)))
		test_fail("binding an IPI to ourselves: %ld %s", rc, errno_name(rc));
	nmi_register();

	walk_live_tables();
	version_baseline = hypercall_xen_version(XENVER_version, NULL);
	console_baseline = console_io_write("hcfuzz: console_io baseline\n", 28);
	last_clock = pvclock_ns();
}

static void report(void)
{
	printf("hcfuzz: per hypercall: calls (direct and in multicall lists), results >0, results <=0 by errno\n");
	for (unsigned op = 0; op <= 64; op++) {
		const struct hist *h = &hist[op];
		char buf[256];
		int n = 0;
		if (!h->calls)
			continue;
		for (int i = 0; i < HIST_SLOTS && h->n[i] && n < (int)sizeof(buf) - 32; i++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s %lu", h->rc[i] ? errno_name(h->rc[i]) : "ok",
				      h->n[i]);
		if (h->other)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " other %lu", h->other);
		printf("  %2u %-29s %6lu  >0 %-5lu%s\n", op, op < 64 ? hc_name(op) : "beyond 63", h->calls, h->pos, buf);
	}
}

void test_main(void)
{
	uint64_t seed = opt("seed", 1), calls = opt("calls", 3000), batch = opt("batch", 64);

	rng = seed;
	trace_from = opt("trace_from", ~0ull);
	trace = opt("trace", 0) != 0 || trace_from != ~0ull;
	if (opt("trace", 0))
		trace_from = 0;
	if (!batch)
		batch = 64;
	printf("hcfuzz: seed=%lu calls=%lu batch=%lu (replay: the same seed and calls)\n", (unsigned long)seed,
	       (unsigned long)calls, (unsigned long)batch);
	setup();
	printf("hcfuzz: %u scratch frames (%#lx-%#lx), %u spare, %u live page tables, our frames from %#lx, IPI port %u, "
	       "console port %u, store port %u\n", NSCR, W.scr_mfn[0], W.scr_mfn[NSCR - 1], W.nr_spare, W.nr_pt,
	       W.min_mfn, W.ipi, W.cons_port, W.store_port);

	while (nr_direct < calls) {
		batch_begin();
		for (uint64_t i = 0; i < batch && nr_direct < calls; i++) {
			struct call c;
			W.now_ns = pvclock_ns();
			gen_begin();
			gen_call(&c, false);
			exec(&c);
		}
		nr_batches++;
		batch_end();
		batch_check();
		if (nr_batches % 16 == 0)
			printf("hcfuzz: %lu calls, %lu batches checked\n", nr_direct, nr_batches);
	}
	report();
	printf("hcfuzz: %lu hypercalls made (%lu direct, %lu multicall entries run), %lu batches checked, %lu NMIs, "
	       "%lu upcalls\n", nr_direct + nr_entries, nr_direct, nr_entries, nr_batches, nmis, events_upcalls);
	check(true, "hcfuzz: seed %lu: the shim survived %lu hypercalls and every check", (unsigned long)seed,
	      nr_direct + nr_entries);
}
