/*
 * mmu-ptwr: writable page tables (VMASST_TYPE_writable_pagetables) on a pinned L1 of our own:
 * good entries are applied, bad ones rejected, with every store form Linux uses.
 *
 * With the assist on, a PV guest may write its L1 entries directly through their read-only
 * mapping; the write faults into the hypervisor, which emulates it against the L1
 * (xen/arch/x86/pv/ro-page-fault.c: ptwr_emulated_update), validating the new entry exactly as
 * mmu_update would (get_page_from_l1e). A bad entry is not an error code but the original fault:
 * the emulation gives up and the guest gets its #PF, present|write (0x3), cr2 = the entry,
 * rip = the instruction, the entry unchanged. Sub-word stores (a byte) are widened to the whole
 * entry first, so a `lock orb` that sets RW is judged on the full new entry. Only L1 pages are
 * emulated: a write to a pinned L2 faults even with the assist on.
 *
 * ptwr-probe already shows each instruction form works on a bootstrap L1; here the L1 is our own,
 * pinned and hooked (L3 slot 1 -> our pinned L2 -> it, so va 1 GiB + i pages maps entry i), and
 * the emphasis is on what is refused:
 *   good: mov, xchg, lock cmpxchg (hit and miss), lock andb (clear RW), lock orb (set RW on a data
 *         page), movb (clear P): applied, the instruction's result right, and the va reads the
 *         new frame after INVLPG (or faults, not present, when P was cleared);
 *   bad:  mov of a writable map of a page table (this L1), mov of a Xen frame, xchg of mfn 1<<35,
 *         lock cmpxchg of an entry with PCD, lock orb setting RW on a read-only map of our pinned
 *         L2, and a mov into the pinned L2: each a #PF as above, the entry unchanged.
 *
 * The 32-bit PAE build (mmu-ptwr-pv32; Xen 4.17's compat rules): the entries are 64-bit PAE ones
 * and a 32-bit guest writes one with two 4-byte stores, the high half first (Linux's set_pte;
 * lib/x86_32/probe.S's probe_write). Each store is emulated on its own (ptwr_emulated_update widens
 * it to the whole entry and validates that), so a bad `mov` whose high half is 0 is refused at the
 * low store: the bad movs are done here a store at a time (x86_32/store32.S), the #PF at that
 * store. There is no 8-byte xchg: a PAE guest's xchg is a lock cmpxchg8b loop, so the bad xchg is
 * one lock cmpxchg8b (the probe_xchg loop's label is at its first read, not at the cmpxchg8b).
 * The builder gives a PAE guest all four L3 slots (dom0_construct_pv), slot 1 an empty L2: it is
 * checked empty and replaced; the L3 entry is written as P alone (a PAE guest's; adjust_guest_l3e
 * adds the rest) and the TLB flushed after, as a PAE guest must. And the PAE rule of its own
 * (ptwr_emulated_update, is_pv_32bit_domain): a plain 4-byte store to the upper half of a present
 * entry that makes it bad (here mfn 1<<35) is taken, with _PAGE_PRESENT zapped in the lower half
 * (the guest is assumed to write the low half next); a low-half store that would make it present
 * again is refused (#PF); high half 0 then low half with P restores a good entry.
 *
 * Expect: stock PASS on xen (64-bit and 32-bit); ours PASS on xen and none (64-bit and
 * 32-bit).
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"

const char test_title[] = "mmu-ptwr: writable page tables on a pinned L1, good and bad entries";

#define BASE (1UL << 30)	/* L3 slot 1: va BASE + i pages maps l1[i] */
static uint64_t *l1, *l2, *data[4];

/* The address bits of mfn 1<<35, no RAM (pte() takes the mfn as unsigned long: 32 bits in 32-bit) */
#define MFN_1_35 ((uint64_t)1 << 47)

static volatile uint64_t *va_of(unsigned int i)
{
	return (volatile uint64_t *)(BASE + i * PAGE_SIZE);
}

#ifdef __i386__
/* x86_32/store32.S: one 4-byte store, half of a PAE entry, as a probe. */
bool probe_store32(void *p, uint32_t val);
extern char probe_insn_store32[];

