/*
 * userpriv: what the guest's user mode may not do through the hypervisor's emulation.
 *
 * A PV kernel is deprivileged, so its privileged instructions (mov to and from CR0, CR3, DR7,
 * rdmsr, clts, wbinvd, port I/O under the virtual IOPL) fault into the hypervisor, which
 * emulates them for the kernel. The same instruction from the guest's user mode must stay the
 * #GP(0) it is, at the instruction, or a process could read the kernel's page-table base, load
 * debug registers or MSRs: Xen's emulator runs with the guest's CPL (pv_emul_cpl: 3 in user
 * mode) and its iopl_ok counts user mode as ring 3 against the virtual IOPL (PHYSDEVOP_set_iopl),
 * the kernel as ring 1. Which mode the guest is in differs by width: a 64-bit kernel runs in
 * ring 3 as its processes do, so the vCPU keeps the mode; a 32-bit kernel is ring 1 and its user
 * mode ring 3 (guest_kernel_mode: the ring of the frame). Checked from user mode, each run ending
 * in the fault or not: mov from CR0, CR3 and DR7, rdmsr of EFER and clts are #GP(0) at the
 * instruction; inb is #GP(0) with the virtual IOPL 0 and 1, and runs (reading all ones) with 3,
 * where the kernel's inb runs from IOPL 1 on. The kernel's cli and sti under the IOPL run and
 * change nothing: Xen's emulator skips them (validate: setting the event mask was "just too
 * dangerous", a popf could never undo it), so the mask is as before each. (Not wbinvd, which the shim also emulates for the
 * kernel: QEMU 10's TCG, which runs our shim standalone, lets ring 3 execute it.)
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "events.h"
#include "user.h"

const char test_title[] = "userpriv: privileged instructions from the guest's user mode stay #GP(0)";

static volatile unsigned long sink;

/* One privileged instruction each, at a global label (<name>_at) the fault's rip is checked
 * against. noinline, noclone: each label exists once. */
#define USER_OP(name, insn, ...)                                                               \
	extern char name##_at[];                                                               \
	static __attribute__((noinline, noclone)) void name(void)                              \
	{                                                                                      \
		unsigned long v = 0;                                                           \
		__asm__ volatile(".globl " #name "_at\n" #name "_at: " insn : __VA_ARGS__);     \
		sink = v;                                                                      \
	}

USER_OP(op_cr0, "mov %%cr0, %0", "=r"(v))
USER_OP(op_cr3, "mov %%cr3, %0", "=r"(v))
USER_OP(op_dr7, "mov %%db7, %0", "=r"(v))
USER_OP(op_clts, "clts", "+r"(v))
USER_OP(op_inb, "inb $0x80, %%al", "+a"(v))

extern char op_rdmsr_at[];
static __attribute__((noinline, noclone)) void op_rdmsr(void)
{
	uint32_t lo, hi;

	__asm__ volatile(".globl op_rdmsr_at\nop_rdmsr_at: rdmsr" : "=a"(lo), "=d"(hi) : "c"(0xc0000080u));
	sink = lo ^ hi;
}

static long set_iopl(unsigned int iopl)
{
	struct physdev_set_iopl s = { .iopl = iopl };

	return HC(__HYPERVISOR_physdev_op, PHYSDEVOP_set_iopl, &s, 0);
}

static const char *outcome(unsigned long r)
{
	static char buf[64];

	if (!r)
		return "ran";
#ifdef __i386__
	snprintf(buf, sizeof(buf), "vector %lu error %#lx at %#lx", (r >> 16) & 0xff, r & 0xffff, user_fault_rip);
#else
	snprintf(buf, sizeof(buf), "vector %lu error %#lx at %#lx", (r >> 32) & 0xff, r & 0xffffffff, user_fault_rip);
#endif
	return buf;
}

static void expect_gp(void (*fn)(void), const char *at, const char *what)
{
	unsigned long r = user_run(fn);

	check(r == USER_FAULT(13, 0) && user_fault_rip == (unsigned long)at,
	      "%s in user mode: #GP(0) at the instruction %p (%s)", what, at, outcome(r));
}

static unsigned long kernel_inb(void)
{
	unsigned long v = 0;

	__asm__ volatile("inb $0x80, %%al" : "+a"(v));
	return v & 0xff;
}

void test_main(void)
{
	long rc = events_init();
	if (rc)
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	user_init();
	expect_gp(op_cr0, op_cr0_at, "mov from CR0");
	expect_gp(op_cr3, op_cr3_at, "mov from CR3");
	expect_gp(op_dr7, op_dr7_at, "mov from DR7");
	expect_gp(op_rdmsr, op_rdmsr_at, "rdmsr of EFER");
	expect_gp(op_clts, op_clts_at, "clts");

	for (unsigned int iopl = 0; iopl <= 3; iopl++) {
		long rc = set_iopl(iopl);
		check(rc == 0, "PHYSDEVOP_set_iopl %u: %ld %s", iopl, rc, errno_name(rc));
		if (iopl >= 1) {
			check(kernel_inb() == 0xff, "  the kernel's inb runs at IOPL %u (reads all ones)", iopl);
			struct vcpu_info *vi = &shared_info->vcpu_info[0];
			events_enable();
			__asm__ volatile("cli" ::: "memory");
			unsigned int after_cli = vi->evtchn_upcall_mask;
			events_disable();
			__asm__ volatile("sti" ::: "memory");
			unsigned int after_sti = vi->evtchn_upcall_mask;
			check(after_cli == 0 && after_sti == 1,
			      "  the kernel's cli and sti run and leave the event mask alone (%u after cli, want 0; %u after sti, want 1)",
			      after_cli, after_sti);
		}
		if (iopl < 3) {
			char what[48];
			snprintf(what, sizeof(what), "inb with the virtual IOPL %u", iopl);
			expect_gp(op_inb, op_inb_at, what);
		} else {
			sink = 0;
			unsigned long r = user_run(op_inb);
			check(r == 0 && (sink & 0xff) == 0xff, "inb with the virtual IOPL 3 in user mode runs and reads %#lx (%s)",
			      sink & 0xff, outcome(r));
		}
	}
	set_iopl(0);
}
