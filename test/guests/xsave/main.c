/*
 * xsave: XSAVE and AVX for a PV kernel (Xen 4.17: guest_cpuid's PV OSXSAVE rule and leaf 0xD,
 * pv_fixup_guest_cr4, x86_emulate's XSETBV and handle_xsetbv's valid_xcr0).
 *
 * XSETBV is privileged, so a 64-bit PV kernel (ring 3) traps on it and the hypervisor emulates
 * it: #UD unless the guest's own CR4 has OSXSAVE, #GP(0) for XCR1 or a value Xen refuses (no
 * x87, AVX without SSE, a component not offered), else XCR0 is set. CPUID behind the forced-
 * emulation prefix shows XSAVE and AVX only when they are offered; its OSXSAVE is shown to the
 * kernel as soon as XSAVE is (the leak Linux's xen_check_xsave depends on) while the guest's CR4
 * starts without it. Leaf 0xD: sub-leaf 0 names x87, SSE (and AVX) and the area's sizes, EBX
 * following the XCR0 in use; sub-leaf 1 never offers XSAVES (no supervisor states for PV).
 * Then the state itself: ymm0-15, loaded with a pattern, survive event upcalls, hypercalls,
 * emulated instructions and a block until a timer (a shim that used or lost vector registers on
 * its paths fails here); XSAVE stores them at leaf 0xD's offset, XRSTOR loads them back, and
 * with AVX dropped from XCR0 an AVX instruction raises #UD (the guest's XCR0 is the CPU's).
 *
 * The CPU must offer XSAVE for most of this: `xsave.expect=absent` on the command line (the Xen
 * L0 here hides XSAVE; xsave=off for our shim) checks the other side instead: no XSAVE, OSXSAVE,
 * AVX or AVX2 in CPUID, an empty leaf 0xD, CR4.OSXSAVE that does not stick and XSETBV's #UD; a
 * run that finds XSAVE there fails, as does a run without it that expects it.
 *
 * Expect: stock PASS on xen (absent); ours PASS on xen (absent) and none (--cpu-xsave; absent
 * with xsave=off).
 */
#include "cregs.h"
#include "guest.h"
#include "events.h"
#include "probe.h"

const char test_title[] = "xsave: XSETBV emulation, CPUID leaf 0xD, AVX state across the shim's paths";

#define CR4_OSXSAVE     (1ul << 18)
#define X87             1ull
#define SSE             2ull
#define YMM             4ull
#define MS              1000000ul

static void pv_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("ud2; .ascii \"xen\"; cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "0"(leaf), "2"(sub));
}

static uint64_t xgetbv(uint32_t reg)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(reg));
	return (uint64_t)hi << 32 | lo;
}

/* XSETBV of XCR reg: true if it was taken; false after checking the fault was `vector` there. */
static bool xsetbv_faults(uint32_t reg, uint64_t v, unsigned long vector, const char *what)
{
	unsigned long n = probe_fault.count;

	if (probe_xsetbv(reg, v))
		return false;
	check(probe_fault.count == n + 1 && probe_fault.vector == vector &&
	      probe_fault.rip == (uint64_t)probe_insn_xsetbv && (vector != 13 || probe_fault.error == 0),
	      "%s: XSETBV(%u, %#lx) raises %s at the instruction (vector %lu, error %#lx)", what, reg, v,
	      vector == 6 ? "#UD" : "#GP(0)", probe_fault.vector, probe_fault.error);
	return true;
}

