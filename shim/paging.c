/* paging.c: builds and edits the shim's idle page tables; direct map, vmap area, ioremap, stacks. */
#include "shim/boot.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/sections.h"
#include "shim/spinlock.h"
#include "shim/x86.h"
#include "shim/xerrno.h"
#include "shim/xpti.h"

#define SZ_2M (2ull << 20)

uint64_t phys_offset;
uint64_t idle_root_pa;
static uintptr_t vmap_next = VMAP_BASE;
static uint64_t keep_identity[4];
static unsigned nr_keep_identity;
static spinlock_t pt_lock = SPINLOCK_INIT;

bool paging_global;

/* global-pages=on marks the shim's own mappings global, only in the upper half, which every
 * address space shares (an identity mapping there would leak into the guest's lower half). */
static uint64_t leaf_flags(uint64_t f, uintptr_t va)
{
    if (!cpu_has.nx)
        f &= ~PTE_NX;
    if (paging_global && (va >> 63))
        f |= PTE_G;
    return f | PTE_A | ((f & PTE_W) ? PTE_D : 0);
}

/* `user`: PTE_U when the leaf is for ring 3 (the guest's m2p), which every level must allow. */
static int next_table(uint64_t *entry, uint64_t **out, uint64_t user)
{
    if (!(*entry & PTE_P)) {
        int64_t pfn = alloc_frame();
        if (pfn < 0)
            return (int)pfn;
        *entry = ((uint64_t)pfn << PAGE_SHIFT) | PTE_P | PTE_W | PTE_A | user;
    } else if (*entry & PTE_PS) {
        return ERR(-XEN_EEXIST);        /* a large page is in the way */
    } else {
        *entry |= user;
    }
    *out = phys_to_virt(*entry & PTE_ADDR);
    return 0;
}

int map_range(uintptr_t va, uint64_t pa, uint64_t size, uint64_t flags)
{
    uint64_t f = spin_lock_irqsave(&pt_lock);
    int rc = 0;

    ASSERT(idle_root_pa && IS_ALIGNED(va | pa | size, PAGE_SIZE));
    while (size) {
        uint64_t *l4 = phys_to_virt(idle_root_pa), *l3, *l2, *l1;
        uint64_t u = flags & PTE_U;
        if ((rc = next_table(&l4[(va >> 39) & 511], &l3, u)) || (rc = next_table(&l3[(va >> 30) & 511], &l2, u)))
            break;
        uint64_t *e2 = &l2[(va >> 21) & 511];
        if (IS_ALIGNED(va | pa, SZ_2M) && size >= SZ_2M && !(*e2 & PTE_P)) {
            *e2 = pa | leaf_flags(flags, va) | PTE_PS;
            va += SZ_2M;
            pa += SZ_2M;
            size -= SZ_2M;
            continue;
        }
        if ((rc = next_table(e2, &l1, u)))
            break;
        uint64_t *e1 = &l1[(va >> 12) & 511];
        if (*e1 & PTE_P) {
            rc = ERR(-XEN_EEXIST);
            break;
        }
        *e1 = pa | leaf_flags(flags, va);
        va += PAGE_SIZE;
        pa += PAGE_SIZE;
        size -= PAGE_SIZE;
    }
    spin_unlock_irqrestore(&pt_lock, f);
    return rc;
}

/* Point the 4 KiB page at va (inside an earlier vmap_reserve) at pa, or unmap it (flags 0); tables
 * are made as needed. For windows whose frames change (the GDT and LDT windows); no TLB flush. */
int vmap_set_page(uintptr_t va, uint64_t pa, uint64_t flags)
{
    uint64_t f = spin_lock_irqsave(&pt_lock);
    uint64_t *l4 = phys_to_virt(idle_root_pa), *l3, *l2, *l1;
    int rc;

    ASSERT(va >= VMAP_BASE && va < vmap_next && IS_ALIGNED(va | pa, PAGE_SIZE));
    if (!(rc = next_table(&l4[(va >> 39) & 511], &l3, 0)) && !(rc = next_table(&l3[(va >> 30) & 511], &l2, 0)) &&
        !(rc = next_table(&l2[(va >> 21) & 511], &l1, 0)))
    {
        uint64_t pte = flags ? pa | leaf_flags(flags, va) : 0;
        __atomic_store_n(&l1[(va >> 12) & 511], pte, __ATOMIC_RELAXED);
        xpti_vmap_changed(va, pte);     /* a GDT or LDT window: the CPU's xpti tables too */
    }
    spin_unlock_irqrestore(&pt_lock, f);
    return rc;
}

uint64_t *pte_lookup(uintptr_t va, unsigned *level)
{
    uint64_t *t = phys_to_virt(idle_root_pa);

    for (unsigned lvl = 4; lvl >= 1; lvl--) {
        uint64_t *e = &t[(va >> (12 + 9 * (lvl - 1))) & 511];
        if (!(*e & PTE_P))
            return NULL;
        if (lvl == 1 || (*e & PTE_PS)) {
            *level = lvl;
            return e;
        }
        t = phys_to_virt(*e & PTE_ADDR);
    }
    return NULL;
}

