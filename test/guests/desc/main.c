/*
 * desc: a PV guest's own descriptor tables: __HYPERVISOR_set_gdt, __HYPERVISOR_update_descriptor
 * and MMUEXT_SET_LDT with entries (public/xen.h; Xen: arch/x86/pv/descriptor-tables.c, mm.c).
 *
 * The ABI rules, for a 64-bit PV guest whose kernel runs in ring 3:
 *  - set_gdt(frames, entries): entries <= FIRST_RESERVED_GDT_ENTRY (7168), else -EINVAL; each frame
 *    becomes a "segment descriptor page", which needs every one of its 512 descriptors to pass the
 *    check below and the frame mapped nowhere writable (-EINVAL otherwise; a bad list pointer
 *    -EFAULT). The frames show as selectors below 0xe000; Xen's flat selectors (0xe0xx) stay.
 *    While installed, no writable mapping of a frame can be made (update_va_mapping: -EBUSY, the
 *    frame's type conflict, not -EINVAL).
 *  - the descriptor check (check_descriptor): not-present descriptors and code/data segments are
 *    allowed, and a DPL below 3 is not refused but raised to 3 (written back into the frame);
 *    among system descriptors only type 0 and 64-bit call gates to guest selectors (stored with
 *    DPL 0, the DPL asked for in the target's RPL); TSS, LDT and interrupt/trap gates: -EINVAL.
 *  - update_descriptor(maddr, desc): maddr 8-aligned (-EINVAL), desc checked (-EINVAL); written
 *    into a descriptor page in use, or into any frame that may be writable (not a page table:
 *    -EINVAL). A live GDT entry changes at once (a selector reload sees it).
 *  - MMUEXT_SET_LDT(base, ents): base page-aligned and outside Xen's range, ents <= 8192, else
 *    -EINVAL; the LDT's pages become descriptor pages when the CPU first uses them (so not
 *    writable while the LDT holds them: -EBUSY) and are let go when the LDT changes.
 *
 * The method: a GDT page of our own with a flat 64-bit code segment, a flat data segment and a
 * data segment whose base is a variable's address, so that reading %fs:0 shows which descriptor
 * the CPU really loaded; far returns into our code selector and back; the refusals above with
 * their exact errno; then an LDT page with such a data segment, loaded through a TI=1 selector.
 * Every result is checked against what Xen 4.17 does (the stock shim is the oracle).
 *
 * The 32-bit PAE build (pv32) runs the same steps with a kernel in ring 1, under check_descriptor's
 * compat rules (is_pv_32bit_domain): a DPL below 1 is raised to 1 (GUEST_KERNEL_RPL), our code
 * segment is a 32-bit one (a segment with L set is refused), a flat segment whose limit reaches
 * past HYPERVISOR_COMPAT_VIRT_START (0xF5800000) is widened to 4 GiB, a 32-bit call gate may have
 * a parameter count (bits 5-7 are the reserved ones), and Xen's own code selector for a gate is
 * FLAT_COMPAT_KERNEL_CS (guest_gate_selector_okay). update_descriptor takes the address and the
 * descriptor as two halves each (compat_update_descriptor), set_gdt 32-bit frame numbers
 * (compat_set_gdt); a frame list at the top page of the 4 GiB, in the hole where nothing is mapped,
 * cannot be read (-EFAULT). SET_LDT checks its base with the 64-bit __addr_ok, so the hole's start
 * is taken, not refused, for a 32-bit guest.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "probe.h"

const char test_title[] = "desc: set_gdt, update_descriptor and SET_LDT, with Xen's descriptor checks";

static uint64_t gdt[512] __attribute__((aligned(4096)));
static uint64_t bad_gdt[512] __attribute__((aligned(4096)));
static uint64_t ldt[512] __attribute__((aligned(4096)));
static uint64_t plain[512] __attribute__((aligned(4096)));

static uint64_t bad_ldt[512] __attribute__((aligned(4096)));
static volatile uint64_t val_a = 0xaaaa0001aaaa0001UL, val_b = 0xbbbb0002bbbb0002UL, val_c = 0xcccc0003cccc0003UL;

#define SEL_FLAT   0x13         /* gdt[2] */
#define SEL_BASED  0x1b         /* gdt[3]: base = a variable */
#define SEL_LDT1   0x0f         /* ldt[1], TI = 1, RPL 3 */