static void absent(uint32_t max, uint32_t c1)
{
	uint32_t a, b, c, d;

	check(!(c1 & (1u << 26)), "CPUID.1: no XSAVE (ecx %#x)", c1);
	check(!(c1 & ((1u << 27) | (1u << 28) | (1u << 12) | (1u << 29))),
	      "CPUID.1: no OSXSAVE, AVX, FMA or F16C without XSAVE (ecx %#x)", c1);
	if (max >= 7) {
		pv_cpuid(7, 0, &a, &b, &c, &d);
		check(!(b & ((1u << 5) | (1u << 16))), "CPUID.7: no AVX2 or AVX-512F without XSAVE (ebx %#x)", b);
	}
	if (max >= 0xd) {
		pv_cpuid(0xd, 0, &a, &b, &c, &d);
		check(!(a | b | c | d), "CPUID.0xD.0 is empty: %#x %#x %#x %#x", a, b, c, d);
	}
	unsigned long cr4 = read_cr4();
	write_cr4(cr4 | CR4_OSXSAVE);
	check(!(read_cr4() & CR4_OSXSAVE), "CR4.OSXSAVE does not stick without XSAVE (CR4 %#lx)", read_cr4());
	write_cr4(cr4);
	check(xsetbv_faults(0, X87 | SSE, 6, "without XSAVE"), "XSETBV faults without XSAVE");
}

/* The 16 ymm registers: load from p, store to q (512 bytes each). The test code is built with
 * general registers only, so nothing between a load and a store touches them but the paths
 * under test. */
static void ymm_load(const uint8_t *p)
{
	__asm__ volatile("vmovdqu 0(%0), %%ymm0; vmovdqu 32(%0), %%ymm1; vmovdqu 64(%0), %%ymm2;"
			 "vmovdqu 96(%0), %%ymm3; vmovdqu 128(%0), %%ymm4; vmovdqu 160(%0), %%ymm5;"
			 "vmovdqu 192(%0), %%ymm6; vmovdqu 224(%0), %%ymm7; vmovdqu 256(%0), %%ymm8;"
			 "vmovdqu 288(%0), %%ymm9; vmovdqu 320(%0), %%ymm10; vmovdqu 352(%0), %%ymm11;"
			 "vmovdqu 384(%0), %%ymm12; vmovdqu 416(%0), %%ymm13; vmovdqu 448(%0), %%ymm14;"
			 "vmovdqu 480(%0), %%ymm15" :: "r"(p) : "memory");
}

static void ymm_store(uint8_t *q)
{
	__asm__ volatile("vmovdqu %%ymm0, 0(%0); vmovdqu %%ymm1, 32(%0); vmovdqu %%ymm2, 64(%0);"
			 "vmovdqu %%ymm3, 96(%0); vmovdqu %%ymm4, 128(%0); vmovdqu %%ymm5, 160(%0);"
			 "vmovdqu %%ymm6, 192(%0); vmovdqu %%ymm7, 224(%0); vmovdqu %%ymm8, 256(%0);"
			 "vmovdqu %%ymm9, 288(%0); vmovdqu %%ymm10, 320(%0); vmovdqu %%ymm11, 352(%0);"
			 "vmovdqu %%ymm12, 384(%0); vmovdqu %%ymm13, 416(%0); vmovdqu %%ymm14, 448(%0);"
			 "vmovdqu %%ymm15, 480(%0)" :: "r"(q) : "memory");
}

/* The first byte where a and b differ, or -1. */
static int differs(const uint8_t *a, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] != b[i])
			return (int)i;
	return -1;
}

static uint8_t pat[512], got[512];
static uint8_t area[4096] __attribute__((aligned(64)));

/* ymm0-15 across what the shim does for the guest: the result is the first differing byte. */
static int across_shim_paths(void)
{
	evtchn_port_t tport = events_init_timer();

	for (unsigned i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 1);
	uint32_t seen = events_seen[tport];

	ymm_load(pat);
	/* the 10 ms tick's upcalls while running, hypercalls, emulated CR4 reads, a block */
	events_enable();
	uint64_t end = pvclock_ns() + 60 * MS;
	while (pvclock_ns() < end) {
		HC(__HYPERVISOR_xen_version, XENVER_version, 0, 0);
		(void)read_cr4();
	}
	struct vcpu_set_singleshot_timer s = { .timeout_abs_ns = pvclock_ns() + 30 * MS };
	vcpu_op(VCPUOP_set_singleshot_timer, 0, &s);
	events_disable();
	sched_block();
	events_enable();
	ymm_store(got);

	events_disable();
	uint32_t n = events_seen[tport] - seen;
	printf("ymm0-15 loaded; %u timer upcalls, hypercalls and a block later:\n", n);
	check(n >= 3, "the timer's upcalls arrived meanwhile (%u, want 3 or more)", n);
	evtchn_close(tport);
	return differs(pat, got, sizeof(pat));
}

