/*
 * spec-msr: the speculation-control MSRs a PV guest gets, against the CPUID bits that offer them
 * (Xen 4.17's msr.c guest_rdmsr/guest_wrmsr and msr_spec_ctrl_valid_bits; the bits of CPUID 7.0
 * EDX and 0x80000008 EBX).
 *
 * A kernel picks its Spectre/SSB mitigations from CPUID and then writes the MSRs: a policy that
 * shows a feature whose MSR faults makes the guest report a protection it does not have; one
 * that hides a working MSR costs it one. The rule checked, for whatever this CPU and L0 offer:
 * SPEC_CTRL reads and writes iff IBRS is offered (Intel's IBRSB or AMD's IBRS), taking IBRS and
 * STIBP always and SSBD (PSFD) only with that feature, any other bit #GP(0); PRED_CMD is
 * write-only, IBPB (bit 0) iff IBRSB or AMD's IBPB; ARCH_CAPABILITIES read-only iff offered;
 * FLUSH_CMD write-only iff L1D_FLUSH; AMD's VIRT_SPEC_CTRL iff VIRT_SSBD, its SSBD bit only.
 * Every write puts the MSR back as it found it.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "probe.h"

const char test_title[] = "spec-msr: SPEC_CTRL, PRED_CMD, FLUSH_CMD, ARCH_CAPABILITIES, VIRT_SPEC_CTRL as CPUID offers them";

#define MSR_SPEC_CTRL           0x48
#define MSR_PRED_CMD            0x49
#define MSR_ARCH_CAPABILITIES   0x10a
#define MSR_FLUSH_CMD           0x10b
#define MSR_VIRT_SPEC_CTRL      0xc001011f

static void pv_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("ud2; .ascii \"xen\"; cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "0"(leaf), "2"(0));
}

/* The access faulted with #GP(0) (true), or went through (false). */
static bool rd_gp(uint32_t msr, uint64_t *v)
{
	unsigned long n = probe_fault.count;

	if (probe_rdmsr(msr, v))
		return false;
	check(probe_fault.count == n + 1 && probe_fault.vector == 13 && probe_fault.error == 0,
	      "rdmsr %#x: the fault is #GP(0) (vector %lu error %#lx)", msr, probe_fault.vector, probe_fault.error);
	return true;
}

static bool wr_gp(uint32_t msr, uint64_t v)
{
	unsigned long n = probe_fault.count;

	if (probe_wrmsr(msr, v))
		return false;
	check(probe_fault.count == n + 1 && probe_fault.vector == 13 && probe_fault.error == 0,
	      "wrmsr %#x: the fault is #GP(0) (vector %lu error %#lx)", msr, probe_fault.vector, probe_fault.error);
	return true;
}

void test_main(void)
{
	uint32_t max, a, b, c, d, l7d = 0, x8b = 0;
	uint64_t v = 0, old = 0;

	pv_cpuid(0, &max, &b, &c, &d);
	if (max >= 7)
		pv_cpuid(7, &a, &b, &c, &l7d);
	pv_cpuid(0x80000000, &max, &b, &c, &d);
	if (max >= 0x80000008)
		pv_cpuid(0x80000008, &a, &x8b, &c, &d);
	bool ibrsb = l7d & (1u << 26), ssbd = l7d & (1u << 31), arch_caps = l7d & (1u << 29);
	bool l1d_flush = l7d & (1u << 28), amd_ibpb = x8b & (1u << 12), amd_ibrs = x8b & (1u << 14);
	bool amd_ssbd = x8b & (1u << 24), virt_ssbd = x8b & (1u << 25);
	bool spec_ctrl = ibrsb || amd_ibrs, ibpb = ibrsb || amd_ibpb, any_ssbd = ssbd || amd_ssbd;
	printf("offered: SPEC_CTRL %d (SSBD %d), IBPB %d, ARCH_CAPABILITIES %d, L1D_FLUSH %d, VIRT_SSBD %d "
	       "(CPUID 7 EDX %#x, 0x80000008 EBX %#x)\n", spec_ctrl, any_ssbd, ibpb, arch_caps, l1d_flush, virt_ssbd,
	       l7d, x8b);

	bool gp = rd_gp(MSR_SPEC_CTRL, &old);
	check(gp == !spec_ctrl, "SPEC_CTRL reads iff IBRS is offered (%s)", gp ? "#GP" : "read");
	if (spec_ctrl && !gp) {
		check(!wr_gp(MSR_SPEC_CTRL, 0), "SPEC_CTRL takes 0");
		check(!wr_gp(MSR_SPEC_CTRL, 3), "SPEC_CTRL takes IBRS|STIBP");
		gp = wr_gp(MSR_SPEC_CTRL, 4);
		check(gp == !any_ssbd, "SPEC_CTRL takes SSBD iff SSBD is offered (%s)", gp ? "#GP" : "taken");
		if (!gp && !rd_gp(MSR_SPEC_CTRL, &v))
			check(v == 4, "SPEC_CTRL reads back SSBD (%#lx)", v);
		check(wr_gp(MSR_SPEC_CTRL, 1u << 3), "SPEC_CTRL refuses reserved bit 3");
		check(!wr_gp(MSR_SPEC_CTRL, old), "SPEC_CTRL takes its old value %#lx back", old);
	} else {
		check(wr_gp(MSR_SPEC_CTRL, 0), "without IBRS, writing SPEC_CTRL is #GP");
	}

	check(rd_gp(MSR_PRED_CMD, &v), "PRED_CMD is write-only");
	gp = wr_gp(MSR_PRED_CMD, 1);
	check(gp == !ibpb, "PRED_CMD takes IBPB iff IBPB is offered (%s)", gp ? "#GP" : "taken");
	check(wr_gp(MSR_PRED_CMD, 2), "PRED_CMD refuses bit 1");

	gp = rd_gp(MSR_ARCH_CAPABILITIES, &v);
	check(gp == !arch_caps, "ARCH_CAPABILITIES reads iff offered (%s)", gp ? "#GP" : "read");
	check(wr_gp(MSR_ARCH_CAPABILITIES, v), "ARCH_CAPABILITIES is read-only");

	gp = wr_gp(MSR_FLUSH_CMD, 1);
	check(gp == !l1d_flush, "FLUSH_CMD takes L1D_FLUSH iff offered (%s)", gp ? "#GP" : "taken");
	check(rd_gp(MSR_FLUSH_CMD, &v), "FLUSH_CMD is write-only");

	gp = rd_gp(MSR_VIRT_SPEC_CTRL, &old);
	check(gp == !virt_ssbd, "VIRT_SPEC_CTRL reads iff VIRT_SSBD is offered (%s)", gp ? "#GP" : "read");
	if (virt_ssbd && !gp) {
		check(!wr_gp(MSR_VIRT_SPEC_CTRL, 4), "VIRT_SPEC_CTRL takes SSBD");
		check(wr_gp(MSR_VIRT_SPEC_CTRL, 1), "VIRT_SPEC_CTRL refuses bit 0");
		check(!wr_gp(MSR_VIRT_SPEC_CTRL, old), "VIRT_SPEC_CTRL takes its old value %#lx back", old);
	}
}
