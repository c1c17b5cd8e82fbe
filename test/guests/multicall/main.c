/*
 * multicall: the edges of __HYPERVISOR_multicall (public/xen.h, struct multicall_entry; Xen's
 * common/multicall.c do_multicall and arch/x86/pv/hypercall.c pv_do_multicall_call).
 *
 * multicall(list, nr_calls) runs the entries in order, each as the hypercall entry.op with
 * entry.args, and writes each one's return value into entry.result; the multicall itself
 * returns 0 whatever the entries returned. The rules checked here, as Xen 4.17 has them:
 *  - a failing entry does not stop the batch; an op that is no hypercall (60, 64, a valid number
 *    with bits above 32 set, ~0) gets -ENOSYS in its result and the next entries still run;
 *  - nr_calls is 32 bits (the handler's prototype: unsigned int nr_calls): 2^32 + 1 is one call;
 *  - nr_calls 0 is 0, with no entry read (a NULL list is fine then);
 *  - a list Xen cannot read is -EFAULT (NULL, non-canonical, the hypervisor's range); one it can
 *    read only in part runs the entries it can read, writes their results, then -EFAULT; one it
 *    cannot write (read-only) still runs the first entry, then -EFAULT for its result;
 *  - a multicall inside a multicall is refused with -EINVAL ("Multicall reentry is disallowed",
 *    per vCPU mc_state flag) in that entry's result; the inner list is not run, the outer goes on;
 *  - __HYPERVISOR_iret inside a multicall is not refused: it is done, and ends the list
 *    (pv_do_multicall_call answers mc_exit for it, since XSA-213's multicall rework). Xen's
 *    do_iret takes the iret frame (struct iret_context) at the guest's rsp as the multicall's
 *    SYSCALL left it, so the guest resumes at that frame's rip and rsp with its rax, rcx and r11;
 *    the entries after the iret do not run; the frame's rax is written into the iret entry's
 *    result (best effort) and is the multicall's return value.
 * A shim that gets one of these wrong differs from Xen in what a guest sees; Linux batches its
 * page-table and context-switch work this way, so results landing in the right entries matter.
 *
 * Method: lists in pages of our own (a read-only one, one followed by an unmapped page), side
 * effects a test can see (an IPI port's pending bit, an L1 entry, an event channel bound), and
 * sentinels in the results of entries that must not run.
 *
 * The 32-bit PAE build (pv32) runs the same rules through Xen's compat multicall (common/compat/
 * multicall.c: 32-bit op, result and args) with the 32-bit ABI's forms where they differ: an op
 * with bit 31 set stands for the one with bits above 32 (a 32-bit op has none), the PTE of
 * update_va_mapping is split in two args, the list in the hypervisor's range is its last entry
 * below 4 GiB (above HYPERVISOR_VIRT_START, 0xF5800000; nothing mapped there), the iret
 * frame is compat_iret's (eax, eip, cs, eflags; cs of ring 1). The 2^32 + 1 count, the
 * non-canonical list and iret's rcx/r11 have no 32-bit form and are skipped, each with a line.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"
#include "mm.h"

const char test_title[] = "multicall: results, -ENOSYS entries, nesting, iret, bad lists, counts";

/* an entry's result field is xen_ulong_t: 32 bits in the 32-bit build */
#define SENTINEL ((xen_ulong_t)0x5e5e5e5e5e5e5e5eull)

#ifdef __i386__
/*
 * Xen's compat_iret (arch/x86/pv/iret.c) reads eax, eip, cs and eflags at the guest's esp; to
 * ring 1 it takes no esp/ss and leaves esp 16 bytes higher; a cs of RPL 0 crashes the domain.
 */
struct iret_context {
	uint32_t rax, rip, cs, rflags;
};
#endif
long mc_iret_call(multicall_entry_t *list, unsigned long count, const struct iret_context *f);
extern unsigned long mc_iret_path, mc_iret_rcx, mc_iret_r11;

#ifdef __i386__
/* A check the 32-bit ABI has no form for: said, not counted. */
static void skip32(const char *what, const char *why)
{
	printf("  skip: %s: %s\n", what, why);
}
#endif

