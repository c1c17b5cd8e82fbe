/*
 * ptwr-probe: guest-kernel writes straight into a live, read-only L1 page table ("writable page
 * tables"), one instruction form at a time.
 *
 * A PV guest's page tables are mapped read-only in its own address space; Xen validates every
 * entry. Besides the mmu_update / update_va_mapping hypercalls, the ABI lets a guest that enabled
 * VMASST_TYPE_writable_pagetables (HYPERVISOR_vm_assist, public/xen.h) simply write an L1 entry:
 * the write faults, the hypervisor decodes and emulates the instruction against the L1 page
 * (arch/x86/pv/ro-page-fault.c: ptwr_emulated_write/cmpxchg), validates the new entry and resumes
 * the guest after it. Linux relies on it for every instruction the native PTE helpers use: a plain
 * `mov` (set_pte on an unpinned or pinned table), `xchg` (ptep_get_and_clear: move_ptes during
 * exec, zap_pte_range), `lock cmpxchg` (ptep_cmpxchg / try_cmpxchg loops), `lock or`/`lock btr`
 * (set/clear_bit on PTE flags, e.g. ptep_set_wrprotect). A shim is the hypervisor of its guest and
 * must emulate all of them; if it cannot, the fault reaches the guest as a write to a read-only
 * page at the fault address (CR2 in vcpu_info), which is how Linux dies.
 *
 * What we do: find the L1 entry that maps a scratch window page of ours (walking the bootstrap
 * tables), then
 *  0. with the assist disabled (vm_assist disable is 0 in Xen 4.17, and Xen honours it: no
 *     emulation), a `mov` and an `xchg` to that entry must fault, as a plain #PF on a read-only
 *     page: error code present|write, CR2 = the entry's address, rip = the instruction. This is
 *     the fault every emulated write starts from, seen by the guest: it shows whether CR2
 *     survives on this bed. A refused disable, or a write emulated anyway, fails.
 *  1. with the assist enabled, each method writes the entry so that the window maps another
 *     frame (xchg also clears it, as ptep_get_and_clear does; lock or fills a cleared entry;
 *     lock btr clears the RW bit). After each: no fault, the entry reads back as written, the
 *     instruction's own result is right (old value, cmpxchg's rax, btr's CF), and after an
 *     INVLPG the window reads the new frame's contents (and is writable or not, as the entry says).
 * The entry is put back with update_va_mapping between methods. Every fault report also shows
 * CR2 twice: from vcpu_info and from `mov %cr2` (a privileged read the hypervisor emulates from
 * the value it injected). "hold" on the command line keeps the guest alive (yielding) at the end,
 * so the domain can be inspected (xl debug-keys v, xenctx).
 *
 * Seen on the bed (Xen 4.17 L0 in QEMU TCG, AMD SVM+NPT): plain PV passes; the stock shim passes
 * on QEMU 7.2 but fails every method on QEMU 10.0 with CR2 = 0, even for the plain mov and the
 * unassisted fault. Cause: QEMU 10.0's new decoder (7.2's old one is fine) checks a
 * `mov %crN, reg` in an SVM guest against the CR0-read intercept (exit code 0), which a Xen L0
 * always sets, so the shim's `mov %cr2` in do_page_fault exits to L0, which emulates it from its
 * own copy of guest CR2 (never synced from the VMCB under HAP: 0). Xen upstream's
 * "x86/svm: Always sync guest CR2 on VMExit" fixes the L0 side.
 *
 * Expect: stock PASS on xen (the L0 on QEMU 7.2, as the bed runs it); ours PASS on xen and none.
 */
#include "guest.h"
#include "probe.h"

const char test_title[] = "ptwr-probe: writable page tables (mov, xchg, lock cmpxchg, lock or, lock btr on an L1 entry)";

#define PTE_OP_FAULTED 0xfa017ed0fa017ed0UL
enum { OP_MOV, OP_XCHG, OP_CMPXCHG, OP_OR, OP_BTR };

