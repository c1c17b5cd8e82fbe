/*
 * initrd-pfn: the boot module left unmapped, as XEN_ELFNOTE_MOD_START_PFN asks (note.S).
 *
 * A kernel with that note gets SIF_MOD_START_PFN in start_info.flags and mod_start as the
 * module's first pfn, not a virtual address (public/xen.h; Linux sets the note so a big
 * initramfs need not fit in the bootstrap region). The module's pfns must be the guest's own
 * (below nr_pages, p2m and m2p agreeing), contiguous, outside the mapped bootstrap region, and no
 * bootstrap mapping may point at them. The guest then maps the module itself, a page at a time,
 * through one window page with update_va_mapping, and checks length, checksum and pattern
 * (lib/mkramdisk.py; ramdisk.size gives an odd length).
 *
 * The 32-bit build (x86_32/note.S: the same note) reads the module the same way. Its frames must
 * also lie where the compat m2p reaches (domain_set_alloc_bitsize; dom0_construct_pv copies a
 * module above physaddr_bitsize lower), which the m2p check of placement() covers.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "ramdisk.h"

const char test_title[] = "initrd-pfn: MOD_START_PFN module, unmapped, mapped and read by the guest";

static char window[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

#define PTE_READ (PTE_PRESENT | PTE_USER | PTE_ACCESSED)

/* The module's pfns: the guest's own, after the bootstrap region, p2m and m2p agreeing. */
static void placement(unsigned long first, unsigned long pages)
{
	unsigned long end = bootstrap_end() >> PAGE_SHIFT, m2p = m2p_entries(), bad = 0;

	printf("module at pfn %#lx, %lu pages (%lu bytes); bootstrap region ends at pfn %#lx, nr_pages %#lx\n",
	       first, pages, start_info->mod_len, end, start_info->nr_pages);
	check(first >= end, "the module's pfns lie after the bootstrap region");
	if (!check(first + pages <= start_info->nr_pages && first + pages > first,
		   "the module's pfns are below nr_pages"))
		test_fail("mod_start is not a usable pfn");
	if (!check(m2p, "the m2p is known (XENMEM_machphys_mapping)"))
		return;
	for (unsigned long pfn = first; pfn < first + pages; pfn++) {
		unsigned long mfn = pfn_to_mfn(pfn);

		if (mfn >= m2p || mfn_to_pfn(mfn) != pfn)
			bad++;
	}
	check(!bad, "p2m and m2p agree for the module's pfns (%lu do not)", bad);
}

/* No page of the bootstrap region maps a module frame. */
static void unmapped(unsigned long first, unsigned long pages)
{
	unsigned long end = bootstrap_end(), hits = 0;

	for (unsigned long va = PAGE_SIZE; va < end; va += PAGE_SIZE) {
		int level;
		uint64_t pte = pt_lookup(va, &level);
		unsigned long pfn = pte && level == 1 ? mfn_to_pfn(PTE_MFN(pte)) : ~0UL;

		if (pfn >= first && pfn < first + pages)
			hits++;
	}
	check(!hits, "no bootstrap mapping points at a module frame (%lu do)", hits);
}

static void read_through_window(unsigned long first, unsigned long len)
{
	unsigned long va = (unsigned long)window, own = pfn_to_mfn(va >> PAGE_SHIFT);
	struct ramdisk_check c;
	long rc = 0;

	ramdisk_check_begin(&c);
	for (unsigned long off = 0; off < len && !rc; off += PAGE_SIZE) {
		uint64_t pte = ((uint64_t)pfn_to_mfn(first + off / PAGE_SIZE) << PAGE_SHIFT) | PTE_READ;

		rc = hypercall_update_va_mapping(va, pte, UVMF_INVLPG);
		if (!rc)
			ramdisk_check_feed(&c, window, len - off < PAGE_SIZE ? len - off : PAGE_SIZE);
	}
	check(!rc, "update_va_mapping of each module frame at the window: rc %ld (%s)", rc, errno_name(rc));
	rc = hypercall_update_va_mapping(va, ((uint64_t)own << PAGE_SHIFT) | PTE_READ | PTE_RW | PTE_DIRTY,
					 UVMF_INVLPG);
	check(!rc, "the window maps its own frame again: rc %ld (%s)", rc, errno_name(rc));
	ramdisk_check_end(&c, len);
}

void test_main(void)
{
	const start_info_t *si = start_info;
	unsigned long pages = (si->mod_len + PAGE_SIZE - 1) / PAGE_SIZE;

	if (!si->mod_len)
		test_fail("no boot module (start_info.mod_len 0): run with the ramdisk (ramdisk.size)");
	if (!check(si->flags & SIF_MOD_START_PFN, "SIF_MOD_START_PFN is set (flags %#x)", si->flags))
		test_fail("mod_start is not a pfn: the note was ignored");
	check(si->mod_len & (PAGE_SIZE - 1), "the module's last page is partial (mod_len %lu), as the test wants",
	      si->mod_len);
	placement(si->mod_start, pages);
	unmapped(si->mod_start, pages);
	read_through_window(si->mod_start, si->mod_len);
}
