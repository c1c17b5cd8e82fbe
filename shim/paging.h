/* paging.h: the shim's own page tables: image, direct map of RAM, vmap area (ioremap, stacks). */
#ifndef SHIM_PAGING_H
#define SHIM_PAGING_H

#include "shim/config.h"
#include "shim/lib.h"

#define PTE_P    (1ull << 0)
#define PTE_W    (1ull << 1)
#define PTE_U    (1ull << 2)
#define PTE_PWT  (1ull << 3)
#define PTE_PCD  (1ull << 4)
#define PTE_A    (1ull << 5)
#define PTE_D    (1ull << 6)
#define PTE_PS   (1ull << 7)
#define PTE_G    (1ull << 8)
#define PTE_NX   (1ull << 63)
#define PTE_ADDR 0x000ffffffffff000ull

#define PTE_RX   (PTE_P)
#define PTE_RO   (PTE_P | PTE_NX)
#define PTE_RW   (PTE_P | PTE_W | PTE_NX)
#define PTE_RWX  (PTE_P | PTE_W)
#define PTE_UC   (PTE_PCD | PTE_PWT)

extern uint64_t phys_offset;            /* 0 on the boot tables (identity), DIRECTMAP_BASE after */
extern uint64_t idle_root_pa;

static inline void *phys_to_virt(uint64_t pa)
{
    return (void *)(uintptr_t)(pa + phys_offset);
}
uint64_t virt_to_phys(const void *va);

extern bool paging_global;             /* global-pages=on: the shim's mappings are global */
int paging_init(void);
/* Before paging_init: keep this page identity-mapped (RW) in the new tables, e.g. an early console. */
void paging_keep_identity(uint64_t pa);
int map_range(uintptr_t va, uint64_t pa, uint64_t size, uint64_t flags);
uint64_t *pte_lookup(uintptr_t va, unsigned *level);
uintptr_t vmap_reserve(size_t pages);
int vmap_set_page(uintptr_t va, uint64_t pa, uint64_t flags);   /* flags 0: unmap */
void *ioremap(uint64_t pa, size_t size, uint64_t flags);
uintptr_t vmap_alloc_stack(size_t pages);   /* returns the top; a guard page sits below */

#endif
