/*
 * mmu-xsa286: mixing mmu_update and update_va_mapping must never edit or reach a page table that
 * is no longer hooked where the guest put it (XSA-286).
 *
 * update_va_mapping(va) finds the L1 entry of va by walking the guest's current tables; Xen used
 * to read them through its linear page-table mapping, which the TLB caches. mmu_update may change
 * an L2, L3 or L4 entry without any flush (architecturally the guest needs none when no complete
 * mapping changed), so a later update_va_mapping could walk a stale, cached path and write the
 * entry into the old L1, which by then may be a free page or even the guest's writable data:
 * a guest-controlled "page table". XSA-286's fix (Xen 4.17 has it) flushes the TLB after every
 * L2+ change made by mmu_update; a shim must either do the same or never reach guest tables
 * through cached linear mappings. The advisory's scenario, and two variants:
 *  1. L3 slot 2 (va V = 2 GiB) -> L2a -> L1a, and a spare L2b -> L1b. One multicall:
 *     update_va_mapping(V, 0) (walks and caches V's path through L2a), mmu_update(L3[2] = L2b),
 *     update_va_mapping(V, frame F). The last must edit L1b[0], never L1a[0]; V then reads F.
 *     Repeated 20 times: stale TLB entries are racy, a single run could miss them.
 *  2. The same one level down: the multicall swaps L2a[0] from L1a to L1b.
 *  3. Unhook and reuse: L2a[0] -> L1c (only reference), V mapped to F through it; L1c cannot be
 *     mapped writable then (-EBUSY). mmu_update(L2a[0] = 0), then L1c is a free page: mapping it
 *     writable is 0, and we forge an entry in it (a writable map of our pinned L2a, which Xen would
 *     never validate). update_va_mapping(V, F) must now be -EINVAL (no L1 for V) and leave L1c
 *     alone; V must never reach the forged entry (before our own flush a read may still see F
 *     from the TLB, or fault; after MMUEXT_TLB_FLUSH_LOCAL it faults, not present); and L1c with
 *     the forged entry cannot be pinned back into use (-EBUSY).
 *
 * The 32-bit PAE build (pv32) runs the same three scenarios with the same verdicts: the L3 is the
 * top table (start_info->pt_base; Xen hooks it into a per-vCPU L4 and reaches it through that
 * L4's linear slot, so the stale path is the same), its slot 2 holds the builder's empty L2
 * (dom0_construct_pv populates all four), checked empty and replaced; an L3 entry is written as
 * P alone, as a PAE guest's (adjust_guest_l3e adds RW and U); update_va_mapping's PTE goes as two
 * 32-bit args, in a multicall entry args[1] = low, args[2] = high (compat_update_va_mapping).
 * Xen 4.17 flushes after a 32-bit guest's L3 change as after a 64-bit one's (do_mmu_update's
 * PGT_l3_page_table case; on the bed a read of V right after mmu_update(L3[2]) without a flush
 * of ours already sees the new L2), so the L3 round expects no stale edit either.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"

const char test_title[] = "mmu-xsa286: no stale page-table access across mmu_update and update_va_mapping";

#define SLOT 2UL
#define V (SLOT << 30)
#define ROUNDS 20

static uint64_t *l3, *l2a, *l2b, *l1a, *l1b, *F;

/* An L3 entry for l2: a PAE guest's is P alone (adjust_guest_l3e adds RW and U) */
static uint64_t l3e(const uint64_t *l2)
{
#ifdef __i386__
	return pte_of(l2, PTE_PRESENT);
#else
	return pte_of(l2, PDE_FLAGS);
#endif
}

static uint64_t rwF(void)
{
	return pte_of(F, PTE_RW_FLAGS);
}