static long mc(multicall_entry_t *list, unsigned long count)
{
	return hypercall(__HYPERVISOR_multicall, (unsigned long)list, count, 0, 0, 0);
}

static void fill(multicall_entry_t *list, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		list[i].result = SENTINEL;
}

static multicall_entry_t version_call(void)
{
	return (multicall_entry_t){ .op = __HYPERVISOR_xen_version, .args = { XENVER_version } };
}

static multicall_entry_t send_call(struct evtchn_send *s)
{
	return (multicall_entry_t){ .op = __HYPERVISOR_event_channel_op,
				    .args = { EVTCHNOP_send, (unsigned long)s } };
}

static void clear_pending(evtchn_port_t p)
{
	const unsigned bits = 8 * sizeof(shared_info->evtchn_pending[0]);	/* 32 in the 32-bit build */

	__atomic_fetch_and(&shared_info->evtchn_pending[p / bits], ~(1ul << (p % bits)), __ATOMIC_SEQ_CST);
}

/* An errno's name, or "ok" for a value that is no error (a version number, is_up's 1). */
static const char *err(long v)
{
	return v < 0 ? errno_name(v) : "ok";
}

static long version;            /* xen_version(XENVER_version) called directly */
static evtchn_port_t ipi;       /* an IPI to ourselves: a send shows as its pending bit */

#ifdef __i386__
/* compat_multicall_entry's op is 32 bits (common/compat/multicall.c): its top bit stands in */
#define HIGH_OP (1ul << 31)
/* the compat update_va_mapping takes the 64-bit PAE entry as two args, low half first
 * (compat_update_va_mapping(va, lo, hi, flags), arch/x86/mm.c) */
#define UVM_ARGS(va, pte, fl) { (unsigned long)(va), (uint32_t)(pte), (uint32_t)((pte) >> 32), (fl) }
#else
#define HIGH_OP (1ul << 32)
#define UVM_ARGS(va, pte, fl) { (unsigned long)(va), (pte), (fl) }
#endif

/* 1. a batch of good, failing and unknown entries */
static void batch(void)
{
	struct evtchn_bind_ipi bind = { .vcpu = 0 };
	uint64_t *page = page_alloc();
	multicall_entry_t l[10] = {
		version_call(),
		{ .op = 60 },
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_is_up, 0 } },
		{ .op = 64 },
		{ .op = __HYPERVISOR_event_channel_op, .args = { EVTCHNOP_bind_ipi, (unsigned long)&bind } },
		{ .op = HIGH_OP | __HYPERVISOR_xen_version, .args = { XENVER_version } },
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_is_up, 99 } },
		{ .op = ~0ul },
		{ .op = __HYPERVISOR_update_va_mapping, .args = UVM_ARGS(page, pte_of(page, PTE_RO_FLAGS), UVMF_INVLPG) },
		{ .op = __HYPERVISOR_sched_op, .args = { SCHEDOP_yield } },
	};
	const long want[10] = { version, -XEN_ENOSYS, 1, -XEN_ENOSYS, 0, -XEN_ENOSYS, -XEN_ENOENT, -XEN_ENOSYS, 0, 0 };

	fill(l, 10);
	long rc = mc(l, 10);
	check(rc == 0, "multicall of 10 (good, unknown and failing entries): %ld %s", rc, errno_name(rc));
	for (unsigned i = 0; i < 10; i++)
		check((long)l[i].result == want[i], "  entry %u (op %#lx): %ld %s (want %ld %s)", i, (unsigned long)l[i].op,
		      (long)l[i].result, err((long)l[i].result), want[i], err(want[i]));
	struct evtchn_status st;
	rc = evtchn_status(bind.port, &st);
	check(bind.port && rc == 0 && st.status == EVTCHNSTAT_ipi, "  entry 4 bound IPI port %u (status %u)", bind.port,
	      st.status);
	uint64_t *e = pt_entry((unsigned long)page, 1);
	check(e && l1e_matches(*e, pte_of(page, PTE_RO_FLAGS)), "  entry 8 made its page read-only (%#llx)",
	      e ? (unsigned long long)*e : 0ull);
	page_rw(page);
}

