/*
 * initrd: the boot module (xl's ramdisk=, multiboot module 1) mapped into the bootstrap region.
 *
 * A PV kernel without XEN_ELFNOTE_MOD_START_PFN finds its initrd at start_info.mod_start, a
 * virtual address, mod_len bytes long (public/xen.h, "Start-of-day memory layout"): right after
 * the kernel, before the p2m, 4 KiB-aligned like every bootstrap element, mapped 1:1 to the
 * guest's own pfns like the rest of the region. Linux unpacks its initramfs from there; a shim
 * that places it wrong, cuts it to whole pages, or maps frames out of order breaks /init in ways
 * that are hard to trace back. The module is made by lib/mkramdisk.py (ramdisk.size: an odd
 * length, so the last page is partial) and carries its own length and checksum, so this test
 * needs no other input than the module.
 *
 * The 32-bit build: the same layout (dom0_construct_pv) with a p2m of 4-byte entries, which it
 * checks as well.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "ramdisk.h"

const char test_title[] = "initrd: the boot module mapped at mod_start, exact length and content";

static unsigned long page_up(unsigned long x)
{
	return (x + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}

static bool overlaps(unsigned long s, unsigned long e, unsigned long s2, unsigned long e2)
{
	return s < e2 && s2 < e;
}

/* The module's pages against the other bootstrap elements, in the ABI's order. */
static void placement(unsigned long mod, unsigned long mod_end)
{
	const start_info_t *si = start_info;
	unsigned long kend = page_up((unsigned long)_image_end);
	unsigned long p2m = si->mfn_list, p2m_end = page_up(p2m + si->nr_pages * sizeof(unsigned long));
	unsigned long pt = si->pt_base, pt_end = pt + si->nr_pt_frames * PAGE_SIZE;
	unsigned long sip = (unsigned long)si;

	printf("module %#lx-%#lx (%lu bytes); kernel %p-%#lx p2m %#lx-%#lx start_info %#lx page tables %#lx-%#lx stack end %#lx\n",
	       mod, mod + si->mod_len, si->mod_len, (void *)_image_start, kend, p2m, p2m_end, sip, pt,
	       pt_end, boot_rsp);
	check(!(mod & (PAGE_SIZE - 1)), "mod_start %#lx is 4 KiB-aligned", mod);
	check(kend <= mod, "the module follows the kernel");
	check(mod_end <= p2m, "the module comes before the p2m");
	check(!overlaps(mod, mod_end, p2m, p2m_end), "the module does not overlap the p2m");
	check(!overlaps(mod, mod_end, sip, sip + PAGE_SIZE), "the module does not overlap start_info");
	check(!overlaps(mod, mod_end, pt, pt_end), "the module does not overlap the page tables");
	check(!overlaps(mod, mod_end, boot_rsp - PAGE_SIZE, boot_rsp), "the module does not overlap the stack");
	check(mod_end <= bootstrap_end(), "the module lies inside the bootstrap region (ends %#lx)",
	      bootstrap_end());
#ifdef __i386__
	/*
	 * dom0_construct_pv (xen/arch/x86/pv/dom0_build.c): a compat guest's p2m has 4-byte entries
	 * (vphysmap_end counts sizeof(unsigned int) each), and start_info follows it at
	 * round_pgup(vphysmap_end); 8-byte entries would put start_info past p2m_end.
	 */
	check(sip == p2m_end, "the p2m holds 4-byte entries: start_info %#lx right after it (%#lx)", sip,
	      p2m_end);
#endif
}

/* Each page of the module maps the pfn of its address (VIRT_BASE 0), writable, p2m and m2p agreeing. */
static void mappings(unsigned long mod, unsigned long mod_end)
{
	unsigned long m2p = m2p_entries(), bad = 0, first_bad = 0;

	if (!check(m2p, "the m2p is known (XENMEM_machphys_mapping)"))
		return;
	for (unsigned long va = mod; va < mod_end; va += PAGE_SIZE) {
		unsigned long pfn = va >> PAGE_SHIFT;
		unsigned long mfn = pfn < start_info->nr_pages ? pfn_to_mfn(pfn) : ~0UL;
		int level;
		uint64_t pte = pt_lookup(va, &level);

		if (!pte || level != 1 || PTE_MFN(pte) != mfn || mfn >= m2p || mfn_to_pfn(mfn) != pfn ||
		    !(pte & PTE_RW)) {
			if (!bad++)
				first_bad = va;
		}
	}
	check(!bad, "every module page maps its own pfn, writable, p2m and m2p agreeing (%lu do not, first %#lx)",
	      bad, first_bad);
}

void test_main(void)
{
	const start_info_t *si = start_info;
	struct ramdisk_check c;

	if (!si->mod_len)
		test_fail("no boot module (start_info.mod_len 0): run with the ramdisk (ramdisk.size)");
	check(!(si->flags & SIF_MOD_START_PFN), "SIF_MOD_START_PFN is clear (flags %#x): mod_start is virtual",
	      si->flags);
	check(si->mod_len & (PAGE_SIZE - 1), "the module's last page is partial (mod_len %lu), as the test wants",
	      si->mod_len);
	placement(si->mod_start, page_up(si->mod_start + si->mod_len));
	mappings(si->mod_start, page_up(si->mod_start + si->mod_len));
	if (test_failures())
		test_fail("the module is misplaced: not reading it");
	ramdisk_check_begin(&c);
	ramdisk_check_feed(&c, (const void *)si->mod_start, si->mod_len);
	ramdisk_check_end(&c, si->mod_len);
}