#ifdef __i386__
/* compat_update_va_mapping(va, lo, hi, flags) (arch/x86/mm.c): the PAE entry as two args */
#define UVM_ARGS(va, pte, fl) { (va), (uint32_t)(pte), (uint32_t)((uint64_t)(pte) >> 32), (fl) }
#else
#define UVM_ARGS(va, pte, fl) { (va), (pte), (fl) }
#endif

/* The multicall of the advisory: uvm(V, 0), mmu_update(*entry = val), uvm(V, F). */
static bool swap_multicall(uint64_t *entry, uint64_t val)
{
	mmu_update_t mu = { virt_to_maddr(entry), val };
	multicall_entry_t mc[3] = {
		{ .op = __HYPERVISOR_update_va_mapping, .args = UVM_ARGS(V, 0, UVMF_INVLPG) },
		{ .op = __HYPERVISOR_mmu_update, .args = { (unsigned long)&mu, 1, 0, DOMID_SELF } },
		{ .op = __HYPERVISOR_update_va_mapping, .args = UVM_ARGS(V, rwF(), UVMF_INVLPG) },
	};
	long rc = multicall(mc, 3);

	if (rc || mc[0].result || mc[1].result || mc[2].result) {
		printf("  multicall: %ld, results %ld %ld %ld\n", rc, (long)mc[0].result,
		       (long)mc[1].result, (long)mc[2].result);
		return false;
	}
	return true;
}

static void l3_swap(void)
{
	unsigned int stale = 0, bad = 0;

	for (unsigned int i = 0; i < ROUNDS; i++) {
		mmu_update_t reset[3] = {
			{ virt_to_maddr(&l3[SLOT]), l3e(l2a) },
			{ virt_to_maddr(&l1a[0]), 0 },
			{ virt_to_maddr(&l1b[0]), 0 },
		};
		long rc = mmu_update(reset, 3, NULL);

		if (rc)
			test_fail("resetting round %u: %ld %s", i, rc, errno_name(rc));
		if (!swap_multicall(&l3[SLOT], l3e(l2b)))
			bad++;
		else if (l1a[0] || !l1e_matches(l1b[0], rwF()) || *(volatile uint64_t *)V != F[0])
			stale++;
	}
	check(!bad && !stale,
	      "L3 swap in a multicall, %u rounds: the new L1 is edited, the old one never (%u stale, %u failed)",
	      ROUNDS, stale, bad);
}

static void l2_swap(void)
{
	unsigned int stale = 0, bad = 0;
	long rc = mmu_update1(virt_to_maddr(&l3[SLOT]), l3e(l2a));

	if (rc)
		test_fail("L3[%lu] = L2a: %ld", SLOT, rc);
	for (unsigned int i = 0; i < ROUNDS; i++) {
		mmu_update_t reset[3] = {
			{ virt_to_maddr(&l2a[0]), pte_of(l1a, PDE_FLAGS) },
			{ virt_to_maddr(&l1a[0]), 0 },
			{ virt_to_maddr(&l1b[0]), 0 },
		};

		rc = mmu_update(reset, 3, NULL);
		if (rc)
			test_fail("resetting round %u: %ld %s", i, rc, errno_name(rc));
		if (!swap_multicall(&l2a[0], pte_of(l1b, PDE_FLAGS)))
			bad++;
		else if (l1a[0] || !l1e_matches(l1b[0], rwF()) || *(volatile uint64_t *)V != F[0])
			stale++;
	}
	check(!bad && !stale,
	      "L2 swap in a multicall, %u rounds: the new L1 is edited, the old one never (%u stale, %u failed)",
	      ROUNDS, stale, bad);
}

