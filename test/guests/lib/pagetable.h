/* pagetable.h: the paging facts the tests need to build and walk PTEs: x86-64's 4 levels, or in
 * the 32-bit build (x86_32/) PAE's 3, whose top table has 4 entries (pt_index gives 0-3 there). */
#ifndef GUEST_PAGETABLE_H
#define GUEST_PAGETABLE_H

#include <stdint.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)

#define PTE_PRESENT  0x001UL
#define PTE_RW       0x002UL
#define PTE_USER     0x004UL
#define PTE_ACCESSED 0x020UL
#define PTE_DIRTY    0x040UL
#define PTE_PSE      0x080UL
#define PTE_NX       (1ULL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000UL
#define PTE_MFN(pte) (((pte) & PTE_ADDR_MASK) >> PAGE_SHIFT)

#ifdef __i386__
#define PT_LEVELS 3
#else
#define PT_LEVELS 4
#endif

/* Index of va in the page table at level (1 = L1 ... 4 = L4). */
static inline unsigned int pt_index(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/*
 * Frame-number translation. The p2m is start_info->mfn_list (pfn -> mfn); Xen maps the m2p
 * (mfn -> pfn) read-only at machine_to_phys_mapping. With VIRT_BASE 0, pfn N of the bootstrap
 * region is at virtual address N << PAGE_SHIFT.
 */
unsigned long pfn_to_mfn(unsigned long pfn);
unsigned long mfn_to_pfn(unsigned long mfn);

/*
 * The leaf PTE mapping va in the bootstrap page tables (start_info->pt_base), read through the
 * bootstrap region; 0 if some level is not present. *level gets the level of the leaf (1, or 2/3
 * for a superpage) or of the missing entry; level may be NULL.
 */
uint64_t pt_lookup(unsigned long va, int *level);

/* Entries of the m2p (XENMEM_machphys_mapping: max_mfn + 1, capped by its size); 0 if unknown. */
unsigned long m2p_entries(void);

/* Where the bootstrap region ends: the first unmapped page at or after the boot stack's end. */
unsigned long bootstrap_end(void);

#endif