#define CODE64_DPL3 0x00affa000000ffffULL       /* not accessed: the CPU sets the bit on load */
#define DPL(d)      (((d) >> 45) & 3)

#ifdef __i386__
/* A 32-bit PV kernel runs in ring 1: check_descriptor raises a lower DPL to GUEST_KERNEL_RPL (1),
 * refuses a code segment with L set, and our code segment is a flat 32-bit one of DPL 1. */
#define KERNEL_DPL  1
#define SEL_CODE    0x09        /* gdt[1], RPL 1 */
#define CODE_KERNEL 0x00cfba000000ffffULL       /* 32-bit, DPL 1, not accessed */
#define XEN_CS      FLAT_KERNEL_CS              /* 0xe019 */
#define XEN_DS      FLAT_KERNEL_DS              /* 0xe021: a null %ds faults on use in 32-bit mode */
#define XEN_CS_NAME "FLAT_RING1_CS"
#else
#define KERNEL_DPL  3
#define SEL_CODE    0x0b        /* gdt[1], RPL 3 */
#define CODE_KERNEL CODE64_DPL3
#define XEN_CS      FLAT_RING3_CS64
#define XEN_DS      FLAT_RING3_DS64
#define XEN_CS_NAME "FLAT_RING3_CS64"
#endif
#define DPL_MASK    (3ULL << 45)

/* A 4 GiB data segment (read/write, not accessed) with the given base and DPL. */
static uint64_t data_desc(uint32_t base, unsigned dpl)
{
	uint32_t lo = 0xffff | (base << 16);
	uint32_t hi = ((base >> 16) & 0xff) | ((0x92u | (dpl << 5)) << 8) | (0xfu << 16) | (0xcu << 20) |
		      (base & 0xff000000u);
	return ((uint64_t)hi << 32) | lo;
}

/* A 64-bit call gate's low half to sel:0x1000 with the given DPL and type. */
static uint64_t gate_desc(uint16_t sel, unsigned dpl, unsigned type)
{
	return ((uint64_t)(0x8000u | (dpl << 13) | (type << 8)) << 32) | ((uint32_t)sel << 16) | 0x1000;
}

static unsigned long mfn_of(const void *va)
{
	return pfn_to_mfn((unsigned long)va >> PAGE_SHIFT);
}

/* Map our own page read-only or writable again (Linux makes its GDT pages read-only first). */
static long set_rw(const void *va, bool rw)
{
	int level;
	uint64_t pte = pt_lookup((unsigned long)va, &level);

	if (!pte || level != 1)
		test_fail("no L1 entry for %p", va);
	pte = rw ? pte | PTE_RW : pte & ~PTE_RW;
	return hypercall_update_va_mapping((unsigned long)va, pte, UVMF_INVLPG);
}

static long set_gdt(unsigned long *frames, unsigned long entries)
{
	return HC(__HYPERVISOR_set_gdt, frames, entries, 0);
}

static long set_ldt(const void *base, unsigned int ents)
{
	struct mmuext_op op = { .cmd = MMUEXT_SET_LDT, .arg1.linear_addr = (unsigned long)base,
				.arg2.nr_ents = ents };
	unsigned int done = 0;

	return hypercall(__HYPERVISOR_mmuext_op, (unsigned long)&op, 1, (unsigned long)&done, DOMID_SELF, 0);
}

/* Load %fs with sel and read the quadword at %fs:0; *back gets %fs read back. */
static uint64_t fs_read(uint16_t sel, uint16_t *back)
{
	uint64_t v;
	uint16_t s;

#ifdef __i386__
	uint32_t lo, hi;

	__asm__ volatile("movw %w3, %%fs\n\t"
			 "movl %%fs:0, %0\n\t"
			 "movl %%fs:4, %1\n\t"
			 "movw %%fs, %w2"
			 : "=&r"(lo), "=&r"(hi), "=&r"(s) : "r"(sel) : "memory");
	v = (uint64_t)hi << 32 | lo;
#else
	__asm__ volatile("movw %w2, %%fs\n\t"
			 "movq %%fs:0, %0\n\t"
			 "movw %%fs, %w1"
			 : "=&r"(v), "=&r"(s) : "r"(sel) : "memory");
#endif
	*back = s;
	return v;
}

static void load_fs(uint16_t sel)
{
	__asm__ volatile("movw %w0, %%fs" :: "r"(sel) : "memory");
}

static void load_ds_es(uint16_t sel)
{
	__asm__ volatile("movw %w0, %%ds\n\tmovw %w0, %%es" :: "r"(sel) : "memory");
}

