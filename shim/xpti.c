/*
 * xpti.c: guest user mode on page tables without the shim (see xpti.h). Each CPU has a copy of
 * the user L4 it last ran; the copy's slots 257-271 (the shim's: 256 is the guest's read-only
 * m2p, copied like the guest's own) point to tables of this CPU's alone, which map, page by
 * page at the same addresses as the shim's tables, what an entry from ring 3 touches before
 * its first instruction switches CR3 back (shim/entry.S, pv/vcpu/entry.S).
 */
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/sections.h"
#include "shim/spinlock.h"
#include "shim/x86.h"
#include "shim/xerrno.h"
#include "shim/xpti.h"

#define SLOT_FIRST 257                  /* the shim's own L4 slots; 256 is the guest's m2p */
#define SLOT_LAST 271
#define MSR_ARCH_CAPABILITIES 0x10a
#define ARCH_CAPS_RDCL_NO (1ull << 0)

bool xpti_on;
static spinlock_t xpti_lock = SPINLOCK_INIT;

void xpti_init(int opt)
{
    uint64_t caps = 0;
    bool affected = cpu_has.intel && !(rdmsr_safe(MSR_ARCH_CAPABILITIES, &caps) && (caps & ARCH_CAPS_RDCL_NO));

    xpti_on = opt == -1 ? affected : opt == 1;
    pr_info("xpti: %s (%s)\n", xpti_on ? "on: guest user mode runs without the shim's mappings" : "off",
            opt != -1 ? "as asked" : affected ? "this CPU may leak supervisor data to ring 3" : "this CPU does not");
}

/* The entry for va at `level` (3: an L3 entry, ... 1: a leaf) in c's tables, made as needed. */
static uint64_t *slot_of(uint64_t *l4, uintptr_t va, unsigned level)
{
    uint64_t *t = l4;

    for (unsigned lvl = 4; lvl > level; lvl--) {
        uint64_t *e = &t[(va >> (12 + 9 * (lvl - 1))) & 511];
        if (!(*e & PTE_P)) {
            int64_t pfn = alloc_frame();
            if (pfn < 0)
                return NULL;
            *e = ((uint64_t)pfn << PAGE_SHIFT) | PTE_P | PTE_W | PTE_A;
        }
        t = phys_to_virt(*e & PTE_ADDR);
    }
    return &t[(va >> (12 + 9 * (level - 1))) & 511];
}

/* The shim's mapping of the page at va as a 4 KiB leaf (0: none), split out of a large page. */
static uint64_t leaf_of(uintptr_t va)
{
    unsigned lvl;
    uint64_t *e = pte_lookup(va, &lvl);

    if (!e)
        return 0;
    if (lvl == 1)
        return *e;
    uint64_t span = 1ull << (12 + 9 * (lvl - 1));
    uint64_t pa = (*e & PTE_ADDR & ~(span - 1)) + (va & (span - 1) & ~(uint64_t)(PAGE_SIZE - 1));
    return pa | (*e & ~PTE_ADDR & ~PTE_PS);
}

static int map_pages(struct cpu *c, uintptr_t start, uintptr_t end)
{
    for (uintptr_t va = start & ~(uintptr_t)(PAGE_SIZE - 1); va < end; va += PAGE_SIZE) {
        uint64_t *e = slot_of(c->xpti_l4, va, 1);
        if (!e)
            return ERR(-XEN_ENOMEM);
        *e = leaf_of(va);
    }
    return 0;
}

int xpti_cpu_init(struct cpu *c)
{
    if (!xpti_on)
        return 0;
    c->xpti_l4 = alloc_page_va();
    if (!c->xpti_l4)
        return ERR(-XEN_ENOMEM);
    int rc = map_pages(c, (uintptr_t)__text_start, (uintptr_t)__text_end);
    if (!rc)
        rc = map_pages(c, (uintptr_t)idt_table(), (uintptr_t)idt_table() + PAGE_SIZE);
    if (!rc)
        rc = map_pages(c, (uintptr_t)c, (uintptr_t)c + sizeof(*c));
    if (!rc)
        rc = map_pages(c, c->stack.bottom, c->stack.top);
    for (unsigned i = 0; i < NR_IST && !rc; i++)
        rc = map_pages(c, c->ist[i].bottom, c->ist[i].top);
    if (!rc)
        rc = map_pages(c, (uintptr_t)c->gdt, (uintptr_t)c->gdt + GDT_WINDOW_PAGES * PAGE_SIZE);
    if (!rc)
        rc = map_pages(c, (uintptr_t)c->ldt, (uintptr_t)c->ldt + LDT_WINDOW_PAGES * PAGE_SIZE);
    return rc;
}

void xpti_vmap_changed(uintptr_t va, uint64_t pte)
{
    if (!xpti_on)
        return;
    for (unsigned i = 0; i < MAX_CPUS; i++) {
        struct cpu *c = cpus[i];
        if (!c || !c->xpti_l4)
            continue;
        uintptr_t g = (uintptr_t)c->gdt, l = (uintptr_t)c->ldt;
        if ((va >= g && va < g + GDT_WINDOW_PAGES * PAGE_SIZE) || (va >= l && va < l + LDT_WINDOW_PAGES * PAGE_SIZE)) {
            uint64_t *e = slot_of(c->xpti_l4, va, 1);   /* made at init: no allocation here */
            ASSERT(e);
            __atomic_store_n(e, pte, __ATOMIC_RELAXED);
        }
    }
}

static bool guest_slot(unsigned s)
{
    return s < SLOT_FIRST || s > SLOT_LAST;
}

void xpti_to_user(struct cpu *c, const uint64_t *l4, uint64_t mfn)
{
    if (!c->xpti_l4)
        return;
    if (c->xpti_src != mfn + 1) {
        uint64_t f = spin_lock_irqsave(&xpti_lock);
        for (unsigned s = 0; s < 512; s++)
            if (guest_slot(s))
                c->xpti_l4[s] = __atomic_load_n(&l4[s], __ATOMIC_RELAXED);
        c->xpti_src = mfn + 1;
        spin_unlock_irqrestore(&xpti_lock, f);
    }
    c->xpti_shim_cr3 = mfn << PAGE_SHIFT;
    c->xpti_guest_cr3 = virt_to_phys(c->xpti_l4);
}

void xpti_to_kernel(struct cpu *c)
{
    c->xpti_guest_cr3 = 0;
    c->xpti_shim_cr3 = 0;
}

void xpti_l4_written(uint64_t mfn, unsigned slot, uint64_t val)
{
    if (!xpti_on || !guest_slot(slot))
        return;
    uint64_t f = spin_lock_irqsave(&xpti_lock);
    for (unsigned i = 0; i < MAX_CPUS; i++) {
        struct cpu *c = cpus[i];
        if (c && c->xpti_l4 && c->xpti_src == mfn + 1)
            __atomic_store_n(&c->xpti_l4[slot], val, __ATOMIC_RELAXED);
    }
    spin_unlock_irqrestore(&xpti_lock, f);
}
