/*
 * mmu-validate: which page-table entries Xen accepts from a 64-bit PV guest, at every level.
 *
 * Every entry a PV guest installs is checked before it is used (xen/arch/x86/mm.c:
 * get_page_from_l1e .. get_page_from_l4e, mod_l1_entry .. mod_l4_entry), because the guest's
 * tables are the real ones. A shim that accepts one bad entry hands its guest the machine. The
 * rules and the exact results (Xen 4.17), through update_va_mapping and mmu_update alike:
 *  - no writable mapping of a page table (pinned, or in use as the current L4 or a bootstrap
 *    L1): -EBUSY (get_page_type(writable) fails). A read-only one is fine, and reads the table.
 *  - L1 flags: the cache attributes PWT, PCD, PAT are refused (-EINVAL) for a guest with no I/O
 *    memory (the shim's guest has none: dom0_setup_permissions() returns early for pv_shim).
 *  - L1 frames: a frame beyond the frame table is I/O memory we may not map (-EPERM); a valid
 *    frame owned by Xen (the L3 behind L4 slot 256) is -EBUSY.
 *  - L2, L3, L4 entries: PSE (superpages: none for 64-bit PV), G, PCD are reserved (-EINVAL);
 *    an L2 entry may point only at an L1 (or, read-only, at an L2: see mmu-linear): at a data
 *    page it is -EINVAL.
 *  - L4 slots 256-271 (HYPERVISOR_VIRT_START..END) belong to Xen: any mmu_update of them, even
 *    with 0, is -EINVAL ("L4 update in Xen-private area"); slots 255 and 272 are the guest's.
 *  - update_va_mapping of a va in Xen's hole, a non-canonical va, or a va with no L1 is -EINVAL.
 *  - mmu_update commands 4-7 are -ENOSYS; a ptr into a frame we do not own is -EINVAL; a ptr
 *    into an ordinary writable page of ours is simply a write (the page is no page table).
 *    MMU_PT_UPDATE_PRESERVE_AD keeps the entry's A/D bits (ORs them in) and validates like a
 *    normal update; MMU_PT_UPDATE_NO_TRANSLATE is a normal update for an untranslated guest.
 * A refused update leaves the entry as it was; an accepted kernel-only L1 entry reads back either
 * as written or with U and bit 52 added (what Xen 4.17 does: adjust_guest_l1e).
 *
 * The 32-bit PAE build (mmu-validate-pv32; Xen 4.17's rules for a compat guest): the L3 is the
 * top (start_info->pt_base, 4 entries), there is no L4. The L1 and L2 rules are the same (PAE
 * entries are 64 bits, with NX); an accepted L1 entry reads back exactly as written
 * (adjust_guest_l1e leaves a compat guest's alone). The rest differs:
 *  - L3 entries: l3_disallow_mask is 0xFFFFF198 for a compat guest: PWT, PCD, PSE, G and bits
 *    52-63 (NX too) are -EINVAL; an entry written as P alone (as PAE guests do) is accepted and
 *    reads back with RW and U added (adjust_guest_l3e); an mmu_update of slot 3 or above is
 *    -EINVAL whatever the value (mod_l3_entry: slot 3 holds Xen's L2).
 *  - Xen's slots are those of the L2 under L3 slot 3 from HYPERVISOR_VIRT_START (HV_START_LOW,
 *    0xF5800000: 428-511, the compat m2p): an mmu_update of one, even with its own value, is
 *    -EPERM (mod_l2_entry, is_guest_l2_slot); slot 427 is the guest's.
 *  - update_va_mapping of a va in Xen's area (the m2p's superpages, or its empty slots up to
 *    4 GiB) or of a va with no L2 or no L1 is -EINVAL (map_guest_l1e); there are no
 *    non-canonical vas. (The builder gives all 4 L3 slots an L2: slot 2's, which maps nothing,
 *    is replaced, cleared and put back for the L3 checks.)
 *  - the Xen frame is the compat m2p's first (behind the bootstrap L2's slot 428).
 * The L4 checks (bits 7 and G in an L4 entry, slots 256-271 and their neighbours) are 64-bit
 * only and say so.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "mm.h"

const char test_title[] = "mmu-validate: entries refused and accepted at each level";

#define PTE_PWT 0x008UL
#define PTE_PCD 0x010UL
#define PTE_PAT 0x080UL	/* bit 7 in an L1 entry */
#define PTE_G   0x100UL