/* A PAE guest's mov of an entry, a probe per store: the high half, then the low half. */
static bool mov_pae(uint64_t *entry, uint64_t val)
{
	uint32_t *half = (uint32_t *)entry;

	return probe_store32(&half[1], (uint32_t)(val >> 32)) && probe_store32(&half[0], (uint32_t)val);
}
#endif

/* After a store that should have faulted: the fault as the ABI says (at cr2 = at, the entry or
 * in 32-bit its high half), the entry unchanged. */
static void refused(const char *what, bool done, unsigned long n, void *entry, void *at, char *insn,
		    uint64_t before)
{
	check(!done && probe_fault.count == n + 1 && probe_fault.vector == 14 &&
	      probe_fault.error == 3 && probe_fault.cr2 == (unsigned long)at &&
	      probe_fault.rip == (unsigned long)insn && *(uint64_t *)entry == before,
	      "%s: #PF error %#lx cr2 %#lx rip %#lx (want 0x3, %p, %p), entry %#llx (want %#llx)", what,
	      probe_fault.error, probe_fault.cr2, probe_fault.rip, at, (void *)insn,
	      (unsigned long long)*(uint64_t *)entry, (unsigned long long)before);
}

/* The va of entry i reads data page k after INVLPG. */
static bool reads(unsigned int i, unsigned int k)
{
	invlpg((void *)va_of(i));
	return *va_of(i) == data[k][0];
}

static void good(void)
{
	uint64_t old = 0, seen = 0, e;
	bool done;

	done = probe_write(&l1[2], pte_of(data[2], PTE_RW_FLAGS));
	check(done && l1e_matches(l1[2], pte_of(data[2], PTE_RW_FLAGS)) && reads(2, 2),
	      "mov of a good entry: applied (%#lx), the va reads data 2", (unsigned long)l1[2]);
	*va_of(2) = 0x600d;
	check(data[2][0] == 0x600d, "a store through it reaches data 2");

	done = probe_xchg(&l1[3], pte_of(data[3], PTE_RO_FLAGS), &old);
	check(done && old == 0 && l1e_matches(l1[3], pte_of(data[3], PTE_RO_FLAGS)) && reads(3, 3),
	      "xchg of a good entry: applied (%#lx), old %#lx (want 0)", (unsigned long)l1[3],
	      (unsigned long)old);

	e = l1[2];
	done = probe_cmpxchg(&l1[2], e ^ PTE_DIRTY, pte_of(data[0], PTE_RO_FLAGS), &seen);
	check(done && seen == e && l1[2] == e,
	      "lock cmpxchg that misses: no fault, rax %#lx (want %#lx), entry unchanged", (unsigned long)seen,
	      (unsigned long)e);
	done = probe_cmpxchg(&l1[2], e, pte_of(data[0], PTE_RO_FLAGS), &seen);
	check(done && seen == e && l1e_matches(l1[2], pte_of(data[0], PTE_RO_FLAGS)) && reads(2, 0),
	      "lock cmpxchg that hits: applied (%#lx), the va reads data 0", (unsigned long)l1[2]);

	/* l1[0] maps data 0 writable: lock andb clears RW; the va then refuses a store. */
	done = probe_lock_andb(&l1[0], (uint8_t)~PTE_RW);
	check(done && !(l1[0] & PTE_RW) && (l1[0] & PTE_PRESENT) && reads(0, 0),
	      "lock andb ~RW: applied (%#lx), still reads data 0", (unsigned long)l1[0]);
	unsigned long n = probe_fault.count;

	done = probe_write((void *)va_of(0), 1);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 3,
	      "and a store through the va faults (error %#lx)", probe_fault.error);

	/* l1[1] maps data 1 read-only: lock orb sets RW (a data page may be writable). */
	done = probe_lock_orb(&l1[1], PTE_RW);
	check(done && (l1[1] & PTE_RW) && reads(1, 1), "lock orb RW on a data page's entry: applied (%#lx)",
	      (unsigned long)l1[1]);
	*va_of(1) = 0x600d1;
	check(data[1][0] == 0x600d1, "a store through it reaches data 1");

	/* movb: rewrite the low byte of l1[3] without P; the va is then not present. */
	done = probe_write8(&l1[3], (uint8_t)(l1[3] & 0xfe));
	check(done && !(l1[3] & PTE_PRESENT), "movb clearing P: applied (%#lx)", (unsigned long)l1[3]);
	invlpg((void *)va_of(3));
	uint64_t v;

	n = probe_fault.count;
	done = probe_read((void *)va_of(3), &v);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 0 &&
	      probe_fault.cr2 == (unsigned long)va_of(3),
	      "and a read through the va faults, not present (error %#lx, cr2 %#lx)", probe_fault.error,
	      probe_fault.cr2);
}

