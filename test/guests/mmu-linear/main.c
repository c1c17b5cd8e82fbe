/*
 * mmu-linear: linear ("recursive") page tables of a 64-bit PV guest, and XSA-240's limits.
 *
 * Xen lets a page table point at a table of its own level, read-only (xen/arch/x86/mm.c,
 * get_l{2,3,4}_linear_pagetable; CONFIG_PV_LINEAR_PT, on by default and in the stock shim):
 * an L4 entry pointing at its own L4 makes every page table of the address space readable at
 * fixed addresses, which some guests use. Read-only is the point: a writable self-map would let
 * the guest write its PTEs unchecked, so it is -EINVAL. XSA-240 found that chains of such entries
 * (L4 A -> L4 B -> L4 C ...) let a guest keep a page table alive with no type reference left and
 * exhaust the hypervisor's stack on teardown; since then a table may either have linear entries
 * to other tables or be used linearly by others, never both (linear_pt_count: > 0 = has such
 * entries, < 0 = is used so), and a self-reference counts for neither. Each refusal is -EINVAL.
 * We check, with A the L4 we run on and B, C, D pinned spare L4s (slot S = 300 and neighbours):
 *  - A[S] = A read-only: 0; the L1 entry of a known va reads back through the linear map at
 *    sext(S << 39) + (va >> 12) * 8, the L4 itself at the address with all four indices S; a
 *    write there faults (#PF present|write); after clearing A[S] the address is not present.
 *  - A[S+1] = A writable: -EINVAL.
 *  - A[S] = B: 0 (A has a linear entry, B is used linearly); then B[S] = C: -EINVAL (B is used);
 *    B[S] = B: 0 (a self-map does not count); C[S] = D: 0; A[S+1] = C: -EINVAL (C has an entry);
 *    D[S] = B: -EINVAL (D is used). After A[S] = 0, B is free: B[S+1] = C is still -EINVAL (C has
 *    an entry), B[S+1] = D is 0 (D may be used twice), and now A[S] = B is -EINVAL (B has one).
 *  - the same rule one level down: a pinned L3 and a pinned L2 may map themselves read-only (0),
 *    not writable (-EINVAL).
 *
 * The 32-bit PAE build (mmu-linear-pv32; Xen 4.17's compat rules, xen/arch/x86/mm.c): there is no
 * L4 (the L4 checks are skipped, a line says so). The linear rules are the same code one level
 * down: get_page_from_l2e falls back to get_l2_linear_pagetable (define_get_linear_pagetable, as
 * for L4), so A is the bootstrap L2 we run on (the one under L3 slot 0, which maps our image) and
 * B, C, D are pinned spare L2s; slot S of A maps va S << 21, and there page j is the frame A[j]
 * points at (the L1 of va j << 21; at j = S, A itself). The self-map, the write fault (cr2 = its
 * first store, the high half: lib/x86_32/probe.S) and the XSA-240 chains are checked as above.
 * An L3 may not be linear in a 32-bit domain (get_page_from_l3e: !is_pv_32bit_domain): a pinned
 * L3 (slot 3 an L2 of its own, promote_l3_table) mapping itself read-only is -EINVAL, where a
 * plain L2 in that slot with the same flags is 0. A pinned L2 maps itself as above; the L2 under
 * that L3's slot 3 (PGT_pae_xen_l2) may map itself in its last guest slot (0), not in its first
 * Xen slot, HYPERVISOR_VIRT_START's (mod_l2_entry, is_guest_l2_slot: -EPERM).
 *
 * Expect: stock PASS on xen (64-bit and 32-bit); ours PASS on xen and none (64-bit and
 * 32-bit).
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"

const char test_title[] = "mmu-linear: linear page tables, read-only only, one level deep (XSA-240)";

#define S 300UL

#ifdef __i386__
/* no L4: the linear tables are L2s (get_l2_linear_pagetable, the same rules) */
#define TOP 2
#else
#define TOP 4

static unsigned long sext(unsigned long va)
{
	return va & (1UL << 47) ? va | 0xffff000000000000UL : va;
}
#endif

static uint64_t *A;

static long set(uint64_t *table, unsigned long slot, uint64_t val)
{
	return mmu_update1(virt_to_maddr(&table[slot]), val);
}

static uint64_t ro(const void *t)
{
	return pte_of(t, PTE_PRESENT | PTE_USER | PTE_ACCESSED);
}