static uint64_t *win, *win_l1e, *data, *l1;

/* update_va_mapping of the window, which must leave the entry as it was on failure. */
static void uvm_expect(uint64_t val, long want, const char *what)
{
	uint64_t before = *win_l1e;
	long rc = hypercall_update_va_mapping((unsigned long)win, val, UVMF_INVLPG);

	check(rc == want && (rc || l1e_matches(*win_l1e, val)) && (!rc || *win_l1e == before),
	      "update_va_mapping %s: %ld %s (want %ld %s), entry %#llx", what, rc, errno_name(rc),
	      want, errno_name(want), (unsigned long long)*win_l1e);
}

static void mmu_expect(uint64_t *entry, uint64_t val, long want, const char *what)
{
	uint64_t before = *entry;
	long rc = mmu_update1(virt_to_maddr(entry), val);

	check(rc == want && (!rc || *entry == before),
	      "mmu_update %s: %ld %s (want %ld %s)", what, rc, errno_name(rc), want, errno_name(want));
}

static void writable_tables(void)
{
	uint64_t *l4 = (uint64_t *)start_info->pt_base;	/* the top table: the L3 in 32-bit */
	uint64_t orig = *win_l1e;

	uvm_expect(pte_of(l1, PTE_RW_FLAGS), -XEN_EBUSY, "writable map of a pinned L1");
	mmu_expect(win_l1e, pte_of(l1, PTE_RW_FLAGS), -XEN_EBUSY, "(L1 entry) writable map of a pinned L1");
#ifdef __i386__
	uvm_expect(pte_of(l4, PTE_RW_FLAGS), -XEN_EBUSY, "writable map of the current L3");
	uvm_expect(pte_of(boot_xen_l2(), PTE_RW_FLAGS), -XEN_EBUSY, "writable map of its slot-3 L2");
#else
	uvm_expect(pte_of(l4, PTE_RW_FLAGS), -XEN_EBUSY, "writable map of the current L4");
#endif
	uvm_expect(pte_of(win_l1e, PTE_RW_FLAGS), -XEN_EBUSY, "writable map of a bootstrap L1");
	uvm_expect(pte_of(l1, PTE_RO_FLAGS), 0, "read-only map of the pinned L1");
	check(win[3] == l1[3], "the window reads the L1's entry 3 (%#llx)", (unsigned long long)win[3]);
#ifdef __i386__
	mmu_expect(win_l1e, pte_of(l4, PTE_RO_FLAGS), 0, "(L1 entry) read-only map of the current L3");
	invlpg(win);
	check(win[3] == l4[3] && (win[3] & PTE_PRESENT), "the window reads the L3's slot 3 (%#llx)",
	      (unsigned long long)win[3]);
#else
	mmu_expect(win_l1e, pte_of(l4, PTE_RO_FLAGS), 0, "(L1 entry) read-only map of the current L4");
	invlpg(win);
	check(win[256] == l4[256], "the window reads the L4's slot 256 (%#lx)", (unsigned long)win[256]);
#endif
	uvm_expect(orig, 0, "back to the window's own frame");
}

