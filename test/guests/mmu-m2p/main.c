/*
 * mmu-m2p: the machine-to-physical table a 64-bit PV guest sees, read-only, at
 * machine_to_phys_mapping (RO_MPT_VIRT_START = HYPERVISOR_VIRT_START, L4 slot 256).
 *
 * public/arch-x86/xen-x86_64.h promises every PV guest a read-only view of the m2p at a fixed
 * address, and Linux reads it for every mfn_to_pfn(). Its entries for our frames are ours to set
 * with MMU_MACHPHYS_UPDATE (public/xen.h; xen/arch/x86/mm.c do_mmu_update): the frame must be
 * ours (get_page_from_mfn), else -EINVAL. Writing the table directly must fault: it is Xen's
 * memory. We check
 *  - m2p[p2m[pfn]] == pfn for our kernel pages, our stack and the last pfn we own;
 *  - a `mov` and a `lock cmpxchg` to an m2p slot of ours fault with #PF, error code
 *    present|write (0x3: a kernel write to a present read-only page), cr2 = the slot, rip = the
 *    instruction, and the slot keeps its value;
 *  - MMU_MACHPHYS_UPDATE of one of our frames to another pfn changes what the table reads, and a
 *    second one puts it back; for a Xen frame and for mfn 1<<35 it is -EINVAL, and in a batch
 *    the good update before the bad one is done (done = 1).
 *
 * The 32-bit PAE build (mmu-m2p-pv32; Xen 4.17's compat rules): the m2p is the compat one, 32-bit
 * entries at MACH2PHYS_VIRT_START (0xF5800000, HYPERVISOR_VIRT_START_PAE), mapped by Xen's slots of
 * the L2 under L3 slot 3 (init_xen_pae_l2_slots); XENMEM_machphys_mapping says so
 * (compat_arch_memory_op). set_gpfn_from_mfn writes that table too, so MMU_MACHPHYS_UPDATE reads
 * back through it. The Xen frame is the compat m2p's own (the first of Xen's L2 slots). A 64-bit
 * `mov` is two 4-byte stores there, high half first (lib/x86_32/probe.S): aimed so that its first
 * store is the slot's, it faults there with the same #PF; `lock cmpxchg8b` on the slot and the
 * next one faults at the slot; neither neighbour changes.
 *
 * Expect: stock PASS on xen (64-bit and 32-bit); ours PASS on xen and none (64-bit and
 * 32-bit).
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"

const char test_title[] = "mmu-m2p: the read-only m2p, its faults and MMU_MACHPHYS_UPDATE";

#ifdef __i386__
/* Where a compat guest's m2p is: XENMEM_machphys_mapping (compat_arch_memory_op) gives
 * MACH2PHYS_COMPAT_VIRT_START(d) = HYPERVISOR_COMPAT_VIRT_START(d), the 0xF5800000 of
 * public/arch-x86/xen-x86_32.h, to MACH2PHYS_COMPAT_VIRT_END (0xFFE00000, Xen's asm/config.h),
 * and max_mfn = the entries in between - 1 (MACH2PHYS_COMPAT_NR_ENTRIES). */
static void where(void)
{
	struct xen_machphys_mapping mp = { 0 };
	long rc = hypercall_memory_op(XENMEM_machphys_mapping, &mp);

	check(rc == 0 && mp.v_start == (unsigned long)machine_to_phys_mapping && mp.v_start == 0xF5800000UL &&
	      mp.v_end == 0xFFE00000UL && mp.max_mfn == (mp.v_end - mp.v_start) / 4 - 1,
	      "XENMEM_machphys_mapping: %ld, v_start %#lx v_end %#lx max_mfn %#lx (want %p, 0xffe00000, "
	      "the entries between - 1)", rc, (unsigned long)mp.v_start, (unsigned long)mp.v_end,
	      (unsigned long)mp.max_mfn, (void *)machine_to_phys_mapping);
}
#endif

static void lookups(void)
{
	unsigned long pfns[] = { (unsigned long)_image_start >> PAGE_SHIFT,
				 (unsigned long)&start_info >> PAGE_SHIFT,
				 (boot_rsp - 8) >> PAGE_SHIFT, start_info->nr_pages - 1 };

	for (unsigned int i = 0; i < ARRAY_SIZE(pfns); i++) {
		unsigned long mfn = pfn_to_mfn(pfns[i]);

		check(machine_to_phys_mapping[mfn] == pfns[i], "m2p[%#lx] = %#lx (want pfn %#lx)", mfn,
		      machine_to_phys_mapping[mfn], pfns[i]);
	}
}

