/*
 * fpu: the guest's virtual CR0.TS (public/xen.h fpu_taskswitch; Xen 4.17's do_fpu_taskswitch,
 * the #NM path in arch/x86/traps.c and the CR0 emulation in pv/emul-priv-op.c).
 *
 * A PV kernel runs in ring 3 and cannot touch CR0, so lazy FPU switching goes through Xen:
 * fpu_taskswitch(1) sets the vCPU's TS, and the next x87/SSE instruction raises #NM, delivered to
 * the guest's handler; delivering it clears the virtual TS (Xen does the clts for the guest), so
 * the instruction runs when the handler returns. fpu_taskswitch(0), the privileged clts (emulated
 * after its #GP) and mov to CR0 without TS clear it; mov from CR0 shows it. Checked: each way
 * of setting and clearing, that the instruction faults exactly when TS is set, and that the fault
 * is #NM at the instruction. A shim that forgets the real CR0.TS behind the virtual one (clts that
 * only clears its bookkeeping) gives the guest #NM it cannot explain: Linux then takes the FPU
 * fault path with its task's state already loaded.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "probe.h"

const char test_title[] = "fpu: fpu_taskswitch, clts, CR0.TS reads and writes, #NM delivery";

#define CR0_TS (1ul << 3)

static long taskswitch(int set)
{
	return HC(__HYPERVISOR_fpu_taskswitch, set, 0, 0);
}

static unsigned long cr0(void)
{
	unsigned long v;

	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

/* Run the x87 probe: true if it ran; if it faulted, check that it was #NM there. */
static bool fpu_runs(const char *when)
{
	unsigned long faults = probe_fault.count;

	if (probe_fnop())
		return true;
	check(probe_fault.count == faults + 1 && probe_fault.vector == 7 && probe_fault.rip == (unsigned long)probe_insn_fnop,
	      "%s: the fault is #NM at the instruction (vector %lu rip %#lx)", when, probe_fault.vector,
	      probe_fault.rip);
	return false;
}

void test_main(void)
{
	check(fpu_runs("at boot"), "at boot, with TS clear, an x87 instruction runs");

	long rc = taskswitch(1);
	check(rc == 0, "fpu_taskswitch(1): %ld %s", rc, errno_name(rc));
	check(cr0() & CR0_TS, "mov from CR0 shows TS after fpu_taskswitch(1): %#lx", cr0());
	check(!fpu_runs("TS set by fpu_taskswitch"), "with TS set, the x87 instruction raises #NM");
	check(!(cr0() & CR0_TS), "delivering #NM cleared TS: CR0 %#lx", cr0());
	check(fpu_runs("after the #NM"), "after the #NM, the instruction runs");

	taskswitch(1);
	rc = taskswitch(0);
	check(rc == 0 && !(cr0() & CR0_TS), "fpu_taskswitch(0) clears TS: %ld, CR0 %#lx", rc, cr0());
	check(fpu_runs("after fpu_taskswitch(0)"), "after fpu_taskswitch(0), the instruction runs");

	taskswitch(1);
	__asm__ volatile("clts");
	check(!(cr0() & CR0_TS), "clts clears TS: CR0 %#lx", cr0());
	check(fpu_runs("after clts"), "after clts, the instruction runs");

	unsigned long v = cr0();
	__asm__ volatile("mov %0, %%cr0" ::"r"(v | CR0_TS));
	check(cr0() & CR0_TS, "mov to CR0 with TS sets it: %#lx", cr0());
	check(!fpu_runs("TS set by mov to CR0"), "then the instruction raises #NM");
	taskswitch(1);
	__asm__ volatile("mov %0, %%cr0" ::"r"(v & ~CR0_TS));
	check(!(cr0() & CR0_TS) && fpu_runs("after mov to CR0"), "mov to CR0 without TS clears it, the instruction runs");
}