static void present(uint32_t c1)
{
	uint32_t a, b, c, d;
	bool avx = c1 & (1u << 28);

	check(c1 & (1u << 27), "CPUID.1 shows the kernel OSXSAVE before its CR4 has it (ecx %#x)", c1);
	unsigned long cr4 = read_cr4();
	check(!(cr4 & CR4_OSXSAVE), "the boot CR4 %#lx has no OSXSAVE", cr4);
	xsetbv_faults(0, X87 | SSE, 6, "before CR4.OSXSAVE");

	write_cr4(cr4 | CR4_OSXSAVE);
	check(read_cr4() & CR4_OSXSAVE, "CR4.OSXSAVE sticks with XSAVE (CR4 %#lx)", read_cr4());
	pv_cpuid(1, 0, &a, &b, &c, &d);
	check(c & (1u << 27), "CPUID.1 shows OSXSAVE (ecx %#x)", c);

	uint32_t sa, sb, sc, sd;
	pv_cpuid(0xd, 0, &sa, &sb, &sc, &sd);
	printf("CPUID.0xD.0: xcr0 mask %#x:%#x, size %u for XCR0, %u for all; AVX %s\n", sd, sa, sb, sc,
	       avx ? "yes" : "no");
	check((sa & (X87 | SSE)) == (X87 | SSE) && sd == 0, "0xD.0 offers x87 and SSE, nothing above bit 31 (%#x:%#x)",
	      sd, sa);
	check(!(sa & YMM) == !avx, "0xD.0 offers the AVX state iff CPUID.1 has AVX (%#x)", sa);
	check(!(sa & ~(X87 | SSE | YMM | 0xe0)), "0xD.0 offers no MPX, PT or supervisor state (%#x)", sa);
	check(sb == 576, "0xD.0 EBX: 576 bytes for XCR0 = x87|SSE (%u)", sb);
	check(sc >= sb && sc <= 4096, "0xD.0 ECX (%u) covers EBX and fits a page", sc);
	pv_cpuid(0xd, 1, &a, &b, &c, &d);
	check(!(a & (1u << 3)) && !c && !d, "0xD.1: no XSAVES, no supervisor states (%#x %#x %#x)", a, c, d);

	uint64_t x = xgetbv(0);
	check(x == (X87 | SSE), "XCR0 starts as x87|SSE (%#lx)", x);
	xsetbv_faults(0, 0, 13, "no x87");
	xsetbv_faults(0, SSE, 13, "SSE without x87");
	xsetbv_faults(0, X87 | YMM, 13, "AVX without SSE");
	xsetbv_faults(1, X87 | SSE, 13, "XCR1");
	xsetbv_faults(0, X87 | SSE | (1ull << 9), 13, "PKRU, not offered");
	xsetbv_faults(0, X87 | SSE | (1ull << 62), 13, "bit 62");
	if (!avx)
		xsetbv_faults(0, X87 | SSE | YMM, 13, "AVX, not offered");
	check(xgetbv(0) == (X87 | SSE), "the refused writes left XCR0 alone (%#lx)", xgetbv(0));
	bool faulted = xsetbv_faults(0, X87, 13, "x87 alone");
	x = xgetbv(0);
	check(!faulted && x == X87, "XSETBV(0, x87) is taken: XCR0 %#lx", x);
	check(!xsetbv_faults(0, X87 | SSE, 13, "x87|SSE"), "XSETBV(0, x87|SSE) is taken");
	if (!avx)
		test_skip("the CPU offers XSAVE without AVX: the AVX state checks cannot run");

	uint32_t ya, yb, yc, yd;
	pv_cpuid(0xd, 2, &ya, &yb, &yc, &yd);
	check(ya == 256 && yb == 576, "0xD.2: the AVX state is 256 bytes at 576 (%u at %u)", ya, yb);
	check(sc == 832, "0xD.0 ECX: 832 bytes for x87|SSE|AVX (%u)", sc);
	uint8_t buf[32] = { 1 };
	unsigned long n = probe_fault.count;
	bool ran = probe_vmovdqu(buf);
	check(!ran && probe_fault.count == n + 1 && probe_fault.vector == 6 &&
	      probe_fault.rip == (uint64_t)probe_insn_vmovdqu,
	      "with XCR0 = x87|SSE, an AVX load raises #UD at the instruction (%s, vector %lu)",
	      ran ? "it ran" : "it faulted", probe_fault.vector);
	check(!xsetbv_faults(0, X87 | SSE | YMM, 13, "x87|SSE|AVX"), "XSETBV(0, x87|SSE|AVX) is taken");
	x = xgetbv(0);
	check(x == 7, "XCR0 reads %#lx", x);
	pv_cpuid(0xd, 0, &a, &b, &c, &d);
	check(b == 832, "0xD.0 EBX follows XCR0: 832 bytes (%u)", b);
	check(probe_vmovdqu(buf), "with AVX in XCR0 the AVX load runs");

	int at = across_shim_paths();
	if (at >= 0)
		printf("ymm%d byte %d: %#x, loaded %#x\n", at / 32, at % 32, got[at], pat[at]);
	check(at < 0, "ymm0-15 kept their values");

	/* XSAVE puts ymm's upper halves at 0xD.2's offset; XRSTOR loads them back */
	ymm_load(pat);
	__asm__ volatile("xsave (%0)" :: "r"(area), "a"(7), "d"(0) : "memory");
	uint64_t bv = *(uint64_t *)(area + 512);
	check(bv & YMM, "XSAVE's header says the AVX state is in use (XSTATE_BV %#lx)", bv);
	check(differs(area + yb, pat + 16, 16) < 0, "ymm0's upper half is at offset %u of the XSAVE area", yb);
	area[yb] ^= 0xff;
	__asm__ volatile("xrstor (%0)" :: "r"(area), "a"(7), "d"(0) : "memory");
	ymm_store(got);
	check((got[16] ^ pat[16]) == 0xff && differs(got + 17, pat + 17, sizeof(pat) - 17) < 0,
	      "XRSTOR loads ymm0's changed upper half and the rest as saved");
}

void test_main(void)
{
	uint32_t max, a, b, c1, d;
	char want[16] = "present";

	cmdline_word("xsave.expect", want, sizeof(want));
	if (strcmp(want, "present") && strcmp(want, "absent"))
		test_fail("xsave.expect=%s: present or absent", want);
	pv_cpuid(0, 0, &max, &b, &c1, &d);
	pv_cpuid(1, 0, &a, &b, &c1, &d);
	bool has = c1 & (1u << 26);
	printf("CPUID.1 ecx %#x: XSAVE %s, AVX %s; this run expects XSAVE %s\n", c1, has ? "yes" : "no",
	       c1 & (1u << 28) ? "yes" : "no", want);
	if (!strcmp(want, "absent")) {
		if (has)
			test_fail("the guest is offered XSAVE, which this run expects absent");
		absent(max, c1);
	} else {
		if (!has)
			test_fail("the guest is offered no XSAVE, which this run expects (run standalone with --cpu-xsave)");
		present(c1);
	}
}