static void writes_fault(void)
{
	void *page = page_alloc();
	unsigned long mfn = virt_to_mfn(page), pfn = (unsigned long)page >> PAGE_SHIFT;
	unsigned long *slot = (unsigned long *)&machine_to_phys_mapping[mfn];
	uint64_t seen = 0;
	unsigned long n = probe_fault.count;
#ifdef __i386__
	/* 4-byte entries; the probes' 64-bit mov is two stores, the high half first: aimed at the
	 * entry before so that its first store (0x1234) is the slot's. cmpxchg8b takes the slot and
	 * the next entry, expecting what they hold. */
	const unsigned long prev = slot[-1], next = slot[1];
	void *wr = slot - 1;
	const uint64_t wval = (uint64_t)0x1234 << 32 | prev;
	const uint64_t expect = (uint64_t)next << 32 | pfn, nval = (uint64_t)next << 32 | 0x1234;
#else
	void *wr = slot;
	const uint64_t wval = 0x1234, expect = pfn, nval = 0x1234;
#endif
	/* Probe first: check()'s arguments are evaluated in no fixed order. */
	bool done = probe_write(wr, wval);

	check(!done && probe_fault.count == n + 1 && probe_fault.vector == 14 &&
	      probe_fault.error == 3 && probe_fault.cr2 == (unsigned long)slot &&
	      probe_fault.rip == (unsigned long)probe_insn_write,
	      "mov to m2p[%#lx] faults: vector %lu error %#lx cr2 %#lx rip %#lx (want 14, 0x3, %p, %p)",
	      mfn, probe_fault.vector, probe_fault.error, probe_fault.cr2, probe_fault.rip,
	      (void *)slot, (void *)probe_insn_write);
	done = probe_cmpxchg(slot, expect, nval, &seen);
	check(!done && probe_fault.count == n + 2 && probe_fault.vector == 14 &&
	      probe_fault.error == 3 && probe_fault.cr2 == (unsigned long)slot &&
	      probe_fault.rip == (unsigned long)probe_insn_cmpxchg,
	      "lock cmpxchg on it faults: vector %lu error %#lx cr2 %#lx rip %#lx", probe_fault.vector,
	      probe_fault.error, probe_fault.cr2, probe_fault.rip);
	check(*slot == pfn, "the slot still reads pfn %#lx (%#lx)", pfn, *slot);
#ifdef __i386__
	check(slot[-1] == prev && slot[1] == next, "and its neighbours theirs: %#lx %#lx (want %#lx %#lx)",
	      slot[-1], slot[1], prev, next);
#endif
}

static void machphys_update(void)
{
	void *page = page_alloc();
	unsigned long mfn = virt_to_mfn(page), pfn = (unsigned long)page >> PAGE_SHIFT;
	unsigned long other = 0x54321;
	long rc;

	rc = mmu_update1(((uint64_t)mfn << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, other);
	check(rc == 0 && machine_to_phys_mapping[mfn] == other,
	      "MMU_MACHPHYS_UPDATE mfn %#lx -> pfn %#lx: %ld %s, m2p reads %#lx", mfn, other, rc,
	      errno_name(rc), machine_to_phys_mapping[mfn]);
	rc = mmu_update1(((uint64_t)mfn << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, pfn);
	check(rc == 0 && machine_to_phys_mapping[mfn] == pfn, "and back to %#lx: %ld, m2p reads %#lx",
	      pfn, rc, machine_to_phys_mapping[mfn]);

	rc = mmu_update1(((uint64_t)xen_mfn() << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, other);
	check(rc == -XEN_EINVAL, "MMU_MACHPHYS_UPDATE of a Xen frame: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	rc = mmu_update1((1ULL << 47) | MMU_MACHPHYS_UPDATE, other);
	check(rc == -XEN_EINVAL, "MMU_MACHPHYS_UPDATE of mfn 1<<35: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	mmu_update_t req[2] = {
		{ ((uint64_t)mfn << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, other },
		{ ((uint64_t)xen_mfn() << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, other },
	};
	unsigned int done = 99;

	rc = mmu_update(req, 2, &done);
	check(rc == -XEN_EINVAL && done == 1 && machine_to_phys_mapping[mfn] == other,
	      "batch (ours, Xen's): %ld %s, done %u, ours updated (%#lx)", rc, errno_name(rc), done,
	      machine_to_phys_mapping[mfn]);
	rc = mmu_update1(((uint64_t)mfn << PAGE_SHIFT) | MMU_MACHPHYS_UPDATE, pfn);
	check(rc == 0 && machine_to_phys_mapping[mfn] == pfn, "restored: %ld", rc);
}

void test_main(void)
{
#ifdef __i386__
	where();
#endif
	lookups();
	writes_fault();
	machphys_update();
}
