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

	for (l = PT_LEVELS;; l--) {
		uint64_t e = table[pt_index(va, l)];

		if (!(e & PTE_PRESENT) || l == 1 || (l <= 3 && (e & PTE_PSE))) {
			if (level)
				*level = l;
			return e & PTE_PRESENT ? e : 0;
		}
		table = (const uint64_t *)(mfn_to_pfn(PTE_MFN(e)) << PAGE_SHIFT);
	}
}

unsigned long m2p_entries(void)
{
	struct xen_machphys_mapping mp = { 0 };
	unsigned long slots;

	if (hypercall_memory_op(XENMEM_machphys_mapping, &mp) || mp.v_end <= mp.v_start)
		return 0;
	slots = (mp.v_end - mp.v_start) / sizeof(unsigned long);
	return mp.max_mfn < slots ? mp.max_mfn + 1 : slots;
}

unsigned long bootstrap_end(void)
{
	unsigned long va = boot_rsp;

	while (pt_lookup(va, NULL))
		va += PAGE_SIZE;
	return va;
}
