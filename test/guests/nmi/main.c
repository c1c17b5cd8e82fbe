/*
 * nmi: virtual NMIs of a PV vCPU, and hlt from the guest kernel (public/vcpu.h VCPUOP_send_nmi,
 * public/callback.h CALLBACKTYPE_nmi, public/nmi.h; Xen 4.17's arch/x86/pv/callback.c,
 * arch/x86/x86_64/entry.S process_nmi, arch/x86/pv/iret.c).
 *
 * A PV domU's only NMIs are the ones it sends itself: Linux's NMI IPIs (backtraces, the crash
 * path) become VCPUOP_send_nmi. The rules checked, as Xen 4.17 has them:
 *  - send_nmi takes no argument: a non-NULL one is -EINVAL; a vCPU the domain lacks is -ENOENT;
 *  - the handler is trap-table vector 2: CALLBACKOP_register(nmi) and nmi_op(XENNMI_register_
 *    callback) write it as an interrupt gate (events masked on entry), set_trap_table may write it
 *    without that flag (then entry leaves the event mask as it was); a non-canonical address is
 *    -EINVAL; unregistering clears it, and an NMI sent then is dropped, not kept for later;
 *  - an NMI sent to oneself is delivered on the way back from that hypercall, on the frame
 *    [rcx, r11, rip, cs, rflags, rsp, ss] with rip right after the syscall, the event mask
 *    ignored (it comes in with events masked too) and the old mask in the cs slot's bits 32-39;
 *  - delivery masks NMIs until the next iret hypercall: an NMI sent inside the handler waits for
 *    the handler's iret, and sends while one is pending coalesce into one;
 *  - an NMI and an event both pending when a hypercall ends: the NMI goes first (process_nmi runs
 *    before test_guest_events), the event after the NMI handler's iret. A multicall [send_nmi,
 *    send IPI] makes them so; the other order does not, on Xen: its multicall stops between
 *    entries for an event to deliver (hypercall_preempt_check) and is then continued, so that
 *    event comes before the NMI is even sent.
 * hlt from the guest kernel is not emulated by Xen 4.17 for PV guests (emul-priv-op.c's validate()
 * does not list it): the guest gets #GP(0) at the hlt, and a shim that blocked instead would let
 * a kernel that hlts by mistake hang where Xen reports it. Linux idles with SCHEDOP_block.
 *
 * The 32-bit PAE build (pv32) checks the same with a ring-1 kernel: send_nmi by int 0x82, the
 * handler registered as cs:eip (compat_register_guest_callback; Xen puts FLAT_COMPAT_KERNEL_CS in
 * the trap table itself), the NMI frame compat_create_bounce_frame's [eip, cs, eflags] with the
 * old mask in bits 16-23 of the cs slot, left through compat_iret (x86_32/entry.S). A 32-bit
 * address is always canonical, so register_guest_nmi_callback's -EINVAL cannot happen there: those
 * two checks are skipped, each with a line.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "probe.h"
#include "traps.h"

const char test_title[] = "nmi: VCPUOP_send_nmi, NMI handler registration, masking until iret, hlt";

#ifdef __i386__
/* compat_create_bounce_frame: the saved upcall mask is in bits 16-23 of the cs slot */
#define CS_MASK_SHIFT 16
#else
#define NONCANONICAL 0x0000800000000000ul
/* create_bounce_frame: the saved upcall mask is in bits 32-39 of the cs slot */
#define CS_MASK_SHIFT 32
#endif
#define SAVED_MASK(cs) (((cs) >> CS_MASK_SHIFT) & 0xff)

extern char nmi_send_ret[];
long nmi_send(unsigned vcpu, void *arg);        /* VCPUOP_send_nmi; returns at nmi_send_ret */

/* What the handler saw. */
static volatile unsigned long nmis;
static volatile unsigned long last_rip, last_cs, last_mask_at_entry, last_upcalls_at_entry;
static void (*volatile hook)(void);     /* run inside the next handler, then cleared */

void nmi_handler(const uint64_t *frame)
{
	nmis++;
	last_rip = frame[0];
	last_cs = frame[1];
	last_mask_at_entry = shared_info->vcpu_info[0].evtchn_upcall_mask;
	last_upcalls_at_entry = events_upcalls;
	void (*h)(void) = hook;
	hook = NULL;
	if (h)
		h();
}

static long callback_nmi(bool reg, unsigned long address)
{
	if (reg) {
		struct callback_register c = { .type = CALLBACKTYPE_nmi };
#ifdef __i386__
		/* a 32-bit guest's callbacks are cs:eip (compat_register_guest_callback) */
		c.address.cs = FLAT_KERNEL_CS;
		c.address.eip = address;
#else
		c.address = address;
#endif
		return HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &c, 0);
	}
	struct callback_unregister u = { .type = CALLBACKTYPE_nmi };
	return HC(__HYPERVISOR_callback_op, CALLBACKOP_unregister, &u, 0);
}

