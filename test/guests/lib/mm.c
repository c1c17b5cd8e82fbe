/* mm.c: spare pages, frame numbers and MMU hypercall wrappers (see mm.h). */
#include "guest.h"
#include "mm.h"

static char pool[MM_POOL_PAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static unsigned int pool_used;

void *page_alloc(void)
{
	if (pool_used == MM_POOL_PAGES)
		test_fail("page_alloc: the pool of %u pages is used up", MM_POOL_PAGES);
	return memset(pool[pool_used++], 0, PAGE_SIZE);
}

unsigned long virt_to_mfn(const void *va)
{
	return pfn_to_mfn((unsigned long)va >> PAGE_SHIFT);
}

uint64_t virt_to_maddr(const void *va)
{
	return ((uint64_t)virt_to_mfn(va) << PAGE_SHIFT) | ((unsigned long)va & (PAGE_SIZE - 1));
}

uint64_t *pt_entry(unsigned long va, int level)
{
	uint64_t *table = (uint64_t *)start_info->pt_base;

	for (int l = PT_LEVELS; l > level; l--) {
		uint64_t e = table[pt_index(va, l)];

		if (!(e & PTE_PRESENT) || (l <= 3 && (e & PTE_PSE)))
			return NULL;
		table = (uint64_t *)(mfn_to_pfn(PTE_MFN(e)) << PAGE_SHIFT);
	}
	return &table[pt_index(va, level)];
}

#ifdef __i386__
uint64_t *boot_xen_l2(void)
{
	uint64_t *e = pt_entry(HYPERVISOR_VIRT_START, 2);

	if (!e)
		test_fail("no bootstrap L2 under L3 slot 3");
	return e - XEN_L2_FIRST;
}
#endif

unsigned long xen_mfn(void)
{
#ifdef __i386__
	return PTE_MFN(boot_xen_l2()[XEN_L2_FIRST]);
#else
	return PTE_MFN(((uint64_t *)start_info->pt_base)[256]);
#endif
}

long page_ro(const void *va)
{
	return hypercall_update_va_mapping((unsigned long)va, pte_of(va, PTE_RO_FLAGS), UVMF_INVLPG);
}

long page_rw(const void *va)
{
	return hypercall_update_va_mapping((unsigned long)va, pte_of(va, PTE_RW_FLAGS), UVMF_INVLPG);
}

long mmu_update(mmu_update_t *req, unsigned int count, unsigned int *done)
{
	return hypercall(__HYPERVISOR_mmu_update, (unsigned long)req, count, (unsigned long)done,
			 DOMID_SELF, 0);
}

long mmu_update1(uint64_t ptr, uint64_t val)
{
	mmu_update_t req = { .ptr = ptr, .val = val };

	return mmu_update(&req, 1, NULL);
}

long mmuext(struct mmuext_op *ops, unsigned int count, unsigned int *done)
{
	return hypercall(__HYPERVISOR_mmuext_op, (unsigned long)ops, count, (unsigned long)done,
			 DOMID_SELF, 0);
}

long mmuext1(unsigned int cmd, unsigned long arg1)
{
	/* arg1 is a union of mfn and linear_addr: both unsigned long. */
	struct mmuext_op op = { .cmd = cmd, .arg1.mfn = arg1 };

	return mmuext(&op, 1, NULL);
}

long pin(int level, const void *va)
{
	static const unsigned int cmds[] = { MMUEXT_PIN_L1_TABLE, MMUEXT_PIN_L2_TABLE,
					     MMUEXT_PIN_L3_TABLE, MMUEXT_PIN_L4_TABLE };

	return mmuext1(cmds[level - 1], virt_to_mfn(va));
}

long unpin(const void *va)
{
	return mmuext1(MMUEXT_UNPIN_TABLE, virt_to_mfn(va));
}

long invlpg(const void *va)
{
	return mmuext1(MMUEXT_INVLPG_LOCAL, (unsigned long)va);
}

long tlb_flush(void)
{
	return mmuext1(MMUEXT_TLB_FLUSH_LOCAL, 0);
}

long vm_assist(unsigned int cmd, unsigned int type)
{
	return HC(__HYPERVISOR_vm_assist, cmd, type, 0);
}

long multicall(multicall_entry_t *calls, unsigned int count)
{
	return HC(__HYPERVISOR_multicall, calls, count, 0);
}