static void l1_entries(void)
{
	const uint64_t huge = 1ULL << 35;	/* 128 TiB: far beyond any frame table of the bed */

	uvm_expect(pte_of(data, PTE_RW_FLAGS | PTE_PWT), -XEN_EINVAL, "with PWT");
	uvm_expect(pte_of(data, PTE_RW_FLAGS | PTE_PCD), -XEN_EINVAL, "with PCD");
	uvm_expect(pte_of(data, PTE_RW_FLAGS | PTE_PAT), -XEN_EINVAL, "with PAT");
	uvm_expect(pte_of(data, PTE_RW_FLAGS | PTE_G | 0xe00 | PTE_NX), 0,
		   "with G, the 3 available bits and NX (allowed)");
	uvm_expect((huge << PAGE_SHIFT) | PTE_RO_FLAGS, -XEN_EPERM, "of mfn 1<<35 (beyond the frame table)");
#ifdef __i386__
	uvm_expect(pte(xen_mfn(), PTE_RO_FLAGS), -XEN_EBUSY, "of a Xen frame (compat m2p), read-only");
#else
	uvm_expect(pte(xen_mfn(), PTE_RO_FLAGS), -XEN_EBUSY, "of a Xen frame (m2p L3), read-only");
#endif
	uvm_expect(pte(xen_mfn(), PTE_RW_FLAGS), -XEN_EBUSY, "of a Xen frame, writable");
	uvm_expect(pte_of(win, PTE_RW_FLAGS), 0, "back to the window's own frame");
}