uint64_t virt_to_phys(const void *p)
{
    uintptr_t va = (uintptr_t)p;
    unsigned lvl;

    if (va >= (uintptr_t)__image_start && va < (uintptr_t)__image_end)
        return va - IMAGE_VOFFSET;
    if (phys_offset == DIRECTMAP_BASE && va >= DIRECTMAP_BASE && va < DIRECTMAP_BASE + DIRECTMAP_SIZE)
        return va - DIRECTMAP_BASE;
    if (phys_offset == 0)
        return va;
    uint64_t *e = pte_lookup(va, &lvl);
    ASSERT(e);
    uint64_t mask = (1ull << (12 + 9 * (lvl - 1))) - 1;
    return (*e & PTE_ADDR & ~mask) | (va & mask);
}

uintptr_t vmap_reserve(size_t pages)
{
    uint64_t f = spin_lock_irqsave(&pt_lock);
    uintptr_t va = vmap_next;

    if (pages > (VMAP_BASE + VMAP_SIZE - vmap_next) / PAGE_SIZE)
        va = 0;
    else
        vmap_next += pages * PAGE_SIZE;
    spin_unlock_irqrestore(&pt_lock, f);
    return va;
}

void *ioremap(uint64_t pa, size_t size, uint64_t flags)
{
    uint64_t off = pa & (PAGE_SIZE - 1);
    size_t pages = (size_t)(ALIGN_UP(off + size, PAGE_SIZE) / PAGE_SIZE);
    uintptr_t va = vmap_reserve(pages);

    if (!va || map_range(va, pa - off, pages * PAGE_SIZE, flags))
        return NULL;
    return (void *)(va + off);
}

uintptr_t vmap_alloc_stack(size_t pages)
{
    uintptr_t va = vmap_reserve(pages + 1);     /* the lowest page stays unmapped: the guard */

    if (!va)
        return 0;
    for (size_t i = 1; i <= pages; i++) {
        int64_t pfn = alloc_frame();
        if (pfn < 0 || map_range(va + i * PAGE_SIZE, (uint64_t)pfn << PAGE_SHIFT, PAGE_SIZE, PTE_RW))
            return 0;
    }
    return va + (pages + 1) * PAGE_SIZE;
}

void paging_keep_identity(uint64_t pa)
{
    ASSERT(!idle_root_pa && nr_keep_identity < ARRAY_SIZE(keep_identity));
    keep_identity[nr_keep_identity++] = ALIGN_DOWN(pa, PAGE_SIZE);
}

static int map_image(uintptr_t start, uintptr_t end, uint64_t flags)
{
    start = ALIGN_DOWN(start, PAGE_SIZE);
    end = ALIGN_UP(end, PAGE_SIZE);
    return map_range(start, start - IMAGE_VOFFSET, end - start, flags);
}

/* Build the idle page tables while head.S's identity map still reaches our frames, then switch. */
int paging_init(void)
{
    int64_t root = alloc_frame();
    int rc;

    if (root < 0)
        return (int)root;
    idle_root_pa = (uint64_t)root << PAGE_SHIFT;
    if ((rc = map_image((uintptr_t)__image_start, (uintptr_t)__text_end, PTE_RX)) ||
        (rc = map_image((uintptr_t)__rodata_start, (uintptr_t)__rodata_end, PTE_RO)) ||
        (rc = map_image((uintptr_t)__data_start, (uintptr_t)__image_end, PTE_RW)))
        return rc;
    for (unsigned i = 0; i < boot_info.nr_mem; i++) {
        const struct mem_range *m = &boot_info.mem[i];
        if (m->type != E820_RAM)
            continue;
        uint64_t s = ALIGN_DOWN(m->start, PAGE_SIZE), e = ALIGN_UP(m->end, PAGE_SIZE);
        if (e > DIRECTMAP_SIZE)
            e = DIRECTMAP_SIZE;
        for (uint64_t p = s; p < e;) {
            /* skip pages an overlapping entry already mapped */
            unsigned lvl;
            if (phys_offset == 0 && pte_lookup(DIRECTMAP_BASE + p, &lvl)) {
                p += PAGE_SIZE;
                continue;
            }
            uint64_t n = PAGE_SIZE;
            if (IS_ALIGNED(p, SZ_2M) && e - p >= SZ_2M)
                n = SZ_2M;
            if ((rc = map_range(DIRECTMAP_BASE + p, p, n, PTE_RW)))
                return rc;
            p += n;
        }
    }
    /* the AP trampoline runs identity-mapped while it turns paging on */
    if ((rc = map_range(trampoline_pa, trampoline_pa, PAGE_SIZE, PTE_RWX)))
        return rc;
    for (unsigned i = 0; i < nr_keep_identity; i++)
        if ((rc = map_range(keep_identity[i], keep_identity[i], PAGE_SIZE, PTE_RW)))
            return rc;
    write_cr3(idle_root_pa);
    phys_offset = DIRECTMAP_BASE;
    mm_paging_ready();
    return 0;
}