static void bad(void)
{
	uint64_t old, seen, before;
	unsigned long n;
	bool done;

#ifdef __i386__
	/* A PAE guest's mov: the high half (0 for these two, the entry stays not present) is taken,
	 * the low half is refused (ptwr_emulated_update validates the whole entry at each store). */
#define MOV(e, v) mov_pae(e, v)
#define MOV_INSN probe_insn_store32
#else
#define MOV(e, v) probe_write(e, v)
#define MOV_INSN probe_insn_write
#endif
	before = l1[5];
	n = probe_fault.count;
	done = MOV(&l1[5], pte_of(l1, PTE_RW_FLAGS));
	refused("mov of a writable map of this L1", done, n, &l1[5], &l1[5], MOV_INSN, before);

	n = probe_fault.count;
	done = MOV(&l1[5], pte(xen_mfn(), PTE_RO_FLAGS));
	refused("mov of a Xen frame", done, n, &l1[5], &l1[5], MOV_INSN, before);

	n = probe_fault.count;
#ifdef __i386__
	/* No 8-byte xchg in 32-bit: a PAE guest's is a lock cmpxchg8b loop, its first try this. */
	(void)old;
	done = probe_cmpxchg(&l1[5], before, (MFN_1_35 | PTE_RO_FLAGS), &seen);
	refused("xchg (lock cmpxchg8b) of mfn 1<<35", done, n, &l1[5], &l1[5], probe_insn_cmpxchg, before);
#else
	done = probe_xchg(&l1[5], (MFN_1_35 | PTE_RO_FLAGS), &old);
	refused("xchg of mfn 1<<35", done, n, &l1[5], &l1[5], probe_insn_xchg, before);
#endif

	n = probe_fault.count;
	done = probe_cmpxchg(&l1[5], before, pte_of(data[0], PTE_RW_FLAGS | 0x10), &seen);
	refused("lock cmpxchg of an entry with PCD", done, n, &l1[5], &l1[5], probe_insn_cmpxchg, before);

	/* A read-only map of the pinned L2 is fine; lock orb RW on it must not be. */
	long rc = mmu_update1(virt_to_maddr(&l1[4]), pte_of(l2, PTE_RO_FLAGS));

	check(rc == 0, "mmu_update: entry 4 maps the pinned L2 read-only: %ld %s", rc, errno_name(rc));
	before = l1[4];
	n = probe_fault.count;
	done = probe_lock_orb(&l1[4], PTE_RW);
	refused("lock orb RW on a read-only map of the pinned L2", done, n, &l1[4], &l1[4], probe_insn_orb,
		before);

	/* Only L1s are emulated (in 32-bit the first store, the high half, faults). */
	before = l2[1];
	n = probe_fault.count;
	done = MOV(&l2[1], pte_of(l1, PDE_FLAGS));
#ifdef __i386__
	refused("mov into the pinned L2 (not an L1)", done, n, &l2[1], (uint32_t *)&l2[1] + 1, MOV_INSN, before);
#else
	refused("mov into the pinned L2 (not an L1)", done, n, &l2[1], &l2[1], MOV_INSN, before);
#endif
}

#ifdef __i386__
/*
 * The PAE rule of ptwr_emulated_update (a 32-bit domain, a plain 4-byte store to the upper half
 * of an entry that would be present but is bad): taken with _PAGE_PRESENT zapped, on the
 * assumption that the low half follows. Entry 6 maps data 0 read-only first.
 */