/* 2. nr_calls 0, and nr_calls is 32 bits */
static void counts(multicall_entry_t *edge)
{
	multicall_entry_t l[1] = { version_call() };

	long rc = mc(NULL, 0);
	check(rc == 0, "multicall(NULL, 0): %ld %s", rc, errno_name(rc));
	fill(l, 1);
	rc = mc(l, 0);
	check(rc == 0 && l[0].result == SENTINEL, "multicall(list, 0): %ld %s, the entry not run", rc, errno_name(rc));
#ifdef __i386__
	(void)edge;
	skip32("multicall of 2^32 + 1 entries", "a 32-bit guest passes nr_calls in ecx, which holds no 2^32");
#else
	/* the entry at the end of a page with nothing mapped after it: a second entry cannot be read */
	edge[0] = version_call();
	fill(edge, 1);
	rc = mc(edge, (1ul << 32) | 1);
	check(rc == 0 && (long)edge[0].result == version,
	      "multicall of 2^32 + 1 entries runs 1 (nr_calls is 32 bits): %ld %s, result %ld", rc, errno_name(rc),
	      (long)edge[0].result);
#endif
}

/* 3. lists Xen cannot read, or not all of, or cannot write */
static void bad_lists(multicall_entry_t *edge, multicall_entry_t *ro)
{
	struct evtchn_send s = { .port = ipi };
	long rc = mc(NULL, 1);

	check(rc == -XEN_EFAULT, "multicall(NULL, 1): %ld %s (want -EFAULT)", rc, errno_name(rc));
#ifdef __i386__
	skip32("multicall of a non-canonical list", "a 32-bit address has no non-canonical form");
	/*
	 * The hypervisor's range of a 32-bit guest is HYPERVISOR_VIRT_START (0xF5800000) to 4 GiB:
	 * the compat m2p (read-only) and, past the frames it describes, nothing. Xen's compat
	 * multicall checks the list only with the native guest_handle_okay (array_access_ok: below
	 * 2^47, asm/x86_64/uaccess.h), which no 32-bit address fails, and would read a list in the
	 * m2p; the last entry below 4 GiB is unmapped, so Xen cannot read it: -EFAULT.
	 */
	const unsigned long top = 0xffffffffu - sizeof(multicall_entry_t) + 1;
	if (pt_lookup(top, NULL))
		test_fail("the page at %#lx is mapped: no unmapped hypervisor address to try", top);
	rc = mc((multicall_entry_t *)top, 1);
#else
	rc = mc((multicall_entry_t *)0x8000000000000000ul, 1);
	check(rc == -XEN_EFAULT, "multicall of a non-canonical list: %ld %s (want -EFAULT)", rc, errno_name(rc));
	rc = mc((multicall_entry_t *)0xffff830000000000ul, 1);
#endif
	check(rc == -XEN_EFAULT, "multicall of a list in the hypervisor's range: %ld %s (want -EFAULT)", rc,
	      errno_name(rc));

	clear_pending(ipi);
	edge[0] = send_call(&s);
	fill(edge, 1);
	rc = mc(edge, 2);
	check(rc == -XEN_EFAULT, "multicall of 2 whose second entry is unmapped: %ld %s (want -EFAULT)", rc,
	      errno_name(rc));
	check(edge[0].result == 0 && port_pending(ipi), "  the first ran (the port is pending) and got its result (%ld)",
	      (long)edge[0].result);

	clear_pending(ipi);
	rc = mc(ro, 1);
	check(rc == -XEN_EFAULT, "multicall of a read-only list: %ld %s (want -EFAULT)", rc, errno_name(rc));
	check(port_pending(ipi), "  its entry ran all the same (the port is pending)");
	clear_pending(ipi);
}

