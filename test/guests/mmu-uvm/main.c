/*
 * mmu-uvm: update_va_mapping's flush flags, and the batch semantics of mmu_update and multicall.
 *
 * update_va_mapping(va, pte, flags) (public/xen.h; xen/arch/x86/mm.c __do_update_va_mapping)
 * changes the L1 entry of va and then flushes as flags say: UVMF_NONE, UVMF_TLB_FLUSH or
 * UVMF_INVLPG, for UVMF_LOCAL (this vCPU), UVMF_ALL, or UVMF_MULTI with a pointer to a vCPU
 * bitmap in the upper bits. A guest relies on the flush: after a remap with a flush flag, the next
 * read through va must reach the new frame, or it reads freed memory (a shim that does not flush
 * leaves a stale translation in the TLB; TCG keeps one too, so the test can see it). Each remap
 * below first reads va, so the old translation is cached. Exact Xen 4.17 results, encoded here:
 *  - every flush form returns 0 and the read sees the new frame; UVMF_NONE returns 0 and leaves
 *    the flush to the guest (we then INVLPG ourselves); UVMF_MULTI with an empty bitmap is 0.
 *  - flush type 3 (both bits) is not refused: Xen's switch has no case for it, so it is a
 *    remap without flush returning 0. (Upstream intent would be -EINVAL; Xen never did that.)
 *  - UVMF_MULTI with a bitmap pointer that cannot be read is -EFAULT, but the entry has been
 *    changed already: Xen reads the bitmap only when flushing, after the update.
 * The remaps without a flush print whether the read right after still saw the old frame: on the
 * bed (stock shim, QEMU TCG) it does, so a shim that skips a flush fails the checks above.
 * mmu_update(reqs, count, &done): requests are applied in order until one fails; the call
 * returns that failure and done = the number applied (-EBUSY, done 1 here); an unreadable
 * request array is -EFAULT with done 0; count 0 is 0.
 * multicall: every entry runs whatever the others return; each result lands in its entry
 * (0, 0, -EBUSY, -ENOSYS, 0 here) and the multicall itself returns 0.
 *
 * The 32-bit PAE build (pv32) runs the same checks through Xen's compat entry points: the PAE
 * entry goes to update_va_mapping as two 32-bit args, low half first (compat_update_va_mapping;
 * in a multicall entry args[1] = low, args[2] = high, args[3] = flags), the UVMF_MULTI bitmap is
 * read in 32-bit words (vcpumask_to_pcpumask), and the unreadable address is 2 GiB (L3 slot 2,
 * the builder's empty L2) instead of L4 slot 5. Its own checks: a PTE with NX, in the high half,
 * arrives whole both ways (the entry reads back with bit 63).
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"

const char test_title[] = "mmu-uvm: update_va_mapping flush flags, mmu_update and multicall batches";

#define NF 12
static uint64_t *win, *win_l1e, *frame[NF], *table;
static unsigned long unmapped;	/* a canonical va with nothing mapped: L4 slot 5 (32-bit: 2 GiB) */

#ifdef __i386__
/* compat_update_va_mapping(va, lo, hi, flags) (arch/x86/mm.c): the PAE entry as two args */
#define UVM_ARGS(va, pte, fl) { (unsigned long)(va), (uint32_t)(pte), (uint32_t)((pte) >> 32), (fl) }
#else
#define UVM_ARGS(va, pte, fl) { (unsigned long)(va), (pte), (fl) }
#endif

static uint64_t rw(unsigned int k)
{
	return pte_of(frame[k], PTE_RW_FLAGS);
}

static uint64_t reads(void)
{
	return *(volatile uint64_t *)win;
}

/* Remap win to frame k with flags; the read after must see frame k (unless !flushes). */
static void remap(unsigned int k, unsigned long flags, const char *what, bool flushes)
{
	uint64_t before = reads();	/* caches the old translation */
	long rc = hypercall_update_va_mapping((unsigned long)win, rw(k), flags);
	uint64_t seen = reads();

	check(rc == 0 && l1e_matches(*win_l1e, rw(k)), "update_va_mapping %s: %ld %s, entry %#llx", what,
	      rc, errno_name(rc), (unsigned long long)*win_l1e);
	if (flushes)
		check(seen == frame[k][0], "  and the next read sees the new frame (%#llx, want %#llx)",
		      (unsigned long long)seen, (unsigned long long)frame[k][0]);
	else {
		/* No verdict (the ABI leaves the flush to us), but say whether the bed shows staleness. */
		printf("  the read right after saw the %s frame%s\n", seen == before ? "old" : "new",
		       seen == before ? " (a stale TLB entry: a missing flush is visible here)" : "");
		invlpg(win);
		check(reads() == frame[k][0], "  after our own INVLPG the read sees the new frame");
	}
}