static void pae_halves(void)
{
	uint32_t *half = (uint32_t *)&l1[6];
	const uint64_t good = pte_of(data[0], PTE_RO_FLAGS);
	const uint32_t bad_hi = (uint32_t)(MFN_1_35 >> 32);
	uint64_t v, want;
	unsigned long n;
	bool done;

	done = probe_write(&l1[6], good);
	check(done && l1[6] == good && reads(6, 0), "entry 6 maps data 0 read-only (%#llx)",
	      (unsigned long long)l1[6]);

	want = (uint64_t)bad_hi << 32 | (uint32_t)(good & ~PTE_PRESENT);
	done = probe_store32(&half[1], bad_hi);
	check(done && l1[6] == want, "a 4-byte store of a bad high half (%#x) to the present entry: taken, "
	      "P zapped: %#llx (want %#llx)", bad_hi, (unsigned long long)l1[6], (unsigned long long)want);
	invlpg((void *)va_of(6));
	n = probe_fault.count;
	done = probe_read((void *)va_of(6), &v);
	check(!done && probe_fault.count == n + 1 && probe_fault.error == 0 &&
	      probe_fault.cr2 == (unsigned long)va_of(6),
	      "and the va is not present (error %#lx, cr2 %#lx)", probe_fault.error, probe_fault.cr2);

	n = probe_fault.count;
	done = probe_store32(&half[0], (uint32_t)good);
	refused("then the low half with P (mfn 1<<35 present)", done, n, &l1[6], &l1[6], probe_insn_store32,
		want);

	done = probe_store32(&half[1], 0);
	check(done && l1[6] == (uint32_t)(good & ~PTE_PRESENT), "high half 0 again: taken (%#llx)",
	      (unsigned long long)l1[6]);
	done = probe_store32(&half[0], (uint32_t)good);
	check(done && l1[6] == good && reads(6, 0), "and the low half with P: data 0 again (%#llx)",
	      (unsigned long long)l1[6]);
}
#endif

void test_main(void)
{
	uint64_t *l3 = pt_entry(0, 3) - pt_index(0, 3);	/* the bootstrap L3 of va 0 */
	long rc;

	for (unsigned int k = 0; k < 4; k++) {
		data[k] = page_alloc();
		data[k][0] = 0xda7a0000 + k;
	}
	l1 = page_alloc();
	l2 = page_alloc();
	l1[0] = pte_of(data[0], PTE_RW_FLAGS);
	l1[1] = pte_of(data[1], PTE_RO_FLAGS);
	l2[0] = pte_of(l1, PDE_FLAGS);
#ifdef __i386__
	/* dom0_construct_pv gives a PAE guest all four L3 slots ("Ensure the first four L3 entries
	 * are all populated"), slot 1 an empty L2: replaced by ours, so it must map nothing. */
	const uint64_t *old_l2 = pt_entry(BASE, 2);
	unsigned int used = 0;

	if (old_l2)
		for (unsigned int i = 0; i < 512; i++)
			used += (old_l2 - pt_index(BASE, 2))[i] != 0;
	if (!check(old_l2 && used == 0, "L3 slot 1 holds the builder's L2 (%#llx), mapping nothing (%u entries)",
		   (unsigned long long)l3[1], used))
		return;
	/* a PAE guest's L3 entry is P alone (RW, U, A are reserved in a PDPTE; adjust_guest_l3e) */
	const uint64_t l3e = pte_of(l2, PTE_PRESENT);
#else
	if (l3[1])
		test_fail("L3 slot 1 is in use (%#lx)", (unsigned long)l3[1]);
	const uint64_t l3e = pte_of(l2, PDE_FLAGS);
#endif
	if (page_ro(l1) || page_ro(l2) || pin(1, l1) || pin(2, l2))
		test_fail("cannot make and pin the L1 and L2");
	rc = mmu_update1(virt_to_maddr(&l3[1]), l3e);
	if (rc)
		test_fail("hooking the L2 into L3 slot 1: %ld %s", rc, errno_name(rc));
#ifdef __i386__
	/* a changed PAE L3 entry needs a TLB flush (paging-structure caches), as Linux does */
	tlb_flush();
#endif
	check(*va_of(0) == data[0][0] && *va_of(1) == data[1][0], "va 1 GiB reads data 0, +1 page data 1");

	rc = vm_assist(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables);
	if (!check(rc == 0, "vm_assist(enable, writable_pagetables): %ld %s", rc, errno_name(rc)))
		return;
	good();
	bad();
#ifdef __i386__
	pae_halves();
#endif
}
