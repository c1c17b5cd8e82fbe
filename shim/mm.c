/* mm.c: splits RAM into the shim's pool and the guest's, around the image, modules and holes. */
#include "shim/boot.h"
#include "shim/cmdline.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/sections.h"
#include "shim/spinlock.h"
#include "shim/xerrno.h"

struct frame_pool shim_pool, guest_pool;
struct frame_map frame_map;
static uint64_t map_pa_saved;
uint64_t trampoline_pa;
static spinlock_t lock = SPINLOCK_INIT;

#define PFN_DOWN(x) ((x) >> PAGE_SHIFT)
#define PFN_UP(x)   (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_4G      (1ull << (32 - PAGE_SHIFT))
#define PFN_1M      (1ull << (20 - PAGE_SHIFT))

/*
 * Frames for the shim's pool. DESIGN.md's budget: the shim keeps at most 4 MiB + 0.25% of RAM,
 * counting all it holds back from the guest, so the pool gets what the frames `lost` outside it
 * (image, frame map, page 0) leave. It must hold the m2p (8 bytes per frame of the map, 0.195%),
 * the page-type words (4 bytes per frame, 0.098%: pv/mm/pagetype.h),
 * the shim's page tables, stacks and per-CPU pages (a few hundred KiB); the floor keeps 1 MiB
 * beside the m2p should the image ever grow into the budget. shim_mem= overrides all that.
 */
static uint64_t shim_frames_wanted(const struct shim_opts *o, uint64_t ram, uint64_t lost)
{
    uint64_t budget = PFN_UP(4ull << 20) + ram / 400;
    uint64_t floor = PFN_UP(frame_map.nr * 8) + PFN_UP(frame_map.nr * 4) + PFN_UP(1ull << 20);
    uint64_t want = o->shim_mem ? PFN_UP(o->shim_mem) : MAX(budget > lost ? budget - lost : 0, floor);

    if (o->shim_mem_min && want < PFN_UP(o->shim_mem_min))
        want = PFN_UP(o->shim_mem_min);
    if (o->shim_mem_max && want > PFN_DOWN(o->shim_mem_max))
        want = PFN_DOWN(o->shim_mem_max);
    return MIN(want, ram / 2);
}

static bool overlaps(uint64_t s, uint64_t e, uint64_t s2, uint64_t e2)
{
    return s < e2 && s2 < e;
}

/* Where the frame-state map can go before any allocator exists: the top of a RAM range below
 * 4 GiB (reachable through head.S's identity map) clear of the image and the modules. */
static uint64_t place_map(const struct boot_info *bi, uint64_t bytes)
{
    uint64_t img_s = (uintptr_t)__image_start - IMAGE_VOFFSET, img_e = (uintptr_t)__image_end - IMAGE_VOFFSET;
    uint64_t best = 0;

    for (unsigned i = 0; i < bi->nr_mem; i++) {
        const struct mem_range *m = &bi->mem[i];
        if (m->type != E820_RAM)
            continue;
        uint64_t top = ALIGN_DOWN(MIN(m->end, 4ull << 30), PAGE_SIZE);
        while (top >= m->start + bytes && top - bytes >= PAGE_SIZE) {
            uint64_t s = ALIGN_DOWN(top - bytes, PAGE_SIZE), clash = 0;
            if (s < m->start)
                break;
            if (overlaps(s, top, img_s, img_e))
                clash = img_s;
            for (unsigned k = 0; k < bi->nr_mods; k++)
                if (overlaps(s, top, bi->mods[k].start, bi->mods[k].end))
                    clash = clash ? MIN(clash, bi->mods[k].start) : bi->mods[k].start;
            for (unsigned k = 0; k < bi->nr_mem; k++)
                if (bi->mem[k].type != E820_RAM && overlaps(s, top, bi->mem[k].start, bi->mem[k].end))
                    clash = clash ? MIN(clash, bi->mem[k].start) : bi->mem[k].start;
            if (!clash) {
                best = MAX(best, s);
                break;
            }
            top = ALIGN_DOWN(clash, PAGE_SIZE);
        }
    }
    return best;
}