static void flush_flags(void)
{
	/* vCPU bitmaps: vCPU 0; nobody. Words of unsigned long (32 bits for a 32-bit guest:
	 * vcpumask_to_pcpumask reads unsigned ints then) */
	static unsigned long one = 1, none = 0;
	long rc;

	remap(1, UVMF_INVLPG | UVMF_LOCAL, "UVMF_INVLPG|UVMF_LOCAL", true);
	remap(2, UVMF_INVLPG | UVMF_ALL, "UVMF_INVLPG|UVMF_ALL", true);
	remap(3, UVMF_INVLPG | UVMF_MULTI | (unsigned long)&one, "UVMF_INVLPG|UVMF_MULTI {0}", true);
	remap(4, UVMF_TLB_FLUSH | UVMF_LOCAL, "UVMF_TLB_FLUSH|UVMF_LOCAL", true);
	remap(5, UVMF_TLB_FLUSH | UVMF_ALL, "UVMF_TLB_FLUSH|UVMF_ALL", true);
	remap(6, UVMF_TLB_FLUSH | UVMF_MULTI | (unsigned long)&one, "UVMF_TLB_FLUSH|UVMF_MULTI {0}", true);
	remap(7, UVMF_NONE, "UVMF_NONE", false);
	remap(8, UVMF_INVLPG | UVMF_MULTI | (unsigned long)&none, "UVMF_INVLPG|UVMF_MULTI {}", false);
	remap(9, UVMF_FLUSHTYPE_MASK, "flush type 3 (not refused)", false);

	rc = hypercall_update_va_mapping((unsigned long)win, rw(10), UVMF_INVLPG | UVMF_MULTI | unmapped);
	check(rc == -XEN_EFAULT && l1e_matches(*win_l1e, rw(10)),
	      "UVMF_INVLPG|UVMF_MULTI, unreadable bitmap %#lx: %ld %s (want -EFAULT), entry changed anyway (%#llx)",
	      unmapped, rc, errno_name(rc), (unsigned long long)*win_l1e);
	rc = hypercall_update_va_mapping((unsigned long)win, rw(11), UVMF_TLB_FLUSH | UVMF_MULTI | unmapped);
	check(rc == -XEN_EFAULT && l1e_matches(*win_l1e, rw(11)),
	      "UVMF_TLB_FLUSH|UVMF_MULTI, unreadable bitmap: %ld %s (want -EFAULT), entry changed anyway",
	      rc, errno_name(rc));
	tlb_flush();
	check(reads() == frame[11][0], "after our own flush the window reads frame 11");
#ifdef __i386__
	/* compat_update_va_mapping joins hi:lo: NX (bit 63) is all of the high half here */
	rc = hypercall_update_va_mapping((unsigned long)win, rw(0) | PTE_NX, UVMF_INVLPG);
	check(rc == 0 && *win_l1e == (rw(0) | PTE_NX) && reads() == frame[0][0],
	      "update_va_mapping with NX, the high half: %ld %s, entry %#llx (want %#llx)", rc,
	      errno_name(rc), (unsigned long long)*win_l1e, (unsigned long long)(rw(0) | PTE_NX));
#endif
}