static void self_map(void)
{
	void *win = page_alloc();
#ifdef __i386__
	/* A[S] = A: page j of va S << 21 is what A[j] points at; our window is in A's GiB (0) */
	unsigned long l1e_va = (S << 21) + (((unsigned long)win >> 12) << 3);
	unsigned long l4_va = S << 21 | S << 12;
	/* the probe's 64-bit store is two, the high half first: it faults there */
	unsigned long store_va = l1e_va + 4;
#else
	unsigned long l1e_va = sext(S << 39) + (((unsigned long)win >> 12) << 3);
	unsigned long l4_va = sext(S << 39 | S << 30 | S << 21 | S << 12);
	unsigned long store_va = l1e_va;
#endif
	uint64_t v = 0;
	unsigned long n;
	bool done;
	long rc;

	rc = set(A, S, ro(A));
	if (!check(rc == 0, "A[%lu] = A read-only (self-map): %ld %s", S, rc, errno_name(rc)))
		return;
	done = probe_read((void *)l1e_va, &v);
	check(done && v == *pt_entry((unsigned long)win, 1),
	      "the linear map at %#lx reads the window's L1 entry %#llx (want %#llx)", l1e_va,
	      (unsigned long long)v, (unsigned long long)*pt_entry((unsigned long)win, 1));
	done = probe_read((void *)(l4_va + S * 8), &v);
	check(done && PTE_MFN(v) == virt_to_mfn(A), "the L%d reads itself at %#lx: slot %lu = %#llx", TOP,
	      l4_va, S, (unsigned long long)v);
	n = probe_fault.count;
	done = probe_write((void *)l1e_va, 0);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 3 &&
	      probe_fault.cr2 == store_va, "a write through it faults: error %#lx cr2 %#lx (want %#lx)",
	      probe_fault.error, probe_fault.cr2, store_va);

	rc = set(A, S + 1, ro(A) | PTE_RW);
	check(rc == -XEN_EINVAL, "A[%lu] = A writable: %ld %s (want -EINVAL)", S + 1, rc, errno_name(rc));

	rc = set(A, S, 0);
	check(rc == 0, "A[%lu] = 0: %ld", S, rc);
	tlb_flush();
	n = probe_fault.count;
	done = probe_read((void *)l1e_va, &v);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 0,
	      "after clearing it the linear address is not present: error %#lx", probe_fault.error);
}