int mm_init(const struct boot_info *bi, const struct shim_opts *o)
{
    uint64_t max_pfn = 0;
    int rc;

    for (unsigned i = 0; i < bi->nr_mem; i++)
        if (bi->mem[i].type == E820_RAM)
            max_pfn = MAX(max_pfn, PFN_DOWN(bi->mem[i].end));
    uint64_t map_bytes = ALIGN_UP(max_pfn, PAGE_SIZE);
    uint64_t map_pa = place_map(bi, map_bytes);
    if (!map_pa)
        return ERR(-XEN_ENOMEM);
    frame_map_init(&frame_map, phys_to_virt(map_pa), max_pfn);
    frame_pool_init(&shim_pool, "shim", &frame_map, 0);
    frame_pool_init(&guest_pool, "guest", &frame_map, 1);

    for (unsigned i = 0; i < bi->nr_mem; i++) {
        const struct mem_range *m = &bi->mem[i];
        if (m->type == E820_RAM && PFN_UP(m->start) < PFN_DOWN(m->end) &&
            (rc = frame_pool_add(&guest_pool, PFN_UP(m->start), PFN_DOWN(m->end))))
            pr_warn("memory map entry %#lx-%#lx overlaps another: ignored (%d)\n", m->start, m->end, rc);
    }
    uint64_t ram = guest_pool.total_frames;
    for (unsigned i = 0; i < bi->nr_mem; i++) {
        const struct mem_range *m = &bi->mem[i];
        if (m->type != E820_RAM)
            frame_pool_remove(&guest_pool, PFN_DOWN(m->start), PFN_UP(m->end));
    }
    frame_pool_remove(&guest_pool, 0, 1);   /* real-mode IVT, and NULL stays unbacked */
    frame_pool_remove(&guest_pool, PFN_DOWN((uintptr_t)__image_start - IMAGE_VOFFSET),
                      PFN_UP((uintptr_t)__image_end - IMAGE_VOFFSET));
    /* the boot modules (the PV kernel, its initrd) are guest memory in use until the builder is done */
    for (unsigned i = 0; i < bi->nr_mods; i++)
        frame_pool_carve(&guest_pool, PFN_DOWN(bi->mods[i].start), PFN_UP(bi->mods[i].end));

    /* the shim's pool: the map itself, one page below 1 MiB for the AP trampoline, then the top
     * frames below 4 GiB (page tables must be reachable from 32-bit code) */
    frame_pool_remove(&guest_pool, PFN_DOWN(map_pa), PFN_DOWN(map_pa) + map_bytes / PAGE_SIZE);
    if ((rc = frame_pool_transfer(&guest_pool, &shim_pool, 1, PFN_1M)))
        return rc;
    int64_t t = frame_alloc(&shim_pool, 1, 0, PFN_1M, FRAME_LOWEST);
    if (t < 0)
        return (int)t;
    trampoline_pa = (uint64_t)t << PAGE_SHIFT;
    uint64_t lost = ram - guest_pool.total_frames - shim_pool.total_frames;
    uint64_t want = shim_frames_wanted(o, ram, lost);
    if ((rc = frame_pool_transfer(&guest_pool, &shim_pool, want - MIN(want, shim_pool.total_frames), PFN_4G)))
        return rc;
    map_pa_saved = map_pa;
    ASSERT(frame_pool_check(&guest_pool) == 0 && frame_pool_check(&shim_pool) == 0);
    return 0;
}

/* After paging_init: the map is reached through the direct map. */
void mm_paging_ready(void)
{
    frame_map.state = phys_to_virt(map_pa_saved);
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

int64_t alloc_frames(uint64_t nr)
{
    uint64_t f = spin_lock_irqsave(&lock);
    int64_t pfn = frame_alloc(&shim_pool, nr, 0, 0, FRAME_LOWEST);
    spin_unlock_irqrestore(&lock, f);

    if (pfn >= 0)
        memset(phys_to_virt((uint64_t)pfn << PAGE_SHIFT), 0, nr * PAGE_SIZE);
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
    uint64_t pfn = 0, end;
    unsigned runs = 0;

    for (; (end = frame_pool_next_free(p, &pfn)); pfn = end)
        runs++;
    pr_info("  %-5s pool: %lu KiB free of %lu KiB, in %u run%s\n", p->name, p->free_frames * 4,
            p->total_frames * 4, runs, runs == 1 ? "" : "s");
}

void mm_report(void)
{
    report_pool(&shim_pool);
    report_pool(&guest_pool);
    pr_info("  frame map: %lu frames, %lu KiB at %#lx\n", frame_map.nr, ALIGN_UP(frame_map.nr, PAGE_SIZE) / 1024,
            map_pa_saved);
}
