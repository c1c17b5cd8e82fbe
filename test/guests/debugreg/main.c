/*
 * debugreg: `mov` to and from the debug registers, which a 64-bit PV kernel (ring 3) cannot
 * execute, so the hypervisor emulates it (Xen 4.17's pv/emul-priv-op.c read_dr/write_dr, with
 * x86emul_read_dr and pv/misc-hypercalls.c set_debugreg behind them; public/xen.h set_debugreg).
 *
 * The instruction follows the hypercall's rules: DR0-3 take guest addresses only (a hypervisor
 * address is refused: #GP), DR6 and DR7 take 32-bit values (#GP above), DR7 may not enable
 * general detect or I/O breakpoints (#GP); DR4 and DR5 are DR6 and DR7 while the guest's CR4.DE
 * is clear and do not exist (#UD) while it is set; what the instruction writes, the hypercall
 * reads, and the other way round; reserved bits read as the CPU has them (DR6 0xffff0ff0 set,
 * DR7 bit 10 set). A shim that emulates only the hypercalls gives a kernel that programs its
 * debug registers directly (Linux's native hw_breakpoint paths, kgdb) a #GP it cannot explain.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "cregs.h"
#include "guest.h"
#include "probe.h"

const char test_title[] = "debugreg: mov to and from DR0-7 emulated with set_debugreg's rules";

#define CR4_DE (1ul << 3)
#define GD     (1ul << 13)

static char site[16];

/* The last probe faulted with vector v at the probe's instruction. */
static bool faulted(unsigned long before, unsigned long v, const char *insn)
{
	return probe_fault.count == before + 1 && probe_fault.vector == v && probe_fault.rip == (unsigned long)insn;
}

void test_main(void)
{
	uint64_t v = 0, w = 0;
	unsigned long n;

	/* DR0: an address of ours, by the instruction; the hypercall reads the same */
	bool ok = probe_dr_write0((uint64_t)site);
	check(ok, "mov %%rdi, %%db0 with a guest address (%p) is emulated", (void *)site);
	ok = probe_dr_read0(&v);
	long hv = HC(__HYPERVISOR_get_debugreg, 0, 0, 0);
	check(ok && v == (uint64_t)site && hv == (long)site, "mov %%db0 reads %#lx, get_debugreg %#lx (want %p)",
	      (unsigned long)v, hv, (void *)site);
	long rc = HC(__HYPERVISOR_set_debugreg, 0, 0x1000, 0);
	ok = probe_dr_read0(&v);
	check(rc == 0 && ok && v == 0x1000, "after set_debugreg(0, 0x1000): mov %%db0 reads %#lx", (unsigned long)v);

	/* DR0 with a hypervisor address: #GP, and the register keeps its value */
	n = probe_fault.count;
	ok = probe_dr_write0(0xffff800000001000ul);
	check(!ok && faulted(n, 13, probe_insn_dr_write0) && probe_fault.error == 0,
	      "mov of a hypervisor address to DR0: #GP(0) (vector %lu error %#lx)", probe_fault.vector, probe_fault.error);
	probe_dr_read0(&v);
	check(v == 0x1000, "DR0 kept %#lx", (unsigned long)v);
	probe_dr_write0(0);

	/* DR7: an enable is taken; general detect is #GP; the upper half is #GP */
	ok = probe_dr_write7(0);
	check(ok, "mov 0 to DR7 is emulated");
	n = probe_fault.count;
	ok = probe_dr_write7(GD);
	check(!ok && faulted(n, 13, probe_insn_dr_write7), "mov of DR7.GD: #GP (vector %lu)", probe_fault.vector);
	n = probe_fault.count;
	ok = probe_dr_write7(1ul << 32);
	check(!ok && faulted(n, 13, probe_insn_dr_write7), "mov of a 64-bit value to DR7: #GP (vector %lu)",
	      probe_fault.vector);
	ok = probe_dr_read7(&v);
	check(ok && (v & 0xffffffff00000000ul) == 0 && (v & 0x400) && !(v & 0xff),
	      "mov %%db7 reads %#lx: bit 10 set, nothing enabled", (unsigned long)v);
	n = probe_fault.count;
	ok = probe_dr_write6(1ul << 32);
	check(!ok && faulted(n, 13, probe_insn_dr_write6), "mov of a 64-bit value to DR6: #GP (vector %lu)",
	      probe_fault.vector);
	ok = probe_dr_write6(0);
	ok = ok && probe_dr_read6(&v);
	check(ok && (v & 0xffff0ff0) == 0xffff0ff0, "DR6 after writing 0 reads %#lx (0xffff0ff0 set)", (unsigned long)v);

	/* DR4 and DR5 with CR4.DE clear: DR6 and DR7 */
	unsigned long cr4 = read_cr4();
	write_cr4(cr4 & ~CR4_DE);
	ok = probe_dr_read4(&v) && probe_dr_read6(&w);
	check(ok && v == w, "with CR4.DE clear, DR4 reads as DR6 (%#lx, %#lx)", (unsigned long)v, (unsigned long)w);
	ok = probe_dr_read5(&v) && probe_dr_read7(&w);
	check(ok && v == w, "with CR4.DE clear, DR5 reads as DR7 (%#lx, %#lx)", (unsigned long)v, (unsigned long)w);
	ok = probe_dr_write4(0);
	check(ok, "with CR4.DE clear, mov to DR4 is DR6's");

	/* with CR4.DE set (every x86-64 CPU has DE, so the guest's policy does and CR4 keeps it):
	 * DR4 and DR5 are #UD */
	write_cr4(cr4 | CR4_DE);
	if (check(read_cr4() & CR4_DE, "CR4.DE sticks (%#lx)", read_cr4())) {
		n = probe_fault.count;
		ok = probe_dr_read4(&v);
		check(!ok && faulted(n, 6, probe_insn_dr_read4), "with CR4.DE set, mov %%db4: #UD (vector %lu)",
		      probe_fault.vector);
		n = probe_fault.count;
		ok = probe_dr_write4(0);
		check(!ok && faulted(n, 6, probe_insn_dr_write4), "with CR4.DE set, mov to DR4: #UD (vector %lu)",
		      probe_fault.vector);
		rc = HC(__HYPERVISOR_get_debugreg, 4, 0, 0);
		check(rc == -XEN_ENODEV, "with CR4.DE set, get_debugreg(4): %ld %s (want -ENODEV)", rc, errno_name(rc));
	}
	write_cr4(cr4);
}