static void upper_entries(void)
{
#ifdef __i386__
	uint64_t *l3 = (uint64_t *)start_info->pt_base;	/* PAE: the top, 4 entries */
	uint64_t *l2 = pt_entry(0, 2) - pt_index(0, 2);	/* the bootstrap L2 of va 0 */
	/* 1000 MiB: empty. The builder gives all 4 L3 slots an L2: slot 2's (2-3 GiB) must map
	 * nothing, and is put back at the end. */
	const unsigned int s2 = 500, s3 = 2;
	const uint64_t l3e_s3 = l3[s3], *l2_s3 = pt_entry((unsigned long)s3 << 30, 2);
	unsigned int used = 0;

	for (unsigned int i = 0; l2_s3 && i < 512; i++)
		used += !!(l2_s3[i] & PTE_PRESENT);
	if (l2[s2] || used)
		test_fail("the slots meant to be empty are not: L2 %#llx; the L2 of L3 slot %u maps %u",
			  (unsigned long long)l2[s2], s3, used);
#else
	uint64_t *l4 = (uint64_t *)start_info->pt_base;
	uint64_t *l3 = pt_entry(0, 3) - pt_index(0, 3);	/* the bootstrap L3 and L2 of va 0 */
	uint64_t *l2 = pt_entry(0, 2) - pt_index(0, 2);
	const unsigned int s2 = 500, s3 = 5, s4 = 5;	/* empty: 1000 MiB, 5 GiB, 2.5 TiB */

	if (l2[s2] || l3[s3] || l4[s4])
		test_fail("the slots meant to be empty are not: L2 %#lx L3 %#lx L4 %#lx",
			  (unsigned long)l2[s2], (unsigned long)l3[s3], (unsigned long)l4[s4]);
#endif
	mmu_expect(&l2[s2], pte_of(data, PDE_FLAGS | PTE_PSE), -XEN_EINVAL, "L2 entry with PSE (2 MiB page)");
	mmu_expect(&l2[s2], pte_of(l1, PDE_FLAGS | PTE_G), -XEN_EINVAL, "L2 entry with G");
	mmu_expect(&l2[s2], pte_of(l1, PDE_FLAGS | PTE_PCD), -XEN_EINVAL, "L2 entry with PCD");
	mmu_expect(&l2[s2], pte_of(data, PDE_FLAGS), -XEN_EINVAL, "L2 entry -> a writable data page");
	mmu_expect(&l2[s2], pte_of(l1, PDE_FLAGS), 0, "L2 entry -> the pinned L1");
	unsigned long va = (unsigned long)s2 << 21;

	check(*(volatile uint64_t *)(va + 3 * PAGE_SIZE) == data[0],
	      "va %#lx + 3 pages reads the data page through it", va);
	mmu_expect(&l2[s2], 0, 0, "L2 entry cleared");
	tlb_flush();

#ifdef __i386__
	/* compat l3_disallow_mask (0xFFFFF198): PWT, PCD, PSE, G and bits 52-63, NX among them */
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | PTE_PSE), -XEN_EINVAL, "L3 entry with PSE (1 GiB page)");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | PTE_G), -XEN_EINVAL, "L3 entry with G");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | PTE_PCD), -XEN_EINVAL, "L3 entry with PCD");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | PTE_PWT), -XEN_EINVAL, "L3 entry with PWT");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | PTE_NX), -XEN_EINVAL,
		   "L3 entry with NX (allowed in L1 and L2 entries)");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT | (1ULL << 52)), -XEN_EINVAL,
		   "L3 entry with bit 52 (available in L1 and L2 entries)");
	mmu_expect(&l3[s3], pte_of(data, PTE_PRESENT), -XEN_EINVAL, "L3 entry -> a writable data page");
	mmu_expect(&l3[s3], pte_of(l1, PTE_PRESENT), -XEN_EINVAL, "L3 entry -> the pinned L1");
	mmu_expect(&l3[s3], pte_of(l2, PTE_PRESENT), 0, "L3 entry -> the L2 of slot 0, written as P alone");
	check(l3[s3] == pte_of(l2, PTE_PRESENT | PTE_RW | PTE_USER),
	      "it reads back with RW and U added (adjust_guest_l3e): %#llx", (unsigned long long)l3[s3]);
	tlb_flush();
	va = ((unsigned long)s3 << 30) + (unsigned long)data;
	check(*(volatile uint64_t *)va == data[0], "va %#lx (%u GiB above the data page) reads it", va, s3);
	mmu_expect(&l3[s3], 0, 0, "L3 entry cleared");
	tlb_flush();
	long rc = hypercall_update_va_mapping((unsigned long)s3 << 30, pte_of(data, PTE_RO_FLAGS), UVMF_INVLPG);
	check(rc == -XEN_EINVAL, "update_va_mapping of va %#lx (no L2 now): %ld %s (want -EINVAL)",
	      (unsigned long)s3 << 30, rc, errno_name(rc));
	mmu_expect(&l3[s3], l3e_s3, 0, "L3 entry back to its own L2");
	check(l3[s3] == l3e_s3, "and reads as before: %#llx", (unsigned long long)l3[s3]);
	tlb_flush();

	/* mod_l3_entry: slot 3 holds Xen's L2, and the entries past PAE's 4 are no slots at all */
	mmu_expect(&l3[3], l3[3], -XEN_EINVAL, "L3 slot 3 (Xen's L2) = its own value");
	mmu_expect(&l3[3], 0, -XEN_EINVAL, "L3 slot 3 = 0");
	mmu_expect(&l3[4], 0, -XEN_EINVAL, "L3 entry 4 = 0");
	mmu_expect(&l3[511], 0, -XEN_EINVAL, "L3 entry 511 = 0");

	/* Xen's slots of the slot-3 L2: refused whatever the value; the guest's neighbour is fine,
	 * and so is the same slot in an L2 that is not a slot-3 one (is_guest_l2_slot) */
	uint64_t *xl2 = boot_xen_l2();
	const unsigned int xen_slots[] = { XEN_L2_FIRST, XEN_L2_FIRST + 1, 500, 511 };
	char what[96];

	for (unsigned int i = 0; i < ARRAY_SIZE(xen_slots); i++) {
		unsigned int s = xen_slots[i];

		snprintf(what, sizeof(what), "slot-3 L2 slot %u (Xen's) = 0", s);
		mmu_expect(&xl2[s], 0, -XEN_EPERM, what);
		snprintf(what, sizeof(what), "slot-3 L2 slot %u (Xen's) = its own value", s);
		mmu_expect(&xl2[s], xl2[s], -XEN_EPERM, what);
	}
	snprintf(what, sizeof(what), "slot-3 L2 slot %u (guest's) = its own value (%#llx)", XEN_L2_FIRST - 1,
		 (unsigned long long)xl2[XEN_L2_FIRST - 1]);
	mmu_expect(&xl2[XEN_L2_FIRST - 1], xl2[XEN_L2_FIRST - 1], 0, what);
	snprintf(what, sizeof(what), "slot-0 L2 slot %u (guest's there) = its own value (%#llx)", XEN_L2_FIRST,
		 (unsigned long long)l2[XEN_L2_FIRST]);
	mmu_expect(&l2[XEN_L2_FIRST], l2[XEN_L2_FIRST], 0, what);

	/* map_guest_l1e: Xen's area (the m2p's superpages, its empty slots), no L1 */
	unsigned long bad_va[] = { HYPERVISOR_VIRT_START, HYPERVISOR_VIRT_START + 0x1234000, 0xfffff000UL,
				   (unsigned long)s2 << 21 };
	for (unsigned int i = 0; i < ARRAY_SIZE(bad_va); i++) {
		rc = hypercall_update_va_mapping(bad_va[i], pte_of(data, PTE_RO_FLAGS), UVMF_INVLPG);
		check(rc == -XEN_EINVAL, "update_va_mapping of va %#lx (Xen's area, or no L1): %ld %s (want -EINVAL)",
		      bad_va[i], rc, errno_name(rc));
	}