static void chains(void)
{
	uint64_t *B = page_alloc(), *C = page_alloc(), *D = page_alloc();
	long rc;

	if (page_ro(B) || page_ro(C) || page_ro(D) || pin(TOP, B) || pin(TOP, C) || pin(TOP, D))
		test_fail("cannot pin three spare L%ds", TOP);

	rc = set(A, S, ro(B));
	check(rc == 0, "A[S] = B: %ld %s (A has a linear entry, B is used linearly)", rc, errno_name(rc));
	rc = set(B, S, ro(C));
	check(rc == -XEN_EINVAL, "B[S] = C while B is used linearly: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = set(B, S, ro(B));
	check(rc == 0, "B[S] = B (self-map, not counted): %ld %s", rc, errno_name(rc));
	rc = set(C, S, ro(D));
	check(rc == 0, "C[S] = D: %ld %s", rc, errno_name(rc));
	rc = set(A, S + 1, ro(C));
	check(rc == -XEN_EINVAL, "A[S+1] = C while C has a linear entry: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = set(D, S, ro(B));
	check(rc == -XEN_EINVAL, "D[S] = B while D is used linearly: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	rc = set(A, S, 0);
	check(rc == 0, "A[S] = 0: %ld", rc);
	rc = set(B, S + 1, ro(C));
	check(rc == -XEN_EINVAL, "B[S+1] = C (C still has an entry): %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = set(B, S + 1, ro(D));
	check(rc == 0, "B[S+1] = D (D used twice is fine): %ld %s", rc, errno_name(rc));
	rc = set(A, S, ro(B));
	check(rc == -XEN_EINVAL, "A[S] = B now that B has a linear entry: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	rc = set(B, S + 1, 0) | set(B, S, 0) | set(C, S, 0);
	check(rc == 0, "clearing the linear entries: %ld", rc);
	rc = unpin(B) | unpin(C) | unpin(D);
	check(rc == 0, "unpinning B, C, D: %ld", rc);
}

#ifdef __i386__
/* The first of Xen's slots in an L2 under L3 slot 3: HYPERVISOR_VIRT_START's (is_guest_l2_slot,
 * COMPAT_L2_PAGETABLE_FIRST_XEN_SLOT; 428 for 0xF5800000). */
#define XEN_L2_FIRST pt_index(HYPERVISOR_VIRT_START, 2)

static void lower_levels(void)
{
	uint64_t *l3 = page_alloc(), *l2 = page_alloc(), *xl2 = page_alloc();
	long rc;

	/* a PAE L3 pins with an L2 of its own in slot 3, its entries P alone (promote_l3_table) */
	l3[3] = pte_of(xl2, PTE_PRESENT);
	if (page_ro(xl2) || page_ro(l3) || page_ro(l2) || pin(3, l3) || pin(2, l2))
		test_fail("cannot pin a spare L3 (with its slot-3 L2) and L2");
	printf("skip: a pinned L3 mapping itself read-only (0 in 64-bit): no linear L3 in a 32-bit domain "
	       "(get_page_from_l3e), checked as -EINVAL\n");
	rc = set(l3, 1, ro(l3));
	check(rc == -XEN_EINVAL, "L3[1] = itself read-only: %ld %s (want -EINVAL: no linear L3 in 32-bit)", rc,
	      errno_name(rc));
	rc = set(l3, 2, ro(l3) | PTE_RW);
	check(rc == -XEN_EINVAL, "L3[2] = itself writable: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = set(l3, 1, ro(l2));
	check(rc == 0, "L3[1] = a pinned L2, the same flags: %ld %s", rc, errno_name(rc));
	rc = set(l2, 7, ro(l2));
	check(rc == 0, "L2[7] = itself read-only: %ld %s", rc, errno_name(rc));
	rc = set(l2, 8, ro(l2) | PTE_RW);
	check(rc == -XEN_EINVAL, "L2[8] = itself writable: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = set(xl2, XEN_L2_FIRST - 1, ro(xl2));
	check(rc == 0, "slot-3 L2[%u] (its last guest slot) = itself read-only: %ld %s", XEN_L2_FIRST - 1, rc,
	      errno_name(rc));
	rc = set(xl2, XEN_L2_FIRST, ro(xl2));
	check(rc == -XEN_EPERM, "slot-3 L2[%u] (Xen's) = itself read-only: %ld %s (want -EPERM)", XEN_L2_FIRST,
	      rc, errno_name(rc));
	rc = set(l3, 1, 0) | set(l2, 7, 0) | set(xl2, XEN_L2_FIRST - 1, 0) | unpin(l3) | unpin(l2);
	check(rc == 0, "cleared and unpinned: %ld", rc);
}
#else
static void lower_levels(void)
{
	uint64_t *l3 = page_alloc(), *l2 = page_alloc();
	long rc;

	if (page_ro(l3) || page_ro(l2) || pin(3, l3) || pin(2, l2))
		test_fail("cannot pin a spare L3 and L2");
	rc = set(l3, 7, ro(l3));
	check(rc == 0, "L3[7] = itself read-only: %ld %s", rc, errno_name(rc));
	rc = set(l3, 8, ro(l3) | PTE_RW);
	check(rc == -XEN_EINVAL, "L3[8] = itself writable: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = set(l2, 7, ro(l2));
	check(rc == 0, "L2[7] = itself read-only: %ld %s", rc, errno_name(rc));
	rc = set(l2, 8, ro(l2) | PTE_RW);
	check(rc == -XEN_EINVAL, "L2[8] = itself writable: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = set(l3, 7, 0) | set(l2, 7, 0) | unpin(l3) | unpin(l2);
	check(rc == 0, "cleared and unpinned: %ld", rc);
}
#endif

void test_main(void)
{
#ifdef __i386__
	printf("skip: L4 linear maps (the self-map, the XSA-240 chains): no L4 in a 32-bit PAE guest; "
	       "the same checks run on L2s (get_l2_linear_pagetable)\n");
	A = pt_entry(0, 2);	/* the bootstrap L2 under L3 slot 0, mapping our image */
	if (!A)
		test_fail("no bootstrap L2 for va 0");
#else
	A = (uint64_t *)start_info->pt_base;
#endif
	if (A[S] || A[S + 1])
		test_fail("L%d slots %lu/%lu are in use", TOP, S, S + 1);
	/* Plain #PFs on read-only page tables, not emulated writes. */
	vm_assist(VMASST_CMD_disable, VMASST_TYPE_writable_pagetables);
	self_map();
	chains();
	lower_levels();
}
