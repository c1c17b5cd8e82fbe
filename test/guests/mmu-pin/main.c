/*
 * mmu-pin: MMUEXT_PIN_L1_TABLE..PIN_L4_TABLE and MMUEXT_UNPIN_TABLE, accepted and refused.
 *
 * A PV guest's page tables are ordinary frames of its own; pinning one (public/xen.h, "Pinning
 * the page type") makes Xen validate it as a table of that level and keep that type until it is
 * unpinned, however many entries point at it. The type rules (xen/arch/x86/mm.c,
 * _get_page_type, promote_l*_table, do_mmuext_op) give exact results that a shim must match:
 *  - a frame can hold one type at a time: pinning a frame still mapped writable anywhere (type
 *    "writable page", count > 0) is -EINVAL, so is pinning at a level other than the one it is
 *    in use at;
 *  - validation: every present entry of the table must pass. An L1 entry with a cache-attribute
 *    bit (PCD) in a guest without I/O memory is -EINVAL; an L1 entry mapping a page table
 *    writable is -EBUSY (get_page_from_l1e cannot take the "writable" type). An L1 whose entries
 *    map writable data pages is not a valid L2 (each entry would have to be an L1): -EINVAL, and
 *    the failed attempt leaves no type behind (the same frame pins as an L1 afterwards);
 *  - pinning twice is -EINVAL ("already pinned"), unpinning a frame that is not pinned is -EINVAL,
 *    a frame we do not own (a Xen frame) is -EINVAL, an unknown command is -ENOSYS;
 *  - a chain L4 -> L3 -> L2 -> L1 pins level by level and unpins from the top; an L1 already in
 *    use by a pinned L2 can itself be pinned (same type), and unpinned again;
 *  - slots 256-271 of an L4 are the hypervisor's (public/arch-x86/xen-x86_64.h): the rule both
 *    shims follow is that pinning ignores whatever the guest left there (Xen's promote_l4_table
 *    validates only the guest's slots) and overwrites all of them, so none keeps the guest's
 *    value, and the guest's own slots stay as written; both also leave 256, the read-only m2p,
 *    empty (without VMASST m2p_strict it is filled only when the L4 becomes a kernel base
 *    pointer: Xen's fill_ro_mpt; test/guests/m2p-strict). What goes in the others is each
 *    hypervisor's own layout, a documented difference checked exactly for each shim
 *    (testbed.shim, from run-guest): Xen 4.17 (init_xen_l4_slots) puts its linear map of that L4
 *    itself in 258 (with the flags of the bootstrap L4's own linear entry) and gives the other 14
 *    slots the bootstrap L4's values; our shim gives all 15 the bootstrap L4's values (its own
 *    mappings; it has no linear map).
 *  - a batch (mmuext_op with several ops) stops at the first failure, returns its error and
 *    reports in *done the number of ops that succeeded before it.
 *  - MMUEXT_NEW_BASEPTR (what Linux does on every switch) to a pinned copy of our L4 works (CR3
 *    reads it; slot 256 then holds the m2p, read through machine_to_phys_mapping: filled now)
 *    and back; to a writable page or an L1 it is -EINVAL;
 *    MMUEXT_NEW_USER_BASEPTR takes the same L4 or 0, a writable page is -EINVAL.
 *
 * The 32-bit PAE build (mmu-pin-pv32; Xen 4.17's rules for a compat guest, xen/arch/x86/mm.c):
 * there is no L4, the L3 (4 entries used) is the top. l1_rules and batch are the same, but for
 * an empty batch, which leaves *done as it was (compat_mmuext_op calls nothing); the Xen frame is
 * the compat m2p's, behind the bootstrap L2 of L3 slot 3. The chain is L3 -> L2 -> L1:
 *  - pinning an L3 needs slot 3 present, an L2 that no other L3 uses there (promote_l3_table,
 *    pae_xen_mappings_check: else -EINVAL); that L2 gets the type "L2 with Xen's slots"
 *    (PGT_pae_xen_l2): it cannot be pinned as a plain L2 (-EINVAL), a plain pinned L2 cannot serve
 *    in slot 3 (-EINVAL), and its slots from HYPERVISOR_VIRT_START (HV_START_LOW 0xF5800000: 428
 *    to 511, the read-only compat m2p) are Xen's: the pin overwrites the guest's junk there with
 *    Xen's entries (init_xen_pae_l2_slots: the bootstrap L2's), an mmu_update of one is -EPERM
 *    (mod_l2_entry, is_guest_l2_slot), slot 427 is the guest's;
 *  - the pin clears entries 4-511 of the L3 (promote_l3_table: the MMU sees the whole page in
 *    compat mode), adds RW and U to the present ones (adjust_guest_l3e; a PAE guest writes them as
 *    P alone) and the unpin takes RW, U and A off again (unadjust_guest_l3e); an mmu_update of L3
 *    slot 3 or above is -EINVAL (mod_l3_entry);
 *  - MMUEXT_PIN_L4_TABLE is ignored (do_mmuext_op: 0, nothing pinned, nothing checked);
 *  - MMUEXT_NEW_BASEPTR takes a copy of our L3 (with its own slot-3 L2) and back; CR3 reads it;
 *    MMUEXT_NEW_USER_BASEPTR is -EINVAL whatever the argument (compat_mmuext_op: no user base
 *    pointer in 32-bit).
 * The L4 checks (slots 256-271, the linear map in 258, slot 256's m2p) are 64-bit only and say so.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "mm.h"

const char test_title[] = "mmu-pin: pin and unpin page tables at each level";

static void l1_rules(void)
{
	uint64_t *l1 = page_alloc(), *data = page_alloc(), *w = page_alloc();
	long rc;

	/* A valid L1: data read-only in slot 0, writable in slot 1. */
	l1[0] = pte_of(data, PTE_RO_FLAGS);
	l1[1] = pte_of(w, PTE_RW_FLAGS);

	rc = pin(1, l1);
	check(rc == -XEN_EINVAL, "pin L1 of a frame still mapped writable: %ld %s (want -EINVAL)",
	      rc, errno_name(rc));
	rc = page_ro(l1);
	if (!check(rc == 0, "remap the L1 read-only: %ld %s", rc, errno_name(rc)))
		return;
	rc = pin(1, l1);
	check(rc == 0, "pin L1: %ld %s", rc, errno_name(rc));
	rc = pin(1, l1);
	check(rc == -XEN_EINVAL, "pin L1 twice: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = pin(2, l1);
	check(rc == -XEN_EINVAL, "pin a pinned L1 as L2: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = unpin(l1);
	check(rc == 0, "unpin L1: %ld %s", rc, errno_name(rc));
	rc = unpin(l1);
	check(rc == -XEN_EINVAL, "unpin it again: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = unpin(data);
	check(rc == -XEN_EINVAL, "unpin a data page never pinned: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	/* Wrong level: as an L2, slot 1 would need w to be an L1, but w is a writable page. */
	rc = pin(2, l1);
	check(rc == -XEN_EINVAL, "pin an L1 (entries map writable pages) as L2: %ld %s (want -EINVAL)",
	      rc, errno_name(rc));
	rc = pin(1, l1);
	check(rc == 0, "the failed L2 pin left no type: pin L1 again: %ld %s", rc, errno_name(rc));
	rc = unpin(l1);
	check(rc == 0, "unpin: %ld %s", rc, errno_name(rc));

	/* Bad entries: a cache attribute bit; a writable mapping of a page table (l1 itself). */
	uint64_t *bad = page_alloc();

	bad[5] = pte_of(data, PTE_RO_FLAGS | 0x10 /* PCD */);
	rc = page_ro(bad);
	check(rc == 0, "remap a second L1 read-only: %ld", rc);
	rc = pin(1, bad);
	check(rc == -XEN_EINVAL, "pin L1 with a PCD entry: %ld %s (want -EINVAL)", rc, errno_name(rc));
	check(pin(1, l1) == 0, "pin the first L1 again");
	rc = page_rw(bad);
	check(rc == 0, "remap the second writable to edit it: %ld", rc);
	bad[5] = pte_of(l1, PTE_RW_FLAGS);
	check(page_ro(bad) == 0, "and read-only again");
	rc = pin(1, bad);
	check(rc == -XEN_EBUSY, "pin L1 with a writable mapping of a pinned L1: %ld %s (want -EBUSY)",
	      rc, errno_name(rc));
	rc = unpin(l1);
	check(rc == 0, "unpin the first L1: %ld %s", rc, errno_name(rc));

	rc = mmuext1(MMUEXT_PIN_L1_TABLE, xen_mfn());
	check(rc == -XEN_EINVAL, "pin a Xen frame (mfn %#lx): %ld %s (want -EINVAL)", xen_mfn(), rc,
	      errno_name(rc));
	rc = mmuext1(MMUEXT_UNPIN_TABLE, xen_mfn());
	check(rc == -XEN_EINVAL, "unpin a Xen frame: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = mmuext1(63, 0);
	check(rc == -XEN_ENOSYS, "unknown mmuext command 63: %ld %s (want -ENOSYS)", rc,
	      errno_name(rc));
}

/* Both builds' chains: the L2 and its L1, pinned, mis-pinned, and the L1 kept from being writable. */
static void l2_l1_pins(void *l1, void *l2)
{
	long rc;

	rc = pin(2, l2);
	check(rc == 0, "pin L2 (validates its L1 too): %ld %s", rc, errno_name(rc));
	rc = pin(1, l1);
	check(rc == 0, "pin the L1 it already uses as L1: %ld %s", rc, errno_name(rc));
	rc = pin(1, l2);
	check(rc == -XEN_EINVAL, "pin the pinned L2 as L1: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = pin(3, l1);
	check(rc == -XEN_EINVAL, "pin the L1 as L3: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = unpin(l1);
	check(rc == 0, "unpin the L1 (still in use by the L2): %ld %s", rc, errno_name(rc));
	rc = page_rw(l1);
	check(rc == -XEN_EBUSY, "map that L1 writable while the L2 uses it: %ld %s (want -EBUSY)", rc,
	      errno_name(rc));
}

#ifdef __i386__
/* An L3 whose slot 3 holds l2 (page_rw'd to edit, read-only again): pinning it must fail. */
static void pin_l3_refused(uint64_t *l3, uint64_t l3e3, const char *what)
{
	long rc = page_rw(l3);

	l3[3] = l3e3;
	rc |= page_ro(l3);
	if (!check(rc == 0, "a second L3 read-only again, with slot 3 = %#llx: %ld",
		   (unsigned long long)l3e3, rc))
		return;
	rc = pin(3, l3);
	check(rc == -XEN_EINVAL, "pin an L3 %s: %ld %s (want -EINVAL)", what, rc, errno_name(rc));
}

/* What a pinned L3 made of its L2 in slot 3: Xen's slots as in the bootstrap L2, the guest's
 * junk there gone (init_xen_pae_l2_slots); writes to them refused, the guest's slots not. */
static void xen_l2_slots(uint64_t *l2, const uint64_t *junk_l1)
{
	const uint64_t *boot_l2 = boot_xen_l2();
	unsigned int s, differ = 0, kept = 0;
	long rc;

	for (s = XEN_L2_FIRST; s < 512; s++) {
		/* the CPU sets A in the bootstrap L2's entries as we read the m2p through them */
		differ += (l2[s] ^ boot_l2[s]) & ~(uint64_t)(PTE_ACCESSED | PTE_DIRTY);
		kept += l2[s] == pte_of(junk_l1, PDE_FLAGS);
	}
	check(!differ && !kept && (l2[XEN_L2_FIRST] & PTE_PRESENT),
	      "slots %u-511 of the slot-3 L2 are the bootstrap L2's (%u differ, %u kept the guest's junk; "
	      "%u: %#llx)", XEN_L2_FIRST, differ, kept, XEN_L2_FIRST, (unsigned long long)l2[XEN_L2_FIRST]);
	rc = mmu_update1(virt_to_maddr(&l2[XEN_L2_FIRST]), 0);
	check(rc == -XEN_EPERM, "mmu_update of its slot %u (Xen's) = 0: %ld %s (want -EPERM)", XEN_L2_FIRST,
	      rc, errno_name(rc));
	rc = mmu_update1(virt_to_maddr(&l2[511]), l2[511]);
	check(rc == -XEN_EPERM, "mmu_update of its slot 511 (Xen's) = its own value: %ld %s (want -EPERM)",
	      rc, errno_name(rc));
	rc = mmu_update1(virt_to_maddr(&l2[XEN_L2_FIRST - 1]), 0);
	check(rc == 0 && !l2[XEN_L2_FIRST - 1], "mmu_update of its slot %u (the guest's, empty) = 0: %ld %s",
	      XEN_L2_FIRST - 1, rc, errno_name(rc));
}

/* L3 -> L2 -> L1 -> data, pinned bottom-up; slot 3 of the L3 holds an L2 of its own (xl2). */
static void chain(void)
{
	uint64_t *l3 = page_alloc(), *l2 = page_alloc(), *l1 = page_alloc(), *xl2 = page_alloc();
	uint64_t *data = page_alloc(), *l3b = page_alloc(), *l3c = page_alloc(), *xl2c = page_alloc();
	const uint64_t l3e2 = pte_of(l2, PTE_PRESENT), l3e3 = pte_of(xl2, PTE_PRESENT);
	const uint64_t adjusted = PTE_RW | PTE_USER;
	unsigned int s, kept;
	long rc;

	l1[7] = pte_of(data, PTE_RW_FLAGS);
	l2[3] = pte_of(l1, PDE_FLAGS);
	xl2[5] = pte_of(l1, PDE_FLAGS);
	/* as a PAE guest writes its L3 entries: P alone (RW, U, A are reserved in a real PDPTE) */
	l3[2] = l3e2;
	l3[3] = l3e3;
	l3c[3] = pte_of(xl2c, PTE_PRESENT);
	/* the guest's junk beyond the L3's 4 entries, and in Xen's slots of the slot-3 L2 */
	for (s = 4; s < 512; s++)
		l3[s] = pte_of(l2, PDE_FLAGS);
	for (s = XEN_L2_FIRST; s < 512; s++)
		xl2[s] = pte_of(l1, PDE_FLAGS);
	if (page_ro(l1) || page_ro(l2) || page_ro(xl2) || page_ro(l3) || page_ro(l3b))
		test_fail("cannot remap the chain read-only");

	l2_l1_pins(l1, l2);

	/* promote_l3_table: slot 3 must hold an L2 that only this L3 uses, typed PGT_pae_xen_l2 */
	rc = pin(3, l3b);
	check(rc == -XEN_EINVAL, "pin an L3 with slot 3 empty: %ld %s (want -EINVAL)", rc, errno_name(rc));
	pin_l3_refused(l3b, pte_of(l2, PTE_PRESENT), "whose slot 3 is a pinned plain L2");

	rc = pin(3, l3);
	check(rc == 0, "pin L3 with the guest's junk in entries 4-511 and Xen's L2 slots: %ld %s", rc,
	      errno_name(rc));
	for (s = 4, kept = 0; s < 512; s++)
		kept += l3[s] != 0;
	check(!kept, "the pin cleared entries 4-511 of the L3 (%u not zero)", kept);
	check(l3[2] == (l3e2 | adjusted) && l3[3] == (l3e3 | adjusted),
	      "entries 2 and 3 written as P read %#llx %#llx (Xen adds RW and U: %#llx %#llx)",
	      (unsigned long long)l3[2], (unsigned long long)l3[3], (unsigned long long)(l3e2 | adjusted),
	      (unsigned long long)(l3e3 | adjusted));
	xen_l2_slots(xl2, l1);
	rc = pin(2, xl2);
	check(rc == -XEN_EINVAL, "pin the slot-3 L2 as a plain L2: %ld %s (want -EINVAL)", rc, errno_name(rc));
	/* Another pinned L3's slot-3 L2 (a pair of their own: Xen 4.17's promote_l3_table keeps the
	 * type reference it took on that L2 when pae_xen_mappings_check refuses it, so xl2c stays an
	 * L2 for good and is not used again) */
	if (page_ro(xl2c) || page_ro(l3c) || pin(3, l3c))
		test_fail("cannot pin a second L3 with its own slot-3 L2");
	pin_l3_refused(l3b, pte_of(xl2c, PTE_PRESENT), "whose slot 3 is another pinned L3's slot-3 L2");
	rc = unpin(l3c);
	check(rc == 0, "unpin that other L3: %ld %s", rc, errno_name(rc));
	rc = mmu_update1(virt_to_maddr(&l3[3]), l3[3]);
	check(rc == -XEN_EINVAL, "mmu_update of L3 slot 3 = its own value: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmu_update1(virt_to_maddr(&l3[4]), 0);
	check(rc == -XEN_EINVAL, "mmu_update of L3 entry 4 = 0: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = mmu_update1(virt_to_maddr(&l3[1]), 0);
	check(rc == 0, "mmu_update of L3 slot 1 (empty) = 0: %ld %s", rc, errno_name(rc));
	rc = pin(3, l3);
	check(rc == -XEN_EINVAL, "pin L3 twice: %ld %s (want -EINVAL)", rc, errno_name(rc));

	/* no L4 for a 32-bit guest: do_mmuext_op ignores the pin (0) and checks nothing */
	rc = pin(4, data);
	check(rc == 0, "MMUEXT_PIN_L4_TABLE of a writable data page: %ld %s (want 0: ignored)", rc,
	      errno_name(rc));
	rc = unpin(data);
	check(rc == -XEN_EINVAL, "it pinned nothing: unpin the data page: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	rc = unpin(l3);
	check(rc == 0, "unpin L3: %ld %s", rc, errno_name(rc));
	check(l3[2] == l3e2 && l3[3] == l3e3, "entries 2 and 3 read as written again (Xen took RW, U, A off): "
	      "%#llx %#llx", (unsigned long long)l3[2], (unsigned long long)l3[3]);
	rc = unpin(l2);
	check(rc == 0, "unpin L2: %ld %s", rc, errno_name(rc));
	/* Nothing holds the chain now: each frame can be writable again. */
	rc = page_rw(l1) | page_rw(l2) | page_rw(xl2) | page_rw(l3) | page_rw(l3b) | page_rw(l3c);
	check(rc == 0, "after unpinning, the chain's frames and the other L3s can be mapped writable again: %ld",
	      rc);
	rc = pin(3, l3);
	check(rc == -XEN_EINVAL, "pin L3 of a frame mapped writable: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
}
#else
/* What a pinned L4 (not yet a base pointer) holds in slots 256-271: each shim's own layout. */
static void hypervisor_slots(const uint64_t *l4, const uint64_t *boot_l4)
{
	unsigned int s, differ = 0;

	check(boot_l4[256] && !l4[256], "slot 256 (read-only m2p) is empty until the L4 is a base pointer: %#lx "
	      "(bootstrap L4, in use: %#lx)", (unsigned long)l4[256], (unsigned long)boot_l4[256]);
	if (testbed_ours()) {
		for (s = 257; s <= 271; s++)
			differ += l4[s] != boot_l4[s];
		check(!differ, "ours: the other 15 slots are the bootstrap L4's (%u differ; 258 %#lx)", differ,
		      (unsigned long)l4[258]);
		return;
	}
	uint64_t boot_mfn = virt_to_mfn(boot_l4), flags = boot_l4[258] & ~PTE_ADDR_MASK;

	check(PTE_MFN(boot_l4[258]) == boot_mfn && (boot_l4[258] & PTE_PRESENT),
	      "Xen: the bootstrap L4's slot 258 is its linear map (%#lx)", (unsigned long)boot_l4[258]);
	check(l4[258] == ((virt_to_mfn(l4) << PAGE_SHIFT) | flags),
	      "Xen: slot 258 is the pinned L4's linear map, with the same flags: %#lx", (unsigned long)l4[258]);
	for (s = 257; s <= 271; s++)
		differ += s != 258 && l4[s] != boot_l4[s];
	check(!differ, "Xen: the other 14 slots are the bootstrap L4's (%u differ)", differ);
}

/* L4 -> L3 -> L2 -> L1 -> data, pinned bottom-up (each level once hooked into the next). */
static void chain(void)
{
	uint64_t *l4 = page_alloc(), *l3 = page_alloc(), *l2 = page_alloc(), *l1 = page_alloc();
	uint64_t *data = page_alloc();
	const uint64_t *boot_l4 = (const uint64_t *)start_info->pt_base;
	long rc;

	l1[7] = pte_of(data, PTE_RW_FLAGS);
	l2[3] = pte_of(l1, PDE_FLAGS);
	l3[2] = pte_of(l2, PDE_FLAGS);
	l4[1] = pte_of(l3, PDE_FLAGS);
	/* the guest's junk in the hypervisor's slots: kept, it would map our L3 in the hypervisor's area */
	for (unsigned int s = 256; s <= 271; s++)
		l4[s] = pte_of(l3, PDE_FLAGS);
	if (page_ro(l1) || page_ro(l2) || page_ro(l3) || page_ro(l4))
		test_fail("cannot remap the chain read-only");

	l2_l1_pins(l1, l2);

	rc = pin(3, l3);
	check(rc == 0, "pin L3: %ld %s", rc, errno_name(rc));
	rc = pin(4, l4);
	check(rc == 0, "pin L4 with the guest's junk in slots 256-271: %ld %s", rc, errno_name(rc));
	unsigned int kept = 0;
	for (unsigned int s = 256; s <= 271; s++)
		kept += l4[s] == pte_of(l3, PDE_FLAGS);
	check(!kept, "the pin overwrote all of slots 256-271 (%u kept the guest's value)", kept);
	check(l4[1] == pte_of(l3, PDE_FLAGS), "its guest slot 1 is as we wrote it: %#lx",
	      (unsigned long)l4[1]);
	hypervisor_slots(l4, boot_l4);
	rc = pin(4, l4);
	check(rc == -XEN_EINVAL, "pin L4 twice: %ld %s (want -EINVAL)", rc, errno_name(rc));

	rc = unpin(l4);
	check(rc == 0, "unpin L4: %ld %s", rc, errno_name(rc));
	rc = unpin(l3);
	check(rc == 0, "unpin L3: %ld %s", rc, errno_name(rc));
	rc = unpin(l2);
	check(rc == 0, "unpin L2: %ld %s", rc, errno_name(rc));
	/* Nothing holds the chain now: each frame can be writable again. */
	rc = page_rw(l1) | page_rw(l2) | page_rw(l3) | page_rw(l4);
	check(rc == 0, "after unpinning, all four frames can be mapped writable again: %ld", rc);
	rc = pin(4, l4);
	check(rc == -XEN_EINVAL, "pin L4 of a frame mapped writable: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
}
#endif

/* A batch stops at the first failing op; *done counts the ones before it. */
static void batch(void)
{
	uint64_t *a = page_alloc(), *b = page_alloc();
	struct mmuext_op ops[4] = {
		{ .cmd = MMUEXT_PIN_L1_TABLE, .arg1.mfn = virt_to_mfn(a) },
		{ .cmd = MMUEXT_PIN_L1_TABLE, .arg1.mfn = virt_to_mfn(b) },
		{ .cmd = MMUEXT_PIN_L1_TABLE, .arg1.mfn = virt_to_mfn(a) },	/* twice: fails */
		{ .cmd = MMUEXT_UNPIN_TABLE, .arg1.mfn = virt_to_mfn(b) },	/* never reached */
	};
	unsigned int done = 99;
	long rc;

	if (page_ro(a) || page_ro(b))
		test_fail("cannot remap the batch's pages read-only");
	rc = mmuext(ops, 4, &done);
	check(rc == -XEN_EINVAL && done == 2,
	      "batch pin a, pin b, pin a, unpin b: %ld %s, done %u (want -EINVAL, 2)", rc,
	      errno_name(rc), done);
	rc = unpin(b);
	check(rc == 0, "b is still pinned (the 4th op never ran): unpin %ld %s", rc, errno_name(rc));
	done = 99;
	rc = mmuext(ops + 3, 1, &done);
	check(rc == -XEN_EINVAL && done == 0, "unpin b again as a batch of one: %ld %s, done %u", rc,
	      errno_name(rc), done);
	rc = unpin(a);
	check(rc == 0, "unpin a: %ld %s", rc, errno_name(rc));
	done = 99;
	rc = mmuext(ops, 0, &done);
#ifdef __i386__
	/* compat_mmuext_op translates nothing and never calls do_mmuext_op: done is not written */
	check(rc == 0 && done == 99, "an empty batch: %ld, done %u (want 0, left as it was: 99)", rc, done);
#else
	check(rc == 0 && done == 0, "an empty batch: %ld, done %u", rc, done);
#endif
}

static unsigned long read_cr3(void)
{
	unsigned long v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));	/* emulated for PV: the base pointer */
	return v;
}

#ifdef __i386__
/* A pinned copy of our L3 (with a copy of its slot-3 L2: that one cannot be shared) becomes the
 * base pointer, and back; what may not be one. new_guest_cr3 for a compat guest puts the L3 in
 * slot 0 of Xen's own L4 for the vCPU (mod_l4_entry: it must take the type L3). */
static void base_pointers(void)
{
	const uint64_t *boot_l3 = (const uint64_t *)start_info->pt_base, *boot_l2 = boot_xen_l2();
	unsigned long boot_mfn = virt_to_mfn(boot_l3);
	uint64_t *l3 = page_alloc(), *xl2 = page_alloc(), *l1 = page_alloc();
	void *data = page_alloc();
	long rc;

	for (unsigned int i = 0; i < 3; i++)	/* the guest's slots: the same lower tables */
		l3[i] = boot_l3[i];
	for (unsigned int i = 0; i < XEN_L2_FIRST; i++)
		xl2[i] = boot_l2[i];
	l3[3] = pte_of(xl2, PTE_PRESENT);
	if (page_ro(xl2) || page_ro(l3) || pin(3, l3) || page_ro(l1) || pin(1, l1))
		test_fail("cannot pin a copy of our L3 and a spare L1");
	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(l3));
	check(rc == 0 && read_cr3() >> PAGE_SHIFT == virt_to_mfn(l3),
	      "MMUEXT_NEW_BASEPTR to the copy: %ld %s, cr3 %#lx", rc, errno_name(rc), read_cr3());
	check(machine_to_phys_mapping[boot_mfn] == (unsigned long)boot_l3 >> PAGE_SHIFT,
	      "running on it: the m2p reads through its slot-3 L2 (%#lx)", machine_to_phys_mapping[boot_mfn]);
	rc = mmuext1(MMUEXT_NEW_BASEPTR, boot_mfn);
	check(rc == 0 && read_cr3() >> PAGE_SHIFT == boot_mfn, "and back to the bootstrap L3: %ld, cr3 %#lx",
	      rc, read_cr3());

	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(data));
	check(rc == -XEN_EINVAL, "NEW_BASEPTR to a writable data page: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(l1));
	check(rc == -XEN_EINVAL, "NEW_BASEPTR to a pinned L1: %ld %s (want -EINVAL)", rc, errno_name(rc));
	/* compat_mmuext_op: a 32-bit guest has no user base pointer */
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(l3));
	check(rc == -XEN_EINVAL, "MMUEXT_NEW_USER_BASEPTR to the copy: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, 0);
	check(rc == -XEN_EINVAL, "NEW_USER_BASEPTR 0: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = unpin(l3) | unpin(l1);
	check(rc == 0, "unpin the copy and the L1: %ld", rc);
}
#else
/* A pinned copy of our L4 becomes the base pointer, and back; what may not be one. */
static void base_pointers(void)
{
	const uint64_t *boot_l4 = (const uint64_t *)start_info->pt_base;
	unsigned long boot_mfn = virt_to_mfn(boot_l4);
	uint64_t *l4 = page_alloc(), *l1 = page_alloc();
	void *data = page_alloc();
	long rc;

	for (unsigned int i = 0; i < 512; i++)
		if (i < 256 || i > 271)	/* the guest's slots: the same lower tables */
			l4[i] = boot_l4[i];
	if (page_ro(l4) || pin(4, l4) || page_ro(l1) || pin(1, l1))
		test_fail("cannot pin a copy of our L4 and a spare L1");
	check(!l4[256], "the pinned copy's slot 256 is empty before use (%#lx)", (unsigned long)l4[256]);
	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(l4));
	check(rc == 0 && read_cr3() >> PAGE_SHIFT == virt_to_mfn(l4),
	      "MMUEXT_NEW_BASEPTR to the copy: %ld %s, cr3 %#lx", rc, errno_name(rc), read_cr3());
	check(l4[256] == boot_l4[256] && machine_to_phys_mapping[boot_mfn] == (unsigned long)boot_l4 >> PAGE_SHIFT,
	      "running on it: slot 256 is the m2p's (%#lx) and the m2p reads through it", (unsigned long)l4[256]);
	rc = mmuext1(MMUEXT_NEW_BASEPTR, boot_mfn);
	check(rc == 0 && read_cr3() >> PAGE_SHIFT == boot_mfn, "and back to the bootstrap L4: %ld, cr3 %#lx",
	      rc, read_cr3());

	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(data));
	check(rc == -XEN_EINVAL, "NEW_BASEPTR to a writable data page: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_BASEPTR, virt_to_mfn(l1));
	check(rc == -XEN_EINVAL, "NEW_BASEPTR to a pinned L1: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(l4));
	check(rc == 0, "MMUEXT_NEW_USER_BASEPTR to the copy: %ld %s", rc, errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(data));
	check(rc == -XEN_EINVAL, "NEW_USER_BASEPTR to a writable data page: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, 0);
	check(rc == 0, "NEW_USER_BASEPTR 0 (none): %ld %s", rc, errno_name(rc));
	rc = unpin(l4) | unpin(l1);
	check(rc == 0, "unpin the copy and the L1: %ld", rc);
}
#endif

void test_main(void)
{
#ifdef __i386__
	printf("32-bit PAE: no L4; its checks (slots 256-271, the linear map in 258, the m2p in 256) "
	       "are 64-bit only, skipped\n");
#endif
	l1_rules();
	chain();
	batch();
	base_pointers();
}