static void mmu_update_batch(void)
{
	mmu_update_t req[3] = {
		{ virt_to_maddr(win_l1e), rw(1) },
		{ virt_to_maddr(win_l1e), pte_of(table, PTE_RW_FLAGS) },	/* a pinned L1: -EBUSY */
		{ virt_to_maddr(win_l1e), rw(2) },
	};
	unsigned int done = 99;
	long rc = mmu_update(req, 3, &done);

	check(rc == -XEN_EBUSY && done == 1 && l1e_matches(*win_l1e, rw(1)),
	      "mmu_update (good, bad, good): %ld %s, done %u (want -EBUSY, 1), entry = the first's",
	      rc, errno_name(rc), done);
	done = 99;
	rc = mmu_update(req + 2, 1, &done);
	check(rc == 0 && done == 1 && l1e_matches(*win_l1e, rw(2)), "mmu_update (good): %ld, done %u",
	      rc, done);
	rc = mmu_update(req, 1, NULL);
	check(rc == 0 && l1e_matches(*win_l1e, rw(1)), "mmu_update with no done pointer: %ld", rc);
	done = 99;
	rc = mmu_update(req, 0, &done);
	check(rc == 0 && done == 0, "mmu_update of 0 requests: %ld, done %u", rc, done);
	done = 99;
	rc = mmu_update((mmu_update_t *)unmapped, 2, &done);
	check(rc == -XEN_EFAULT && done == 0, "mmu_update of an unreadable array: %ld %s, done %u (want -EFAULT, 0)",
	      rc, errno_name(rc), done);
	invlpg(win);
}

static void multicalls(void)
{
	mmu_update_t req = { virt_to_maddr(win_l1e), rw(3) };
	multicall_entry_t mc[5] = {
		{ .op = __HYPERVISOR_mmu_update,
		  .args = { (unsigned long)&req, 1, 0, DOMID_SELF } },
		{ .op = __HYPERVISOR_update_va_mapping, .args = UVM_ARGS(win, rw(4), UVMF_INVLPG) },
		{ .op = __HYPERVISOR_update_va_mapping,
		  .args = UVM_ARGS(win, pte_of(table, PTE_RW_FLAGS), UVMF_INVLPG) },
		{ .op = 60 },	/* no such hypercall */
		{ .op = __HYPERVISOR_update_va_mapping, .args = UVM_ARGS(win, rw(5), UVMF_INVLPG) },
	};
	static const long want[5] = { 0, 0, -XEN_EBUSY, -XEN_ENOSYS, 0 };

	for (unsigned int i = 0; i < 5; i++)
		mc[i].result = 0x5a5a;
	long rc = multicall(mc, 5);

	check(rc == 0, "multicall of 5: %ld %s", rc, errno_name(rc));
	for (unsigned int i = 0; i < 5; i++)
		check((long)mc[i].result == want[i], "  entry %u (op %lu): result %ld %s (want %ld %s)", i,
		      (unsigned long)mc[i].op, (long)mc[i].result, errno_name((long)mc[i].result), want[i],
		      errno_name(want[i]));
	check(l1e_matches(*win_l1e, rw(5)) && reads() == frame[5][0],
	      "after it the window maps frame 5 (the last entry), entry %#llx", (unsigned long long)*win_l1e);
#ifdef __i386__
	/* the compat multicall passes args[1] (low) and args[2] (high) to compat_update_va_mapping */
	multicall_entry_t nx = { .op = __HYPERVISOR_update_va_mapping,
				 .args = UVM_ARGS(win, rw(6) | PTE_NX, UVMF_INVLPG), .result = 0x5a5a };

	rc = multicall(&nx, 1);
	check(rc == 0 && nx.result == 0 && *win_l1e == (rw(6) | PTE_NX) && reads() == frame[6][0],
	      "multicall update_va_mapping with NX in args[2]: %ld, result %ld, entry %#llx", rc,
	      (long)nx.result, (unsigned long long)*win_l1e);
#endif
}

void test_main(void)
{
	win = page_alloc();
	win_l1e = pt_entry((unsigned long)win, 1);
	for (unsigned int k = 0; k < NF; k++) {
		frame[k] = page_alloc();
		frame[k][0] = 0xf4a3e00000000000UL + k;
	}
	table = page_alloc();
	if (!win_l1e || page_ro(table) || pin(1, table))
		test_fail("setup: window entry %p, pinning an L1 failed", (void *)win_l1e);
#ifdef __i386__
	/* no L4: L3 slot 2, where dom0_construct_pv puts an empty L2 ("Ensure the first four L3
	 * entries are all populated"); 2 GiB must map nothing */
	unmapped = 2UL << 30;
	if (pt_lookup(unmapped, NULL))
		test_fail("2 GiB is mapped");
#else
	unmapped = 5UL << 39;
	if (pt_entry(unmapped, 3))
		test_fail("L4 slot 5 is in use");
#endif

	flush_flags();
	mmu_update_batch();
	multicalls();
}