/* One write of method m to p (lib/probe.S: one instruction each, a fault recorded in probe_fault
 * and the probe returning false): mov and lock or give 0, xchg the old value, lock cmpxchg the
 * value it saw (cmp expected), lock btr the bit's old value (val is the bit); PTE_OP_FAULTED if
 * it faulted. */
static unsigned long pte_op(unsigned int m, uint64_t *p, uint64_t val, uint64_t cmp)
{
	uint64_t out = 0;
	bool cf = false, done;

	switch (m) {
	case OP_MOV: done = probe_write(p, val); break;
	case OP_XCHG: done = probe_xchg(p, val, &out); break;
	case OP_CMPXCHG: done = probe_cmpxchg(p, cmp, val, &out); break;
	case OP_OR: done = probe_lock_orq(p, val); break;
	default: done = probe_lock_btr(p, val, &cf); out = cf; break;
	}
	return done ? out : PTE_OP_FAULTED;
}

/* The window whose entry we rewrite, and the frames it is pointed at (one per method). */
#define NFRAMES 6
static uint64_t window[512] __attribute__((aligned(4096)));
static uint64_t frames[NFRAMES][512] __attribute__((aligned(4096)));

static uint64_t *l1e_ptr(unsigned long va)
{
	uint64_t *table = (uint64_t *)start_info->pt_base;

	for (int l = 4; l > 1; l--) {
		uint64_t e = table[pt_index(va, l)];

		if (!(e & PTE_PRESENT) || (l <= 3 && (e & PTE_PSE)))
			return NULL;
		table = (uint64_t *)(mfn_to_pfn(PTE_MFN(e)) << PAGE_SHIFT);
	}
	return &table[pt_index(va, 1)];
}

static long invlpg(unsigned long va)
{
	struct mmuext_op op = { .cmd = MMUEXT_INVLPG_LOCAL, .arg1.linear_addr = va };
	unsigned int done = 0;

	return hypercall(__HYPERVISOR_mmuext_op, (unsigned long)&op, 1, (unsigned long)&done,
			 DOMID_SELF, 0);
}

static uint64_t frame_pte(uint64_t orig, unsigned int i)
{
	unsigned long mfn = pfn_to_mfn((unsigned long)frames[i] >> PAGE_SHIFT);

	return (orig & ~0x000ffffffffff000UL) | (mfn << PAGE_SHIFT);
}

static uint64_t *ptep, orig;
static bool ok_all = true;

static void restore(void)
{
	long rc = hypercall_update_va_mapping((unsigned long)window, orig, UVMF_INVLPG);

	if (rc || *ptep != orig || window[0] != 0x77696e646f770000UL)
		test_fail("restoring the window entry: rc %ld, entry %#lx (want %#lx), window[0] %#lx",
			  rc, (unsigned long)*ptep, (unsigned long)orig, (unsigned long)window[0]);
}

static const char *const names[] = { "mov", "xchg", "lock cmpxchg", "lock or", "lock btr" };
static char *const insns[] = { probe_insn_write, probe_insn_xchg, probe_insn_cmpxchg, probe_insn_orq, probe_insn_btr };