/* 4. a multicall inside a multicall */
static void nested(void)
{
	multicall_entry_t inner[2] = { version_call(), version_call() };
	multicall_entry_t outer[3] = {
		version_call(),
		{ .op = __HYPERVISOR_multicall, .args = { (unsigned long)inner, 2 } },
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_is_up, 0 } },
	};

	fill(inner, 2);
	fill(outer, 3);
	long rc = mc(outer, 3);
	check(rc == 0, "multicall holding a multicall: %ld %s", rc, errno_name(rc));
	check((long)outer[1].result == -XEN_EINVAL, "  the inner one is refused: %ld %s (want -EINVAL)",
	      (long)outer[1].result, errno_name((long)outer[1].result));
	check(inner[0].result == SENTINEL && inner[1].result == SENTINEL, "  none of its entries ran");
	check((long)outer[0].result == version && outer[2].result == 1, "  the outer entries before and after ran (%ld, %ld)",
	      (long)outer[0].result, (long)outer[2].result);
}

/* 5. HYPERVISOR_iret as an entry, with a real iret frame on the stack */
static void iret(void)
{
	multicall_entry_t l[3] = {
		version_call(),
		{ .op = __HYPERVISOR_iret },
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_is_up, 0 } },
	};
#ifdef __i386__
	/* back to ring 1 (compat_iret crashes the domain for an RPL 0 cs), IF clear: events stay
	 * masked */
	const struct iret_context f = { .rax = 0x1ecafe, .cs = FLAT_KERNEL_CS, .rflags = 0x2 };
#else
	/* back to kernel mode (an RPL 0 cs, as Xen's own bounce frames), IF clear: events stay masked */
	const struct iret_context f = {
		.rax = 0x1ecafe, .r11 = 0x1111, .rcx = 0x7c7c, .flags = 0,
		.cs = FLAT_KERNEL_CS & ~3ul, .rflags = 0x2, .ss = FLAT_KERNEL_SS,
	};
#endif

	fill(l, 3);
	long rc = mc_iret_call(l, 3, &f);
	check(mc_iret_path == 2, "iret inside a multicall: we resume at the iret frame's rip (not after the "
	      "multicall's SYSCALL)");
	check(rc == (long)f.rax, "  with the frame's rax (%#lx, want %#lx)", rc, (unsigned long)f.rax);
#ifdef __i386__
	skip32("  and its rcx and r11", "compat_iret's frame has neither (nor flags): eax, eip, cs, eflags");
#else
	check(mc_iret_path != 2 || (mc_iret_rcx == f.rcx && mc_iret_r11 == f.r11),
	      "  and its rcx and r11 (%#lx %#lx), flags 0: not back from a syscall", mc_iret_rcx, mc_iret_r11);
#endif
	check((long)l[0].result == version, "  the entry before it ran (%ld)", (long)l[0].result);
	check(l[1].result == f.rax, "  the iret entry's result is the frame's rax (%#lx)", (unsigned long)l[1].result);
	check(l[2].result == SENTINEL, "  the entry after it did not run (%#lx)", (unsigned long)l[2].result);
	check(shared_info->vcpu_info[0].evtchn_upcall_mask == 1, "  events are still masked (the frame's IF was clear)");
}

void test_main(void)
{
	version = hypercall_xen_version(XENVER_version, NULL);
	check(version > 0, "xen_version: %#lx", version);
	long rc = evtchn_bind_ipi(0, &ipi);
	if (rc)
		test_fail("bind_ipi: %ld %s", rc, errno_name(rc));

	/* two pages side by side: the first ends in an entry, the second is unmapped */
	char *pair = page_alloc();
	if ((char *)page_alloc() != pair + PAGE_SIZE)
		test_fail("the pool's pages are not contiguous");
	multicall_entry_t *edge = (multicall_entry_t *)(pair + PAGE_SIZE) - 1;
	/* a read-only list: one send, made before the page goes read-only */
	static struct evtchn_send ro_send;
	multicall_entry_t *ro = page_alloc();
	ro_send.port = ipi;
	ro[0] = send_call(&ro_send);
	ro[0].result = SENTINEL;
	rc = hypercall_update_va_mapping((unsigned long)(pair + PAGE_SIZE), 0, UVMF_INVLPG);
	if (rc || page_ro(ro))
		test_fail("setup: unmapping a page: %ld %s", rc, errno_name(rc));

	batch();
	counts(edge);
	bad_lists(edge, ro);
	nested();
	iret();
}