static long nmi_op(unsigned cmd, unsigned long address)
{
	struct xennmi_callback cb = { .handler_address = address };
	return HC(__HYPERVISOR_nmi_op, cmd, &cb, 0);
}

static void arguments(void)
{
	unsigned long junk = 0;
	long rc = nmi_send(0, &junk);
	check(rc == -XEN_EINVAL, "send_nmi with a non-NULL argument: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = nmi_send(1, NULL);
	check(rc == -XEN_ENOENT, "send_nmi to vCPU 1 of a 1-vCPU domain: %ld %s (want -ENOENT)", rc, errno_name(rc));
#ifdef __i386__
	printf("skip: CALLBACKOP_register(nmi) at a non-canonical address: a 32-bit address has no "
	       "non-canonical form (register_guest_nmi_callback's only check)\n");
	printf("skip: nmi_op register at a non-canonical address: the same\n");
#else
	rc = callback_nmi(true, NONCANONICAL);
	check(rc == -XEN_EINVAL, "CALLBACKOP_register(nmi) at a non-canonical address: %ld %s (want -EINVAL)",
	      rc, errno_name(rc));
	rc = nmi_op(XENNMI_register_callback, NONCANONICAL);
	check(rc == -XEN_EINVAL, "nmi_op register at a non-canonical address: %ld %s (want -EINVAL)", rc, errno_name(rc));
#endif
	rc = nmi_op(7, 0);
	check(rc == -XEN_ENOSYS, "nmi_op with an unknown command: %ld %s (want -ENOSYS)", rc, errno_name(rc));
}

/* With no handler an NMI is dropped, and registering one later does not bring it back. */
static void unregistered(void)
{
	long rc = callback_nmi(false, 0);
	check(rc == 0, "CALLBACKOP_unregister(nmi): %ld %s", rc, errno_name(rc));
	rc = nmi_send(0, NULL);
	check(rc == 0, "send_nmi to ourselves with no handler: %ld %s", rc, errno_name(rc));
	rc = callback_nmi(true, (unsigned long)nmi_entry);
	check(rc == 0, "CALLBACKOP_register(nmi): %ld %s", rc, errno_name(rc));
	hypercall_xen_version(XENVER_version, NULL);
	check(nmis == 0, "the NMI sent with no handler was dropped: %lu deliveries", nmis);
}

static void basic(void)
{
	unsigned long before = nmis;
	events_disable();
	long rc = nmi_send(0, NULL);
	unsigned long after = nmis;
	check(rc == 0 && after == before + 1, "send_nmi to ourselves with events masked: %ld %s, delivered %lu time(s)",
	      rc, errno_name(rc), after - before);
	check(last_rip == (unsigned long)nmi_send_ret, "its frame's rip is right after the hypercall: %#lx (want %#lx)",
	      last_rip, (unsigned long)nmi_send_ret);
	check((last_cs & 0xfffc) == (FLAT_KERNEL_CS & 0xfffc), "its frame's cs is the kernel's: %#lx", last_cs & 0xffff);
	check(SAVED_MASK(last_cs) == 1, "the cs slot keeps the old event mask (1): %lu", SAVED_MASK(last_cs));
	check(last_mask_at_entry == 1, "the handler runs with events masked: mask %lu", last_mask_at_entry);

	events_enable();
	before = nmis;
	rc = nmi_send(0, NULL);
	after = nmis;
	bool masked_after = shared_info->vcpu_info[0].evtchn_upcall_mask;
	check(rc == 0 && after == before + 1, "send_nmi with events enabled: delivered %lu time(s)", after - before);
	check(SAVED_MASK(last_cs) == 0 && last_mask_at_entry == 1,
	      "old mask 0 in the cs slot (%lu), events masked in the handler (%lu)", SAVED_MASK(last_cs),
	      last_mask_at_entry);
	check(!masked_after, "the handler's iret put events back on");
}

static volatile unsigned long nmis_inside;
static void send_inside(void)
{
	long rc = nmi_send(0, NULL);
	nmis_inside = rc ? ~0ul : nmis;
}

static void send_twice_inside(void)
{
	long a = nmi_send(0, NULL), b = nmi_send(0, NULL);
	nmis_inside = a || b ? ~0ul : nmis;
}

/* Delivery masks NMIs until the handler's iret; a pending NMI is one bit. */
static void masking(void)
{
	unsigned long before = nmis;
	hook = send_inside;
	nmi_send(0, NULL);
	check(nmis_inside == before + 1, "an NMI sent inside the handler is not nested: %lu deliveries when its send "
	      "returned (want 1)", nmis_inside - before);
	check(nmis == before + 2, "it is delivered after the handler's iret: %lu deliveries in all (want 2)",
	      nmis - before);
	check(last_rip == (unsigned long)nmi_send_ret, "on top of the interrupted code (rip %#lx)", last_rip);

	before = nmis;
	hook = send_twice_inside;
	nmi_send(0, NULL);
	check(nmis_inside == before + 1 && nmis == before + 2,
	      "two NMIs sent inside the handler coalesce: %lu deliveries in all (want 2)", nmis - before);
}

/* An NMI and an event pending at the same return: the NMI first. */
static void ordering(void)
{
	evtchn_port_t ipi;
	long rc = evtchn_bind_ipi(0, &ipi);
	check(rc == 0, "bind an IPI: %ld %s", rc, errno_name(rc));
	if (rc)
		return;
	events_enable();
	struct evtchn_send s = { .port = ipi };
	multicall_entry_t l[2] = {
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_send_nmi, 0, 0 } },
		{ .op = __HYPERVISOR_event_channel_op, .args = { EVTCHNOP_send, (unsigned long)&s } },
	};
	unsigned long n0 = nmis, u0 = events_upcalls, seen0 = events_seen[ipi];
	rc = multicall(l, 2);
	check(rc == 0 && l[0].result == 0 && l[1].result == 0, "multicall [send_nmi, send IPI]: %ld, %ld, %ld", rc,
	      (long)l[0].result, (long)l[1].result);
	check(nmis == n0 + 1 && last_upcalls_at_entry == u0,
	      "the NMI went first: %lu upcall(s) before its handler (want 0)", last_upcalls_at_entry - u0);
	check(events_seen[ipi] == seen0 + 1, "the event came after it: seen %lu time(s)", (unsigned long)(events_seen[ipi] - seen0));
	evtchn_close(ipi);
}