static uint16_t read_ds(void)
{
	uint16_t s;

	__asm__ volatile("movw %%ds, %w0" : "=r"(s));
	return s;
}

/* Far return into code selector sel, note %cs there, and far return back to Xen's flat one. */
static uint16_t visit_cs(uint16_t sel)
{
	uint16_t seen;

#ifdef __i386__
	__asm__ volatile("pushl %1\n\t"
			 "pushl $1f\n\t"
			 "lretl\n"
			 "1:\tmovw %%cs, %w0\n\t"
			 "pushl %2\n\t"
			 "pushl $2f\n\t"
			 "lretl\n"
			 "2:"
			 : "=&r"(seen) : "r"((uint32_t)sel), "i"(XEN_CS) : "memory");
#else
	__asm__ volatile("pushq %q1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\tmovw %%cs, %w0\n\t"
			 "pushq %2\n\t"
			 "leaq 2f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "2:"
			 : "=&r"(seen) : "r"((uint64_t)sel), "i"(XEN_CS) : "rax", "memory");
#endif
	return seen;
}

static void test_gdt(void)
{
	unsigned long frames[1] = { mfn_of(gdt) }, bad[1] = { mfn_of(bad_gdt) };
	long rc;
	uint16_t s;

	gdt[1] = CODE_KERNEL;
	gdt[2] = data_desc(0, 3);
	gdt[3] = data_desc((uint32_t)(unsigned long)&val_a, 3);
	gdt[4] = data_desc(0, 0);	/* DPL 0: Xen raises it to the kernel's (3; 1 in the 32-bit build) */

	rc = set_gdt(frames, 8);
	check(rc == -XEN_EINVAL, "set_gdt on a frame still mapped writable: %ld (%s), want -EINVAL", rc, errno_name(rc));
	rc = set_rw(gdt, false);
	check(rc == 0, "remapping the GDT page read-only: %ld (%s)", rc, errno_name(rc));
	rc = set_gdt(frames, 7169);
	check(rc == -XEN_EINVAL, "set_gdt with 7169 entries: %ld (%s), want -EINVAL", rc, errno_name(rc));
	rc = set_gdt(frames, 0xffffffffUL);
	check(rc == -XEN_EINVAL, "set_gdt with 0xffffffff entries: %ld (%s), want -EINVAL", rc, errno_name(rc));
#ifdef __i386__
	/* compat_set_gdt's guest_handle_okay is the 64-bit access_ok, which takes any 32-bit address;
	 * the list at the top page of the 4 GiB, in Xen's hole where nothing is mapped, then faults
	 * in __copy_from_guest */
	rc = set_gdt((unsigned long *)0xfffff000UL, 8);
	check(rc == -XEN_EFAULT, "set_gdt with a frame list at 0xfffff000 (Xen's hole): %ld (%s), want -EFAULT", rc,
	      errno_name(rc));
	/* compat_set_gdt reads 32-bit frame numbers: the largest, which no domain has */
	unsigned long nonframe[1] = { 0xffffffffUL };
#else
	rc = set_gdt((unsigned long *)0xffff800000000000UL, 8);
	check(rc == -XEN_EFAULT, "set_gdt with a frame list in Xen's range: %ld (%s), want -EFAULT", rc, errno_name(rc));
	unsigned long nonframe[1] = { 0xfffffffffUL };
#endif
	rc = set_gdt(nonframe, 8);
	check(rc == -XEN_EINVAL, "set_gdt with a frame that is not ours: %ld (%s), want -EINVAL", rc, errno_name(rc));

	rc = set_gdt(frames, 8);
	if (!check(rc == 0, "set_gdt with our page, 8 entries: %ld (%s)", rc, errno_name(rc)))
		test_fail("no GDT of our own");
	check(DPL(gdt[4]) == KERNEL_DPL && (gdt[4] & ~DPL_MASK) == (data_desc(0, 0) & ~DPL_MASK),
	      "the DPL 0 data segment was accepted and raised to DPL %d in place: %#llx", KERNEL_DPL,
	      (unsigned long long)gdt[4]);
	check(gdt[2] == data_desc(0, 3) || gdt[2] == (data_desc(0, 3) | (1ULL << 40)),
	      "a DPL 3 segment is left as it was: %#llx", (unsigned long long)gdt[2]);

	load_ds_es(SEL_FLAT);
	s = read_ds();
	check(s == SEL_FLAT && plain[0] == 0, "%%ds and %%es loaded with our flat data selector %#x (read back %#x)",
	      SEL_FLAT, s);
	uint64_t v = fs_read(SEL_BASED, &s);
	check(v == val_a && s == SEL_BASED, "%%fs = %#x reads val_a through the descriptor's base: %#llx (want %#llx)",
	      SEL_BASED, (unsigned long long)v, (unsigned long long)val_a);
	printf("  accessed bit of the data descriptor after loading it: %lu\n", (unsigned long)(gdt[3] >> 40) & 1);
	s = visit_cs(SEL_CODE);
	check(s == SEL_CODE, "far return into our %d-bit code selector %#x and back to " XEN_CS_NAME ": %%cs was %#x",
	      (int)(8 * sizeof(long)), SEL_CODE, s);

	/* installed: no writable mapping of it */
	rc = set_rw(gdt, true);
	check(rc == -XEN_EBUSY, "a writable mapping of the installed GDT frame: %ld (%s), want -EBUSY",
	      rc, errno_name(rc));
	check(!(pt_lookup((unsigned long)gdt, NULL) & PTE_RW), "the GDT page is still mapped read-only");

	/* update_descriptor on a live entry: the reload sees the new base */
	uint64_t gdt_ma = (uint64_t)frames[0] << PAGE_SHIFT;
	rc = hypercall_update_descriptor(gdt_ma + 3 * 8, data_desc((uint32_t)(unsigned long)&val_b, 3));
	check(rc == 0, "update_descriptor of live entry 3: %ld (%s)", rc, errno_name(rc));
	v = fs_read(SEL_BASED, &s);
	check(v == val_b, "reloading %%fs = %#x now reads val_b: %#llx (want %#llx)", SEL_BASED, (unsigned long long)v,
	      (unsigned long long)val_b);

	/* the checks, through update_descriptor */
	rc = hypercall_update_descriptor(gdt_ma + 5 * 8, data_desc(0, 0));
	check(rc == 0 && DPL(gdt[5]) == KERNEL_DPL,
	      "update_descriptor with a DPL 0 data segment: %ld (%s), stored DPL %lu (want 0 and %d)",
	      rc, errno_name(rc), (unsigned long)DPL(gdt[5]), KERNEL_DPL);
	static const struct { const char *what; uint64_t d; } refused[] = {
		{ "an available TSS", 0x0000890000000067ULL },
		{ "an LDT descriptor", 0x0000e20000000fffULL },
		{ "an interrupt gate", 0x0000ee0000081000ULL },
		{ "a trap gate", 0x0000ef0000081000ULL },
		{ "a call gate to the hypervisor's code selector 0xe008", 0 },
#ifdef __i386__
		/* check_descriptor: a 32-bit call gate's reserved bits are 5-7 of its high word (a compat
		 * domain may give a parameter count, bits 0-4) */
		{ "a call gate with a reserved bit (5 of the high word) set", 0 },
		/* check_descriptor: is_pv_32bit_domain refuses _SEGMENT_L */
		{ "a 64-bit code segment (L set)", CODE64_DPL3 },
#else
		{ "a call gate with a parameter count", 0 },
#endif
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(refused); i++) {
		uint64_t d = refused[i].d;
		if (i == 4)
			d = gate_desc(0xe008, 3, 0xc);
		if (i == 5)
#ifdef __i386__
			d = gate_desc(SEL_CODE, 3, 0xc) | (1ULL << 37);
#else
			d = gate_desc(SEL_CODE, 3, 0xc) | (1ULL << 32);
#endif
		uint64_t before = gdt[6];
		rc = hypercall_update_descriptor(gdt_ma + 6 * 8, d);
		check(rc == -XEN_EINVAL && gdt[6] == before, "update_descriptor with %s: %ld (%s), want -EINVAL",
		      refused[i].what, rc, errno_name(rc));
	}
	rc = hypercall_update_descriptor(gdt_ma + 6 * 8, gate_desc(SEL_CODE & ~3, 3, 0xc));
	check(rc == 0 && DPL(gdt[6]) == 0 && ((gdt[6] >> 16) & 0xffff) == (SEL_CODE | 3),
	      "a call gate to our code selector is accepted with DPL 0 and the DPL in the target's RPL: %ld (%s), %#llx",
	      rc, errno_name(rc), (unsigned long long)gdt[6]);
#ifdef __i386__
	/* check_descriptor for a compat domain: a call gate's parameter count is kept (only bits 5-7
	 * of the high word are reserved) */
	rc = hypercall_update_descriptor(gdt_ma + 6 * 8, gate_desc(SEL_CODE, 3, 0xc) | (2ULL << 32));
	check(rc == 0 && DPL(gdt[6]) == 0 && ((gdt[6] >> 32) & 0x1f) == 2,
	      "a call gate with a parameter count (2) is accepted for a 32-bit guest, count kept: %ld (%s), %#llx",
	      rc, errno_name(rc), (unsigned long long)gdt[6]);
	/* check_descriptor for a compat domain: a base-0 code/data segment whose limit reaches past
	 * HYPERVISOR_COMPAT_VIRT_START (0xF5800000) gets limit 0xfffff (older PAE Linux's segments
	 * ended at 0xF6800000, below the larger compat m2p); one that ends at the hole is kept */
	uint64_t old_linux = (data_desc(0, 1) & ~0xffffULL) | 0x67ff;	/* limit 0xf67ff pages */
	uint64_t to_hole = (data_desc(0, 1) & ~0xffffULL) | 0x57ff;	/* limit 0xf57ff pages */
	rc = hypercall_update_descriptor(gdt_ma + 7 * 8, old_linux);
	check(rc == 0 && gdt[7] == data_desc(0, 1),
	      "a flat segment ending at 0xf67fffff is widened to 4 GiB: %ld (%s), %#llx (want %#llx)", rc,
	      errno_name(rc), (unsigned long long)gdt[7], (unsigned long long)data_desc(0, 1));
	rc = hypercall_update_descriptor(gdt_ma + 7 * 8, to_hole);
	check(rc == 0 && gdt[7] == to_hole, "a flat segment ending at 0xf57fffff is kept: %ld (%s), %#llx (want %#llx)",
	      rc, errno_name(rc), (unsigned long long)gdt[7], (unsigned long long)to_hole);
#endif
	rc = hypercall_update_descriptor(gdt_ma + 5 * 8 + 4, 0);
	check(rc == -XEN_EINVAL, "update_descriptor at a misaligned address: %ld (%s), want -EINVAL", rc, errno_name(rc));

	/* update_descriptor elsewhere: a plain frame takes it, a page table does not */
	uint64_t top_ma = (uint64_t)mfn_of((void *)start_info->pt_base) << PAGE_SHIFT;
	rc = hypercall_update_descriptor(top_ma + 300 * 8, 0);
	check(rc == -XEN_EINVAL, "update_descriptor into our top-level page table (L%d): %ld (%s), want -EINVAL",
	      PT_LEVELS, rc, errno_name(rc));
	rc = hypercall_update_descriptor(((uint64_t)mfn_of(plain) << PAGE_SHIFT) + 7 * 8, CODE_KERNEL);
	check(rc == 0 && plain[7] == CODE_KERNEL, "update_descriptor into an ordinary page: %ld (%s), %#llx",
	      rc, errno_name(rc), (unsigned long long)plain[7]);

	/* set_gdt with a bad descriptor in the page: refused, the old GDT stays */
	bad_gdt[1] = CODE_KERNEL;
	bad_gdt[9] = 0x0000890000000067UL;	/* a TSS */
	rc = set_rw(bad_gdt, false);
	check(rc == 0, "remapping the second page read-only: %ld (%s)", rc, errno_name(rc));
	rc = set_gdt(bad, 16);
	check(rc == -XEN_EINVAL, "set_gdt with a TSS descriptor in the page: %ld (%s), want -EINVAL", rc, errno_name(rc));
	v = fs_read(SEL_BASED, &s);
	check(v == val_b, "after the refused set_gdt our GDT still works: %#llx", (unsigned long long)v);
	rc = set_rw(bad_gdt, true);
	check(rc == 0, "the refused frame can be writable again: %ld (%s)", rc, errno_name(rc));
	bad_gdt[9] = 0x00008e0000081000UL;
	rc = set_rw(bad_gdt, false);
	rc = rc ? rc : set_gdt(bad, 16);
	check(rc == -XEN_EINVAL, "set_gdt with an interrupt gate in the page: %ld (%s), want -EINVAL", rc, errno_name(rc));
}