#else
	mmu_expect(&l3[s3], pte_of(data, PDE_FLAGS | PTE_PSE), -XEN_EINVAL, "L3 entry with PSE (1 GiB page)");
	mmu_expect(&l3[s3], pte_of(l2, PDE_FLAGS | PTE_G), -XEN_EINVAL, "L3 entry with G");
	mmu_expect(&l4[s4], pte_of(l3, PDE_FLAGS | PTE_PSE), -XEN_EINVAL, "L4 entry with bit 7 (reserved)");
	mmu_expect(&l4[s4], pte_of(l3, PDE_FLAGS | PTE_G), -XEN_EINVAL, "L4 entry with G");

	/* Xen's slots: refused whatever the value; the guest's neighbours are fine. */
	static const unsigned int xen_slots[] = { 256, 257, 258, 262, 271 };

	for (unsigned int i = 0; i < ARRAY_SIZE(xen_slots); i++) {
		unsigned int s = xen_slots[i];
		char what[64];

		snprintf(what, sizeof(what), "L4 slot %u (Xen's) = 0", s);
		mmu_expect(&l4[s], 0, -XEN_EINVAL, what);
		snprintf(what, sizeof(what), "L4 slot %u (Xen's) = its own value", s);
		mmu_expect(&l4[s], l4[s], -XEN_EINVAL, what);
	}
	mmu_expect(&l4[255], 0, 0, "L4 slot 255 (guest's, empty) = 0");
	mmu_expect(&l4[272], 0, 0, "L4 slot 272 (guest's, empty) = 0");

	unsigned long bad_va[] = { HYPERVISOR_VIRT_START, HYPERVISOR_VIRT_START + 0x1234000,
				   HYPERVISOR_VIRT_END - PAGE_SIZE, 1UL << 47, 5UL << 39 };
	for (unsigned int i = 0; i < ARRAY_SIZE(bad_va); i++) {
		long rc = hypercall_update_va_mapping(bad_va[i], pte_of(data, PTE_RO_FLAGS), UVMF_INVLPG);

		check(rc == -XEN_EINVAL, "update_va_mapping of va %#lx (Xen's hole, non-canonical, or no L1): %ld %s (want -EINVAL)",
		      bad_va[i], rc, errno_name(rc));
	}
#endif
}