static void unhook_and_reuse(void)
{
	uint64_t *l1c = page_alloc();
	uint64_t forged = pte_of(l2a, PTE_RW_FLAGS), v = 0;
	unsigned long n;
	bool done;
	long rc;

	if (page_ro(l1c))
		test_fail("cannot remap L1c read-only");
	rc = mmu_update1(virt_to_maddr(&l2a[0]), pte_of(l1c, PDE_FLAGS));
	check(rc == 0, "L2a[0] = L1c (its only reference): %ld %s", rc, errno_name(rc));
	rc = hypercall_update_va_mapping(V, rwF(), UVMF_INVLPG);
	check(rc == 0 && *(volatile uint64_t *)V == F[0], "update_va_mapping(V, F) through it: %ld", rc);
	rc = page_rw(l1c);
	check(rc == -XEN_EBUSY, "L1c, still hooked, cannot be mapped writable: %ld %s (want -EBUSY)", rc,
	      errno_name(rc));

	rc = mmu_update1(virt_to_maddr(&l2a[0]), 0);
	check(rc == 0, "mmu_update L2a[0] = 0 (unhook L1c, no flush asked): %ld", rc);
	rc = page_rw(l1c);
	if (!check(rc == 0, "L1c is a free page now: mapped writable %ld %s", rc, errno_name(rc)))
		return;
	l1c[0] = forged;
	l1c[1] = forged;

	rc = hypercall_update_va_mapping(V, rwF(), UVMF_INVLPG);
	check(rc == -XEN_EINVAL && l1c[0] == forged,
	      "update_va_mapping(V) with V unhooked: %ld %s (want -EINVAL), L1c[0] untouched (%#llx)", rc,
	      errno_name(rc), (unsigned long long)l1c[0]);
	n = probe_fault.count;
	done = probe_read((void *)V, &v);
	check((done && v == F[0]) || (!done && probe_fault.count == n + 1 && probe_fault.error == 0),
	      "before our flush V faults or still reads F from the TLB, never the forged entry (%s, %#llx)",
	      done ? "read" : "fault", done ? (unsigned long long)v : (unsigned long long)probe_fault.error);
	tlb_flush();
	n = probe_fault.count;
	done = probe_read((void *)V, &v);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 0 && probe_fault.cr2 == V,
	      "after MMUEXT_TLB_FLUSH_LOCAL a read of V faults, not present (error %#lx cr2 %#lx)",
	      probe_fault.error, probe_fault.cr2);

	rc = page_ro(l1c);
	check(rc == 0, "L1c read-only again: %ld", rc);
	rc = pin(1, l1c);
	check(rc == -XEN_EBUSY, "pinning L1c with the forged entry: %ld %s (want -EBUSY)", rc, errno_name(rc));
}

void test_main(void)
{
	l3 = pt_entry(0, 3) - pt_index(0, 3);
#ifdef __i386__
	/* dom0_construct_pv gives a PAE guest all four L3 slots ("Ensure the first four L3 entries
	 * are all populated"), slot 2 an empty L2: replaced by ours, so it must map nothing. */
	const uint64_t *old_l2 = pt_entry(V, 2);
	unsigned int used = 0;

	for (unsigned int i = 0; old_l2 && i < 512; i++)
		used += (old_l2 - pt_index(V, 2))[i] != 0;
	if (!old_l2 || used)
		test_fail("L3 slot %lu is not the builder's empty L2 (%#llx, %u entries)", SLOT,
			  (unsigned long long)l3[SLOT], used);
#else
	if (l3[SLOT])
		test_fail("L3 slot %lu is in use", SLOT);
#endif
	l2a = page_alloc();
	l2b = page_alloc();
	l1a = page_alloc();
	l1b = page_alloc();
	F = page_alloc();
	F[0] = 0xf00df00df00d0000ULL;
	l2a[0] = pte_of(l1a, PDE_FLAGS);
	l2b[0] = pte_of(l1b, PDE_FLAGS);
	if (page_ro(l1a) || page_ro(l1b) || page_ro(l2a) || page_ro(l2b) || pin(2, l2a) || pin(2, l2b))
		test_fail("cannot make and pin the two L2 -> L1 hierarchies");

	l3_swap();
	l2_swap();
	unhook_and_reuse();
}
