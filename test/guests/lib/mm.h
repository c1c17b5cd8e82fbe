/*
 * mm.h: what the PV MMU tests share: spare pages, frame numbers and machine addresses of our own
 * memory, and thin wrappers for mmu_update, mmuext_op, update_va_mapping, vm_assist and
 * multicall that return Xen's value unchanged (the tests assert exact error codes).
 *
 * Spare pages come from a pool in .bss: like the rest of the image they are in the bootstrap
 * region, so pfn == va >> PAGE_SHIFT and each is mapped writable by the bootstrap tables. A page
 * that is to become a page table must first be made read-only there (page_ro), as every PV
 * guest does.
 */
#ifndef GUEST_MM_H
#define GUEST_MM_H

#include <stdbool.h>
#include <stdint.h>
#include "xen-abi.h"
#include "pagetable.h"

/* The pool: MM_POOL_PAGES zeroed pages, handed out once each; test_fail() when exhausted. */
#define MM_POOL_PAGES 48
void *page_alloc(void);

/* Our memory in the bootstrap region (va == pseudo-physical address). */
unsigned long virt_to_mfn(const void *va);
uint64_t virt_to_maddr(const void *va);	/* the machine address mmu_update takes as ptr */

/* A leaf PTE mapping mfn with flags; the flags commonly used. */
#define PTE_RO_FLAGS (PTE_PRESENT | PTE_ACCESSED)
#define PTE_RW_FLAGS (PTE_PRESENT | PTE_RW | PTE_ACCESSED | PTE_DIRTY)
/* A non-leaf entry (L2..L4) as guests write them: user and writable, accessed. */
#define PDE_FLAGS (PTE_PRESENT | PTE_RW | PTE_USER | PTE_ACCESSED)
static inline uint64_t pte(uint64_t mfn, uint64_t flags)
{
	return ((uint64_t)mfn << 12) | flags;
}
static inline uint64_t pte_of(const void *va, uint64_t flags)
{
	return pte(virt_to_mfn(va), flags);
}

/*
 * Does an accepted L1 entry read back as val? Either as written, or as Xen 4.17 stores a
 * kernel-only entry of a 64-bit PV guest (adjust_guest_l1e: the kernel runs in ring 3, so U is
 * forced on and bit 52, _PAGE_GUEST_KERNEL, remembers that it was not a user mapping).
 */
static inline bool l1e_matches(uint64_t entry, uint64_t val)
{
	if (entry == val)
		return true;
#ifdef __i386__
	return false;	/* adjust_guest_l1e leaves a 32-bit guest's entries as written */
#endif
	return (val & PTE_PRESENT) && !(val & PTE_USER) && entry == (val | PTE_USER | (1ULL << 52));
}

/*
 * The entry at level (1..4) of the bootstrap tables on the way to va, found by walking
 * start_info->pt_base (the current L4); NULL if a table above is missing or a superpage.
 */
uint64_t *pt_entry(unsigned long va, int level);

/* A frame Xen owns, for the refusals of frames not ours: the first of the m2p's (64-bit: what
 * L4 slot 256 points at; 32-bit: what the L2 under L3 slot 3 maps first in Xen's part). */
unsigned long xen_mfn(void);

#ifdef __i386__
/* The first of Xen's slots in the L2 under a 32-bit guest's L3 slot 3: HV_START_LOW's
 * (is_guest_l2_slot, COMPAT_L2_PAGETABLE_FIRST_XEN_SLOT; 428 for 0xF5800000), from which
 * init_xen_pae_l2_slots fills it (the compat m2p). */
#define XEN_L2_FIRST pt_index(HYPERVISOR_VIRT_START, 2)
/* That L2 in the bootstrap tables (start_info->pt_base). */
uint64_t *boot_xen_l2(void);
#endif

/* Remap our own page va read-only / writable with update_va_mapping(UVMF_INVLPG). */
long page_ro(const void *va);
long page_rw(const void *va);

/* Hypercalls. done may be NULL (Xen then does not report it). */
long mmu_update(mmu_update_t *req, unsigned int count, unsigned int *done);
long mmu_update1(uint64_t ptr, uint64_t val);	/* one request, ptr's low bits are the command */
long mmuext(struct mmuext_op *ops, unsigned int count, unsigned int *done);
long mmuext1(unsigned int cmd, unsigned long arg1);	/* one op: mfn or linear address */
long pin(int level, const void *va);	/* MMUEXT_PIN_L<level>_TABLE on va's frame */
long unpin(const void *va);		/* MMUEXT_UNPIN_TABLE */
long invlpg(const void *va);		/* MMUEXT_INVLPG_LOCAL */
long tlb_flush(void);			/* MMUEXT_TLB_FLUSH_LOCAL */
long vm_assist(unsigned int cmd, unsigned int type);
long multicall(multicall_entry_t *calls, unsigned int count);

#endif