/* set_trap_table's vector 2 without the interrupt-gate flag; nmi_op registers and unregisters. */
static void other_registrations(void)
{
	struct trap_info t[2] = { { 2, 0, FLAT_KERNEL_CS, (unsigned long)nmi_entry }, { 0, 0, 0, 0 } };
	long rc = hypercall_set_trap_table(t);
	check(rc == 0, "set_trap_table with vector 2 (no event masking): %ld %s", rc, errno_name(rc));
	events_enable();
	unsigned long before = nmis;
	nmi_send(0, NULL);
	check(nmis == before + 1 && last_mask_at_entry == 0,
	      "an NMI through the trap table: delivered %lu, events left on in the handler (mask %lu)", nmis - before,
	      last_mask_at_entry);

	rc = nmi_op(XENNMI_register_callback, (unsigned long)nmi_entry);
	check(rc == 0, "nmi_op XENNMI_register_callback: %ld %s", rc, errno_name(rc));
	before = nmis;
	nmi_send(0, NULL);
	check(nmis == before + 1 && last_mask_at_entry == 1,
	      "an NMI through nmi_op's callback: delivered %lu, events masked in the handler (mask %lu)", nmis - before,
	      last_mask_at_entry);
	rc = nmi_op(XENNMI_unregister_callback, 0);
	check(rc == 0, "nmi_op XENNMI_unregister_callback: %ld %s", rc, errno_name(rc));
	before = nmis;
	nmi_send(0, NULL);
	hypercall_xen_version(XENVER_version, NULL);
	check(nmis == before, "after unregistering, an NMI is dropped: %lu deliveries", nmis - before);
	callback_nmi(true, (unsigned long)nmi_entry);
}

static void hlt(void)
{
	/* a shim that took hlt as block must come back: a timer event 100 ms on */
	set_timer_op(pvclock_ns() + 100000000ull);
	unsigned long faults = probe_fault.count;
	bool ran = probe_hlt();
	check(!ran && probe_fault.count == faults + 1, "hlt in the guest kernel faults (%s)",
	      ran ? "it returned" : "it faulted");
	if (!ran)
		check(probe_fault.vector == 13 && probe_fault.error == 0 &&
		      probe_fault.rip == (unsigned long)probe_insn_hlt,
		      "with #GP(0) at the hlt: vector %lu error %#lx rip %#lx (hlt at %#lx)", probe_fault.vector,
		      probe_fault.error, probe_fault.rip, (unsigned long)probe_insn_hlt);
	set_timer_op(0);
}

void test_main(void)
{
	long rc = events_init();
	if (rc)
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	arguments();
	unregistered();
	basic();
	masking();
	ordering();
	other_registrations();
	hlt();
}
