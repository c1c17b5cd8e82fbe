/* pagetable.c: p2m/m2p lookups and a walk of the bootstrap page tables (see pagetable.h). */
#include "guest.h"

unsigned long pfn_to_mfn(unsigned long pfn)
{
	return ((const unsigned long *)start_info->mfn_list)[pfn];
}

unsigned long mfn_to_pfn(unsigned long mfn)
{
	return machine_to_phys_mapping[mfn];
}

uint64_t pt_lookup(unsigned long va, int *level)
{
	const uint64_t *table = (const uint64_t *)start_info->pt_base;
	int l;

	for (l = 4;; l--) {
		uint64_t e = table[pt_index(va, l)];

		if (!(e & PTE_PRESENT) || l == 1 || (l <= 3 && (e & PTE_PSE))) {
			if (level)
				*level = l;
			return e & PTE_PRESENT ? e : 0;
		}
		table = (const uint64_t *)(mfn_to_pfn(PTE_MFN(e)) << PAGE_SHIFT);
	}
}