/* Run one write; false (and the fault printed) if it faulted. */
/* CR2 as the hypervisor keeps it for us: `mov %cr2` is a privileged read it emulates. */
static unsigned long read_cr2(void)
{
	unsigned long v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static bool run(unsigned int m, const char *what, uint64_t val, uint64_t cmp, unsigned long *res)
{
	unsigned long faults = probe_fault.count;

	*res = pte_op(m, ptep, val, cmp);
	if (probe_fault.count == faults)
		return true;
	printf("  %s %s: #PF error %#lx at rip %#lx (the %s is at %p), cr2 %#lx (vcpu_info) %#lx (mov %%cr2); entry at %p\n",
	       names[m], what, probe_fault.error, probe_fault.rip, names[m], (void *)insns[m],
	       shared_info->vcpu_info[0].arch.cr2, read_cr2(), (void *)ptep);
	return false;
}

/* After a write that set the entry to `want`: the entry, and the window after INVLPG. */
static bool verify(const char *name, uint64_t want, unsigned int frame)
{
	uint64_t got = *ptep;
	bool ok = got == want;

	if (!ok)
		printf("  %s: entry %#lx, want %#lx\n", name, (unsigned long)got, (unsigned long)want);
	if (ok && (want & PTE_PRESENT)) {
		long rc = invlpg((unsigned long)window);
		uint64_t seen = ((volatile uint64_t *)window)[0];

		if (rc || seen != frames[frame][0]) {
			printf("  %s: after INVLPG (rc %ld) the window reads %#lx, want frame %u's %#lx\n",
			       name, rc, (unsigned long)seen, frame, (unsigned long)frames[frame][0]);
			ok = false;
		} else if (want & PTE_RW) {
			((volatile uint64_t *)window)[1] = 0x5772697474656e00UL + frame;
			if (frames[frame][1] != 0x5772697474656e00UL + frame) {
				printf("  %s: a store through the window did not reach frame %u\n",
				       name, frame);
				ok = false;
			}
		}
	}
	return ok;
}

static void report(const char *name, bool ok, const char *detail)
{
	printf("METHOD %-16s %s%s%s\n", name, ok ? "ok" : "FAIL", detail ? ": " : "", detail ? detail : "");
	check(ok, "%s on a read-only L1 entry is emulated", name);
	ok_all &= ok;
}

/* 0: without the assist the write must fault like any write to a read-only page. */
static void unassisted(void)
{
	long rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_disable, VMASST_TYPE_writable_pagetables, 0);
	unsigned long res;

	if (!check(rc == 0, "vm_assist(disable, writable_pagetables): %ld %s", rc, errno_name(rc)))
		return;
	for (unsigned int m = OP_MOV; m <= OP_XCHG; m++) {
		unsigned long faults = probe_fault.count;
		uint64_t val = frame_pte(orig, 5);

		res = pte_op(m, ptep, val, 0);
		if (!check(probe_fault.count != faults, "unassisted %s takes a fault, not an emulation (entry after it: %#lx)",
			   names[m], (unsigned long)*ptep)) {
			restore();
			continue;
		}
		unsigned long cr2 = shared_info->vcpu_info[0].arch.cr2;

		printf("  unassisted %s: #PF error %#lx rip %#lx cr2 %#lx (vcpu_info) %#lx (mov %%cr2)\n",
		       names[m], probe_fault.error, probe_fault.rip, cr2, read_cr2());
		check(res == PTE_OP_FAULTED && (probe_fault.error & 7) == 3 && probe_fault.rip == (unsigned long)insns[m] &&
		      cr2 == (unsigned long)ptep,
		      "unassisted %s faults: error %#lx (want present|write, kernel: 0x3), rip %#lx (want %p), cr2 %#lx (want %p)",
		      names[m], probe_fault.error, probe_fault.rip, (void *)insns[m], cr2, (void *)ptep);
		check(*ptep == orig, "the entry is unchanged (%#lx)", (unsigned long)*ptep);
	}
}

