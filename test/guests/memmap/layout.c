/*
 * layout.c: the bootstrap address space against public/xen.h "Start-of-day memory layout":
 * kernel < [module] < p2m (mfn_list) < start_info < page tables (pt_base, CR3) < stack (rsp),
 * each 4 KiB-aligned; everything mapped writable but the page tables; the region a 1:1 map of
 * the first pseudo-physical pages, padded by at least 512 KiB and ending on a 4 MiB boundary.
 */
#include "guest.h"
#include "memmap.h"

#define KiB 1024UL
#define MiB (1024 * KiB)

static unsigned long m2p_slots;

static bool aligned(unsigned long va)
{
	return !(va & (PAGE_SIZE - 1));
}

/* Does va map pfn va >> 12 through the p2m, with the m2p agreeing? rw: must it be writable? */
static bool maps_own_pfn(unsigned long va, bool rw, const char *what)
{
	unsigned long pfn = va >> PAGE_SHIFT;
	unsigned long mfn = pfn < start_info->nr_pages ? pfn_to_mfn(pfn) : ~0UL;
	int level;
	uint64_t pte = pt_lookup(va, &level);

	return check(pte && level == 1 && PTE_MFN(pte) == mfn && mfn < m2p_slots &&
		     mfn_to_pfn(mfn) == pfn && !!(pte & PTE_RW) == rw,
		     "%s (%#lx): pte %#llx at level %d, pfn %#lx -> mfn %#lx, %s", what, va,
		     (unsigned long long)pte, level, pfn, mfn, rw ? "writable" : "read-only");
}

static void order(void)
{
	const start_info_t *si = start_info;
	unsigned long kend = ((unsigned long)_image_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	unsigned long p2m = si->mfn_list, sip = (unsigned long)si, pt = si->pt_base;
	unsigned long pt_end = pt + si->nr_pt_frames * PAGE_SIZE;

	printf("bootstrap layout: kernel %p-%#lx p2m %#lx start_info %#lx page tables %#lx-%#lx stack end %#lx\n",
	       (void *)_image_start, kend, p2m, sip, pt, pt_end, boot_rsp);
	check(aligned(p2m) && aligned(sip) && aligned(pt) && aligned(boot_rsp),
	      "p2m, start_info, page tables and stack end are 4 KiB-aligned");
	if (si->mod_len && !(si->flags & SIF_MOD_START_PFN))
		check(kend <= si->mod_start && si->mod_start + si->mod_len <= p2m,
		      "the module lies between the kernel and the p2m");
	else
		check(kend <= p2m, "the p2m follows the kernel");
	check(p2m + si->nr_pages * sizeof(unsigned long) <= sip, "start_info follows the p2m");
	check(sip < pt, "the page tables follow start_info");
	check(pt_end + PAGE_SIZE <= boot_rsp, "the stack (at least a page) follows the page tables");
}

static void mappings(void)
{
	const start_info_t *si = start_info;
	unsigned long bad = 0, cr3;

	maps_own_pfn((unsigned long)_image_start, true, "kernel text");
	maps_own_pfn((unsigned long)&start_info, true, "kernel data");
	maps_own_pfn(si->mfn_list, true, "p2m");
	maps_own_pfn((unsigned long)si, true, "start_info");
	maps_own_pfn(boot_rsp - 8, true, "bootstrap stack");
	for (unsigned long i = 0; i < si->nr_pt_frames; i++)
		if (!(pt_lookup(si->pt_base + i * PAGE_SIZE, NULL) & PTE_PRESENT) ||
		    (pt_lookup(si->pt_base + i * PAGE_SIZE, NULL) & PTE_RW))
			bad++;
	check(!bad, "all %lu page-table frames are mapped read-only (%lu are not)",
	      si->nr_pt_frames, bad);
	maps_own_pfn(si->pt_base, false, "page table base");

	/* Reading CR3 is a privileged instruction Xen emulates for PV guests. A 32-bit guest's CR3
	 * holds the frame of its L3 in the extended-CR3 format (xen-x86_32.h xen_cr3_to_pfn; Xen's
	 * pv/emul-priv-op.c read_cr: compat_pfn_to_cr3), a 64-bit one's the L4's, shifted. */
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	check(xen_cr3_to_pfn(cr3) == pfn_to_mfn(si->pt_base >> PAGE_SHIFT),
	      "CR3 (%#lx) is the frame of pt_base", cr3);
}

/* Every pfn has a frame, and the m2p maps each frame back to its pfn. */
static void p2m_m2p(void)
{
	unsigned long bad = 0, first_bad = 0;

	for (unsigned long pfn = 0; pfn < start_info->nr_pages; pfn++) {
		unsigned long mfn = pfn_to_mfn(pfn);

		if (mfn >= m2p_slots || mfn_to_pfn(mfn) != pfn) {
			if (!bad++)
				first_bad = pfn;
		}
	}
	check(!bad, "p2m and m2p agree for all %lu pfns (%lu disagree, first pfn %#lx)",
	      start_info->nr_pages, bad, first_bad);
}

/* From the stack end up: mapped 1:1 to our pfns, at least 512 KiB, ending on 4 MiB. */
static void padding(void)
{
	unsigned long va, wrong = 0, limit = boot_rsp + 64 * MiB;

	for (va = boot_rsp; va < limit; va += PAGE_SIZE) {
		int level;
		uint64_t pte = pt_lookup(va, &level);

		if (!pte)
			break;
		if (level != 1 || va >> PAGE_SHIFT >= start_info->nr_pages ||
		    PTE_MFN(pte) != pfn_to_mfn(va >> PAGE_SHIFT) || !(pte & PTE_RW))
			wrong++;
	}
	printf("    bootstrap region ends at %#lx (%lu KiB after the stack)\n", va,
	       (va - boot_rsp) / KiB);
	check(va - boot_rsp >= 512 * KiB, "at least 512 KiB of padding after the stack");
	check(!(va & (4 * MiB - 1)), "the region ends on a 4 MiB boundary");
	check(!wrong, "the padding maps our own pfns 1:1, writable (%lu pages do not)", wrong);
}

void check_layout(unsigned long m2p_entries)
{
	if (!check(m2p_entries, "the m2p is known, so mappings can be checked"))
		return;
	m2p_slots = m2p_entries;
	order();
	mappings();
	p2m_m2p();
	padding();
}