static void mmu_update_cmds(void)
{
	long rc;

	for (unsigned int cmd = 4; cmd < 8; cmd++) {
		rc = mmu_update1(virt_to_maddr(win_l1e) | cmd, *win_l1e);
		check(rc == -XEN_ENOSYS, "mmu_update command %u: %ld %s (want -ENOSYS)", cmd, rc,
		      errno_name(rc));
	}
	rc = mmu_update1((uint64_t)xen_mfn() << PAGE_SHIFT, 0);
	check(rc == -XEN_EINVAL, "mmu_update into a Xen frame: %ld %s (want -EINVAL)", rc, errno_name(rc));
	/* MMU_PT_UPDATE_PRESERVE_AD (Linux's ptep_modify_prot_commit): A/D of the entry survive. */
	rc = hypercall_update_va_mapping((unsigned long)win, pte_of(data, PTE_RW_FLAGS), UVMF_INVLPG);
	check(rc == 0 && (*win_l1e & (PTE_ACCESSED | PTE_DIRTY)) == (PTE_ACCESSED | PTE_DIRTY),
	      "window -> data with A|D: %ld, entry %#llx", rc, (unsigned long long)*win_l1e);
	rc = mmu_update1(virt_to_maddr(win_l1e) | MMU_PT_UPDATE_PRESERVE_AD,
			 pte_of(data, PTE_PRESENT | PTE_RW));
	check(rc == 0 && l1e_matches(*win_l1e, pte_of(data, PTE_RW_FLAGS)),
	      "MMU_PT_UPDATE_PRESERVE_AD without A|D: %ld %s, entry %#llx keeps A|D", rc, errno_name(rc),
	      (unsigned long long)*win_l1e);
	rc = mmu_update1(virt_to_maddr(win_l1e) | MMU_PT_UPDATE_PRESERVE_AD, pte_of(l1, PTE_RW_FLAGS));
	check(rc == -XEN_EBUSY, "MMU_PT_UPDATE_PRESERVE_AD validates too (writable map of an L1): %ld %s",
	      rc, errno_name(rc));
	/* MMU_PT_UPDATE_NO_TRANSLATE: for a PV (untranslated) guest the same as a normal update. */
	rc = mmu_update1(virt_to_maddr(win_l1e) | MMU_PT_UPDATE_NO_TRANSLATE, pte_of(win, PTE_RW_FLAGS));
	check(rc == 0 && l1e_matches(*win_l1e, pte_of(win, PTE_RW_FLAGS)),
	      "MMU_PT_UPDATE_NO_TRANSLATE back to the window's frame: %ld %s", rc, errno_name(rc));
	invlpg(win);
	rc = mmu_update1(virt_to_maddr(&data[9]), 0x1234567890abcdefULL);
	check(rc == 0 && data[9] == 0x1234567890abcdefULL,
	      "mmu_update into a writable data page is a plain write: %ld, value %#llx", rc,
	      (unsigned long long)data[9]);
}

void test_main(void)
{
	win = page_alloc();
	data = page_alloc();
	l1 = page_alloc();
	win_l1e = pt_entry((unsigned long)win, 1);
	if (!win_l1e)
		test_fail("no bootstrap L1 entry for the window");
	for (unsigned int i = 0; i < 512; i++)
		data[i] = 0xda7a000000000000ULL + i;
	for (unsigned int i = 0; i < 8; i++)	/* l1 maps data at 8 pages */
		l1[i] = pte_of(data, PTE_RO_FLAGS);
	if (page_ro(l1) || pin(1, l1))
		test_fail("cannot make and pin an L1");

#ifdef __i386__
	printf("32-bit PAE: no L4; its checks (bit 7 and G in an L4 entry, slots 256-271 and their "
	       "neighbours, non-canonical vas) are 64-bit only, skipped\n");
#endif
	writable_tables();
	l1_entries();
	upper_entries();
	mmu_update_cmds();
}