void test_main(void)
{
	unsigned long res;
	long rc;
	bool ok;

	for (unsigned int i = 0; i < NFRAMES; i++)
		for (unsigned int j = 0; j < 512; j++)
			frames[i][j] = 0x4672616d65000000UL + (i << 16) + j;
	window[0] = 0x77696e646f770000UL;

	ptep = l1e_ptr((unsigned long)window);
	if (!ptep)
		test_fail("no L1 entry for the window %p", (void *)window);
	orig = *ptep;
	uint64_t l1_map = pt_lookup((unsigned long)ptep & ~(PAGE_SIZE - 1), NULL);

	printf("window %p: L1 entry at %p = %#lx; the L1 page is mapped by %#lx (%s)\n",
	       (void *)window, (void *)ptep, (unsigned long)orig, (unsigned long)l1_map,
	       l1_map & PTE_RW ? "writable!" : "read-only");
	if (!check((orig & PTE_PRESENT) && (orig & PTE_RW) && (l1_map & PTE_PRESENT) &&
		   !(l1_map & PTE_RW), "the window is mapped writable, its L1 page read-only"))
		test_fail("unexpected bootstrap layout");

	unassisted();

	rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_enable, VMASST_TYPE_writable_pagetables, 0);
	if (!check(rc == 0, "vm_assist(enable, writable_pagetables): %ld %s", rc, errno_name(rc)))
		test_fail("cannot enable writable page tables");

	char d[160];
	uint64_t want;

	/* mov: point the window at frame 0. */
	want = frame_pte(orig, 0);
	ok = run(OP_MOV, "", want, 0, &res) && verify("mov", want, 0);
	report("mov", ok, NULL);
	restore();

	/* xchg: point it at frame 1; the old value comes back. */
	want = frame_pte(orig, 1);
	ok = run(OP_XCHG, "", want, 0, &res);
	snprintf(d, sizeof(d), "returned %#lx (want %#lx)", res, (unsigned long)orig);
	ok = ok && res == orig && verify("xchg", want, 1);
	report("xchg", ok, d);
	restore();

	/* xchg with 0: Linux's ptep_get_and_clear (move_ptes, zap_pte_range). */
	ok = run(OP_XCHG, "(clear)", 0, 0, &res);
	snprintf(d, sizeof(d), "returned %#lx (want %#lx)", res, (unsigned long)orig);
	ok = ok && res == orig && verify("xchg 0", 0, 0);
	report("xchg 0 (clear)", ok, d);
	restore();

	/* lock cmpxchg: old = orig, new = frame 2; a compare that fails must not write. */
	want = frame_pte(orig, 2);
	ok = run(OP_CMPXCHG, "(mismatch)", want, orig ^ PTE_DIRTY, &res);
	snprintf(d, sizeof(d), "mismatch: rax %#lx (want %#lx), entry %#lx", res,
		 (unsigned long)orig, (unsigned long)*ptep);
	ok = ok && res == orig && *ptep == orig;
	report("lock cmpxchg miss", ok, d);
	ok = run(OP_CMPXCHG, "", want, orig, &res);
	snprintf(d, sizeof(d), "rax %#lx (want %#lx)", res, (unsigned long)orig);
	ok = ok && res == orig && verify("lock cmpxchg", want, 2);
	report("lock cmpxchg", ok, d);
	restore();

	/* lock or: fill a cleared entry with frame 3's mapping. */
	rc = hypercall_update_va_mapping((unsigned long)window, 0, UVMF_INVLPG);
	if (rc || *ptep)
		test_fail("clearing the window entry: rc %ld, entry %#lx", rc, (unsigned long)*ptep);
	want = frame_pte(orig, 3);
	ok = run(OP_OR, "", want, 0, &res) && verify("lock or", want, 3);
	report("lock or", ok, NULL);
	restore();

	/* lock btr: clear RW of a mapping of frame 4 (ptep_set_wrprotect); CF = the old bit. */
	want = frame_pte(orig, 4);
	rc = hypercall_update_va_mapping((unsigned long)window, want, UVMF_INVLPG);
	if (rc)
		test_fail("mapping frame 4: rc %ld", rc);
	ok = run(OP_BTR, "", 1, 0, &res);
	snprintf(d, sizeof(d), "CF %lu (want 1)", res);
	ok = ok && res == 1 && verify("lock btr", want & ~PTE_RW, 4);
	report("lock btr", ok, d);
	restore();

	printf("%s\n", ok_all ? "all methods emulated" : "some methods were NOT emulated");

	/* "hold" on the command line: stay alive (yielding) so the domain can be inspected. */
	if (strstr((const char *)start_info->cmd_line, "hold")) {
		printf("holding (command line says hold)\n");
		for (;;)
			hypercall_sched_op(SCHEDOP_yield, NULL);
	}
}
