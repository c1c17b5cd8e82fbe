/* mm.c: splits RAM into the shim's pool and the guest's, around the image, modules and holes. */
#include "mm.h"
#include "boot.h"
#include "cmdline.h"
#include "config.h"
#include "console.h"
#include "debug.h"
#include "paging.h"
#include "spinlock.h"
#include "xerrno.h"

struct frame_pool shim_pool, guest_pool;
uint64_t trampoline_pa;
static spinlock_t lock = SPINLOCK_INIT;

extern char __image_start[], __image_end[];

#define PFN_DOWN(x) ((x) >> PAGE_SHIFT)
#define PFN_UP(x)   (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_4G      (1ull << (32 - PAGE_SHIFT))
#define PFN_1M      (1ull << (20 - PAGE_SHIFT))

static uint64_t shim_frames_wanted(const struct shim_opts *o, uint64_t total)
{
    /* default: 4 MiB + 1/512 of RAM (per-frame metadata for the guest will live here) */
    uint64_t want = o->shim_mem ? PFN_UP(o->shim_mem) : PFN_UP(4ull << 20) + total / 512;

    if (o->shim_mem_min && want < PFN_UP(o->shim_mem_min))
        want = PFN_UP(o->shim_mem_min);
    if (o->shim_mem_max && want > PFN_DOWN(o->shim_mem_max))
        want = PFN_DOWN(o->shim_mem_max);
    return MIN(want, total / 2);
}

int mm_init(const struct boot_info *bi, const struct shim_opts *o)
{
    int rc;

    frame_pool_init(&guest_pool, "guest");
    frame_pool_init(&shim_pool, "shim");
    for (unsigned i = 0; i < bi->nr_mem; i++) {
        const struct mem_range *m = &bi->mem[i];
        if (m->type == E820_RAM && PFN_UP(m->start) < PFN_DOWN(m->end) &&
            (rc = frame_pool_add(&guest_pool, PFN_UP(m->start), PFN_DOWN(m->end))))
            pr_warn("memory map entry %#lx-%#lx overlaps another: ignored (%d)\n", m->start, m->end, rc);
    }
    for (unsigned i = 0; i < bi->nr_mem; i++) {
        const struct mem_range *m = &bi->mem[i];
        if (m->type != E820_RAM)
            frame_pool_carve(&guest_pool, PFN_DOWN(m->start), PFN_UP(m->end));
    }
    frame_pool_carve(&guest_pool, 0, 1);    /* real-mode IVT, and NULL stays unbacked */
    frame_pool_carve(&guest_pool, PFN_DOWN((uintptr_t)__image_start - IMAGE_VOFFSET),
                     PFN_UP((uintptr_t)__image_end - IMAGE_VOFFSET));
    for (unsigned i = 0; i < bi->nr_mods; i++)
        frame_pool_carve(&guest_pool, PFN_DOWN(bi->mods[i].start), PFN_UP(bi->mods[i].end));

    /* one page below 1 MiB for the AP trampoline, then the shim's pool below 4 GiB */
    if ((rc = frame_pool_transfer(&guest_pool, &shim_pool, 1, PFN_1M)))
        return rc;
    int64_t t = frame_alloc(&shim_pool, 1, 0, PFN_1M, FRAME_LOWEST);
    if (t < 0)
        return (int)t;
    trampoline_pa = (uint64_t)t << PAGE_SHIFT;
    uint64_t want = shim_frames_wanted(o, guest_pool.free_frames);
    if ((rc = frame_pool_transfer(&guest_pool, &shim_pool, want, PFN_4G)))
        return rc;
    ASSERT(frame_pool_check(&guest_pool) == 0 && frame_pool_check(&shim_pool) == 0);
    return 0;
}

int64_t alloc_frame(void)
{
    uint64_t f = spin_lock_irqsave(&lock);
    int64_t pfn = frame_alloc(&shim_pool, 1, 0, PFN_4G, FRAME_LOWEST);
    spin_unlock_irqrestore(&lock, f);

    if (pfn >= 0)
        memset(phys_to_virt((uint64_t)pfn << PAGE_SHIFT), 0, PAGE_SIZE);
    return pfn;
}

void *alloc_page_va(void)
{
    int64_t pfn = alloc_frame();

    return pfn < 0 ? NULL : phys_to_virt((uint64_t)pfn << PAGE_SHIFT);
}

void free_frame(uint64_t pfn)
{
    uint64_t f = spin_lock_irqsave(&lock);
    int rc = frame_free(&shim_pool, pfn, 1);
    spin_unlock_irqrestore(&lock, f);

    ASSERT(rc == 0);
}

static void report_pool(const struct frame_pool *p)
{
    pr_info("  %-5s pool: %lu KiB free of %lu KiB, %u extent%s\n", p->name, p->free_frames * 4,
            p->total_frames * 4, p->nr_free, p->nr_free == 1 ? "" : "s");
    for (unsigned i = 0; i < p->nr_free && i < 6; i++)
        pr_debug("    free %#lx-%#lx\n", p->free[i].start << PAGE_SHIFT, p->free[i].end << PAGE_SHIFT);
}

void mm_report(void)
{
    report_pool(&shim_pool);
    report_pool(&guest_pool);
}
