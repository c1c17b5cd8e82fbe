/*
 * cr4: what a PV kernel sees of CR4, and what its writes do (Xen 4.17's pv_fixup_guest_cr4 and the
 * CR4 emulation in arch/x86/pv/emul-priv-op.c; asm/pv/domain.h's PV_CR4_GUEST_MASK and
 * PV_CR4_GUEST_VISIBLE_MASK).
 *
 * A 64-bit PV kernel runs in ring 3; `mov %cr4` either way traps and is emulated. The guest's
 * view is built from two sets: of the bits it writes, only TSD, DE, FSGSBASE and OSXSAVE count,
 * each only where its CPUID policy (the one behind the forced-emulation prefix) has the feature;
 * of the hardware's, it sees PAE, MCE, OSFXSR and OSXMMEXCPT. Anything else it writes (PGE, PSE,
 * PCIDE, SMEP, SMAP, VMXE, UMIP, PKE ...) is dropped without a fault. A shim that stores the value
 * as written lets a guest believe it turned on FSGSBASE or OSXSAVE without the feature, and then
 * use instructions that fault. Checked: the boot value has no bit outside the two sets and has
 * PAE; a write of every such bit reads back as exactly the rule says; a write of the boot value
 * restores it. TSD is left alone (under Xen it makes RDTSC fault in the guest kernel's ring).
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "cregs.h"
#include "guest.h"

const char test_title[] = "cr4: the guest's view of CR4 and its writes, by Xen's PV rule";

#define CR4_DE          (1ul << 3)
#define CR4_PSE         (1ul << 4)
#define CR4_PAE         (1ul << 5)
#define CR4_MCE         (1ul << 6)
#define CR4_PGE         (1ul << 7)
#define CR4_OSFXSR      (1ul << 9)
#define CR4_OSXMMEXCPT  (1ul << 10)
#define CR4_UMIP        (1ul << 11)
#define CR4_VMXE        (1ul << 13)
#define CR4_FSGSBASE    (1ul << 16)
#define CR4_PCIDE       (1ul << 17)
#define CR4_OSXSAVE     (1ul << 18)
#define CR4_SMEP        (1ul << 20)
#define CR4_SMAP        (1ul << 21)
#define CR4_PKE         (1ul << 22)
#define CR4_TSD         (1ul << 2)
#define GUEST_MASK      (CR4_TSD | CR4_DE | CR4_FSGSBASE | CR4_OSXSAVE)
#define VISIBLE_MASK    (CR4_PAE | CR4_MCE | CR4_OSFXSR | CR4_OSXMMEXCPT)

/* The guest's CPUID policy: CPUID behind Xen's forced-emulation prefix (ud2; .ascii "xen"). */
static void pv_cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("ud2; .ascii \"xen\"; cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "0"(leaf), "2"(0));
}

void test_main(void)
{
	uint32_t max, a, b, c, d;
	unsigned long allowed = 0;

	pv_cpuid(0, &max, &b, &c, &d);
	pv_cpuid(1, &a, &b, &c, &d);
	allowed |= (d & (1u << 2) ? CR4_DE : 0) | (c & (1u << 26) ? CR4_OSXSAVE : 0);
	if (max >= 7) {
		pv_cpuid(7, &a, &b, &c, &d);
		allowed |= b & 1 ? CR4_FSGSBASE : 0;
	}
	printf("policy: DE %s, FSGSBASE %s, OSXSAVE %s\n", allowed & CR4_DE ? "yes" : "no",
	       allowed & CR4_FSGSBASE ? "yes" : "no", allowed & CR4_OSXSAVE ? "yes" : "no");

	unsigned long boot = read_cr4();
	printf("boot CR4 %#lx\n", boot);
	check(!(boot & ~(GUEST_MASK | VISIBLE_MASK)), "the boot CR4 %#lx has only guest and visible bits (none of %#lx)",
	      boot, boot & ~(GUEST_MASK | VISIBLE_MASK));
	check(boot & CR4_PAE, "the boot CR4 %#lx shows PAE (64-bit paging)", boot);

	unsigned long all = boot | CR4_DE | CR4_FSGSBASE | CR4_OSXSAVE | CR4_PSE | CR4_PGE | CR4_UMIP | CR4_VMXE |
			    CR4_PCIDE | CR4_SMEP | CR4_SMAP | CR4_PKE;
	unsigned long want = (all & allowed) | (boot & VISIBLE_MASK);
	write_cr4(all);
	unsigned long got = read_cr4();
	check(got == want, "after writing %#lx, CR4 reads %#lx: want %#lx (the policy's guest bits and the visible ones)",
	      all, got, want);
	check(!(got & (CR4_PGE | CR4_PSE | CR4_PCIDE | CR4_SMEP | CR4_SMAP | CR4_VMXE | CR4_UMIP | CR4_PKE)),
	      "no bit outside the two sets sticks (%#lx)", got & ~(GUEST_MASK | VISIBLE_MASK));
	check(!(got & CR4_FSGSBASE) || (allowed & CR4_FSGSBASE), "FSGSBASE sticks only with the feature");
	check(!(got & CR4_OSXSAVE) || (allowed & CR4_OSXSAVE), "OSXSAVE sticks only with XSAVE");

	write_cr4(boot);
	got = read_cr4();
	check(got == boot, "writing the boot value back restores it: %#lx (want %#lx)", got, boot);
}