static void test_ldt(void)
{
	long rc;
	uint16_t s;

	ldt[1] = data_desc((uint32_t)(unsigned long)&val_c, 3);
	rc = set_rw(ldt, false);
	check(rc == 0, "remapping the LDT page read-only: %ld (%s)", rc, errno_name(rc));
	rc = set_ldt((char *)ldt + 8, 4);
	check(rc == -XEN_EINVAL, "SET_LDT at a misaligned base: %ld (%s), want -EINVAL", rc, errno_name(rc));
	rc = set_ldt(ldt, 8193);
	check(rc == -XEN_EINVAL, "SET_LDT with 8193 entries: %ld (%s), want -EINVAL", rc, errno_name(rc));
#ifdef __i386__
	/* do_mmuext_op checks the base with the 64-bit __addr_ok, which any 32-bit address passes:
	 * Xen 4.17 takes an LDT at the hole's start for a 32-bit guest (its pages would fault on
	 * use: they are not the guest's); we drop it again at once */
	rc = set_ldt((void *)HYPERVISOR_VIRT_START, 4);
	check(rc == 0, "SET_LDT at HYPERVISOR_VIRT_START (0xF5800000) is taken for a 32-bit guest: %ld (%s), want 0",
	      rc, errno_name(rc));
	rc = set_ldt(NULL, 0);
	check(rc == 0, "  and dropped: %ld (%s)", rc, errno_name(rc));
#else
	rc = set_ldt((void *)0xffff800000000000UL, 4);
	check(rc == -XEN_EINVAL, "SET_LDT in Xen's range: %ld (%s), want -EINVAL", rc, errno_name(rc));
#endif
	rc = set_ldt(ldt, 4);
	if (!check(rc == 0, "SET_LDT with our page, 4 entries: %ld (%s)", rc, errno_name(rc)))
		return;
	uint64_t v = fs_read(SEL_LDT1, &s);
	check(v == val_c && s == SEL_LDT1, "%%fs = %#x (TI set) reads val_c through the LDT descriptor: %#llx (want %#llx)",
	      SEL_LDT1, (unsigned long long)v, (unsigned long long)val_c);
	rc = set_rw(ldt, true);
	check(rc == -XEN_EBUSY, "a writable mapping of the LDT page in use: %ld (%s), want -EBUSY", rc, errno_name(rc));
	load_fs(0);
	rc = set_ldt(NULL, 0);
	check(rc == 0, "SET_LDT with no entries: %ld (%s)", rc, errno_name(rc));
	rc = set_rw(ldt, true);
	check(rc == 0, "after the LDT is gone its page can be writable again: %ld (%s)", rc, errno_name(rc));

	/* an LDT page with a TSS descriptor in it: SET_LDT takes it (pages are checked on first use),
	 * the load faults, and the guest gets the #PF at its own LDT address */
	bad_ldt[1] = data_desc(0, 3);
	bad_ldt[5] = 0x0000890000000067UL;
	rc = set_rw(bad_ldt, false);
	rc = rc ? rc : set_ldt(bad_ldt, 4);
	check(rc == 0, "SET_LDT with a page holding a TSS descriptor: %ld (%s)", rc, errno_name(rc));
	unsigned long faults = probe_fault.count;
	bool loaded = probe_load_fs(SEL_LDT1);
	unsigned long cr2 = probe_fault.cr2;
	check(!loaded && probe_fault.count == faults + 1 && probe_fault.vector == 14 &&
	      probe_fault.rip == (unsigned long)probe_insn_load_fs && cr2 == (unsigned long)bad_ldt + 8,
	      "loading its selector gives the guest a #PF (vector %lu, error %#lx, rip %#lx) at its LDT address: cr2 %#lx (want %p)",
	      probe_fault.vector, probe_fault.error, probe_fault.rip, cr2, (void *)((char *)bad_ldt + 8));
	load_fs(0);
	rc = set_ldt(NULL, 0);
	rc = rc ? rc : set_rw(bad_ldt, true);
	check(rc == 0, "that LDT dropped and its page writable again: %ld (%s)", rc, errno_name(rc));
}

void test_main(void)
{
	test_gdt();
	test_ldt();

	/* back to Xen's flat selectors, and our GDT given up: its frame can be writable again */
	load_ds_es(XEN_DS);
	load_fs(0);
	unsigned long none[1] = { 0 };
	long rc = set_gdt(none, 0);
	check(rc == 0, "set_gdt with no entries: %ld (%s)", rc, errno_name(rc));
	rc = set_rw(gdt, true);
	check(rc == 0, "after that the old GDT frame can be writable again: %ld (%s)", rc, errno_name(rc));
}
