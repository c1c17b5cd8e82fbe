/*
 * build.c: the PV domain builder. From boot module 0 (ELF or bzImage) and module 1 (the initrd)
 * it makes the start-of-day state of xen.h's "Start-of-day memory layout": at virt_base + pfn * 4K,
 * the kernel, the initrd (unless MOD_START_PFN), the p2m (unless INIT_P2M), start_info, the
 * bootstrap page tables (read-only), one page of stack, and padding to a 4 MiB boundary at least
 * 512 KiB past it. An unmapped initrd (MOD_START_PFN) and an INIT_P2M p2m take the pfns after
 * that region; the p2m is then mapped at the INIT_P2M address by more bootstrap tables.
 *
 * Memory: every frame of the guest pool becomes the guest's, plus the xenstore and console pages (nr_pages = the pool's size + 2). The
 * initrd is not copied: its frames become the guest's pfns where it is placed. The kernel module
 * (and a decompression buffer) are freed once loaded and then fill the guest's upper pfns. So the
 * guest gets all RAM but the shim pool (see mm.c) and the m2p (8 bytes per frame, from that pool).
 */
#include "domain.h"
#include "balloon.h"
#include "boot.h"
#include "console.h"
#include "debug.h"
#include "elf.h"
#include "image.h"
#include "l0.h"
#include "mm.h"
#include "pagetype.h"
#include "paging.h"
#include "time.h"
#include "xenstore.h"
#include "xerrno.h"

#define SZ_512K   (512ull << 10)
#define SZ_4M     (4ull << 20)
#define PTE_GUEST (PTE_P | PTE_W | PTE_U | PTE_A | PTE_D)
#define PTE_TABLE (PTE_P | PTE_W | PTE_U | PTE_A)

struct pv_domain pv_dom;
extern char __image_start[], __image_end[];

struct layout {
    uint64_t virt_base;
    uint64_t mod_pfn, mod_pages, mod_offset;    /* initrd, if any */
    uint64_t p2m_pfn, p2m_pages;
    uint64_t si_pfn, store_pfn, cons_pfn, pt_pfn, nr_pt, stack_pfn;
    uint64_t boot_end_pfn;                      /* the mapped bootstrap region is [0, boot_end_pfn) */
    uint64_t v_end;
};

static struct pv_elf elf;
static struct layout lay;
static char why[128];

static int fail(int err, const char *fmt, ...) __printf(2, 3);
static int fail(int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(why, sizeof(why), fmt, ap);
    va_end(ap);
    return ERR(err);
}

const char *pv_build_error(void)
{
    return why;
}

static uint64_t va_of(uint64_t pfn)
{
    return lay.virt_base + (pfn << PAGE_SHIFT);
}

static void *frame_va(uint64_t mfn)
{
    return phys_to_virt(mfn << PAGE_SHIFT);
}

static void *pfn_va(uint64_t pfn)
{
    return frame_va(pv_dom.p2m[pfn]);
}

/* Page tables needed to map [start, end): one L4 and the L3s, L2s and L1s touched. */
static uint64_t tables_for(uint64_t start, uint64_t end)
{
    uint64_t n = 1;

    for (unsigned shift = 39; shift >= 21; shift -= 9)
        n += (ALIGN_UP(end, 1ull << shift) - ALIGN_DOWN(start, 1ull << shift)) >> shift;
    return n;
}

static int plan(const struct boot_info *bi, uint64_t nr_pages)
{
    uint64_t pfn;

    lay.virt_base = elf.virt_base;
    pfn = (elf.virt_kend - elf.virt_base) >> PAGE_SHIFT;
    if (bi->nr_mods > 1) {
        const struct boot_module *m = &bi->mods[1];
        lay.mod_offset = m->start & (PAGE_SIZE - 1);
        lay.mod_pages = (ALIGN_UP(m->end, PAGE_SIZE) - ALIGN_DOWN(m->start, PAGE_SIZE)) >> PAGE_SHIFT;
        if (elf.mod_start_pfn && lay.mod_offset)
            return fail(-XEN_EINVAL, "the initrd does not start on a page boundary");
        if (!elf.mod_start_pfn) {
            lay.mod_pfn = pfn;
            pfn += lay.mod_pages;
        }
    }
    lay.p2m_pages = ALIGN_UP(nr_pages * 8, PAGE_SIZE) >> PAGE_SHIFT;
    if (!elf.init_p2m) {
        lay.p2m_pfn = pfn;
        pfn += lay.p2m_pages;
    }
    lay.si_pfn = pfn++;
    lay.store_pfn = pfn++;              /* xen.h's layout: start_info, the xenstore page, the console */
    lay.cons_pfn = pfn++;
    lay.pt_pfn = pfn;
    uint64_t p2m_end = elf.init_p2m + (lay.p2m_pages << PAGE_SHIFT);
    for (lay.nr_pt = 4;;) {
        uint64_t stack_end = va_of(lay.pt_pfn + lay.nr_pt + 1);
        lay.v_end = ALIGN_UP(stack_end + SZ_512K, SZ_4M);
        /* with INIT_P2M, the p2m's own tables too (the L4 is shared; an overestimate is harmless) */
        uint64_t need = tables_for(lay.virt_base, lay.v_end) + (elf.init_p2m ? tables_for(elf.init_p2m, p2m_end) - 1 : 0);
        if (need <= lay.nr_pt)
            break;
        lay.nr_pt = need;
    }
    lay.stack_pfn = lay.pt_pfn + lay.nr_pt;
    lay.boot_end_pfn = (lay.v_end - lay.virt_base) >> PAGE_SHIFT;
    bool low = lay.v_end <= (1ull << 47), high = lay.virt_base >= PV_HOLE_END;
    if (lay.v_end < lay.virt_base || !(low || high))
        return fail(-XEN_EINVAL, "the bootstrap region %#lx-%#lx is not canonical or reaches the hypervisor's hole",
                    lay.virt_base, lay.v_end);
    pfn = lay.boot_end_pfn;             /* what is not mapped in the bootstrap region goes after it */
    if (bi->nr_mods > 1 && elf.mod_start_pfn) {
        lay.mod_pfn = pfn;
        pfn += lay.mod_pages;
    }
    if (elf.init_p2m) {
        lay.p2m_pfn = pfn;
        pfn += lay.p2m_pages;
        if (p2m_end < elf.init_p2m || (elf.init_p2m < lay.v_end && lay.virt_base < p2m_end) ||
            !(p2m_end <= (1ull << 47) || elf.init_p2m >= PV_HOLE_END))
            return fail(-XEN_EINVAL, "INIT_P2M %#lx-%#lx overlaps the bootstrap region or is unusable",
                        elf.init_p2m, p2m_end);
    }
    if (pfn > nr_pages)
        return fail(-XEN_ENOMEM, "no room for the initrd or the p2m after the bootstrap region");
    if (lay.boot_end_pfn > nr_pages)
        return fail(-XEN_ENOMEM, "the bootstrap region needs %lu MiB, the guest has %lu MiB",
                    lay.boot_end_pfn >> 8, nr_pages >> 8);
    return 0;
}

/* A zeroed frame of the guest pool, lowest first (so the guest's memory stays compact). */
static int64_t guest_frame(void)
{
    int64_t mfn = frame_alloc(&guest_pool, 1, 0, 0, FRAME_LOWEST);

    if (mfn >= 0)
        memset(frame_va((uint64_t)mfn), 0, PAGE_SIZE);
    return mfn;
}

static int alloc_p2m(uint64_t nr_pages, const struct boot_info *bi)
{
    uintptr_t va = vmap_reserve(lay.p2m_pages);
    int rc;

    if (!va)
        return fail(-XEN_ENOMEM, "no shim address space for a %lu-page p2m", lay.p2m_pages);
    for (uint64_t i = 0; i < lay.p2m_pages; i++) {
        int64_t mfn = guest_frame();
        if (mfn < 0)
            return fail(-XEN_ENOMEM, "out of memory for the p2m");
        if ((rc = map_range(va + i * PAGE_SIZE, (uint64_t)mfn << PAGE_SHIFT, PAGE_SIZE, PTE_RW)))
            return fail(rc, "cannot map the p2m in the shim");
    }
    pv_dom.p2m = (uint64_t *)va;
    for (uint64_t pfn = 0; pfn < nr_pages; pfn++)
        pv_dom.p2m[pfn] = M2P_INVALID;
    for (uint64_t i = 0; i < lay.p2m_pages; i++)
        pv_dom.p2m[lay.p2m_pfn + i] = virt_to_phys((void *)(va + i * PAGE_SIZE)) >> PAGE_SHIFT;
    /* the rings are the shim's frames (or L0's store ring) but pfns of the guest, as on Xen:
     * Linux finds them through the m2p and reserves their pfns */
    pv_dom.p2m[lay.store_pfn] = pv_dom.store_mfn;
    pv_dom.p2m[lay.cons_pfn] = pv_dom.cons_mfn;
    if (bi->nr_mods > 1) {
        uint64_t first = bi->mods[1].start >> PAGE_SHIFT;
        for (uint64_t i = 0; i < lay.mod_pages; i++)
            pv_dom.p2m[lay.mod_pfn + i] = first + i;
    }
    return 0;
}

/* Back every still-unbacked pfn below `end` with a fresh frame. */
static int back_pfns(uint64_t end)
{
    for (uint64_t pfn = 0; pfn < end; pfn++) {
        if (pv_dom.p2m[pfn] != M2P_INVALID)
            continue;
        int64_t mfn = guest_frame();
        if (mfn < 0)
            return fail(-XEN_ENOMEM, "out of guest frames at pfn %#lx", pfn);
        pv_dom.p2m[pfn] = (uint64_t)mfn;
    }
    return 0;
}

static void load_segments(void)
{
    for (unsigned i = 0; i < elf.nr_segs; i++) {
        const struct pv_segment *s = &elf.seg[i];
        uint64_t pa = s->paddr - elf.paddr_offset, done = 0;   /* guest pseudo-physical */
        while (done < s->filesz) {
            uint64_t off = (pa + done) & (PAGE_SIZE - 1);
            uint64_t n = MIN(PAGE_SIZE - off, s->filesz - done);
            memcpy((char *)pfn_va((pa + done) >> PAGE_SHIFT) + off, elf.img + s->offset + done, n);
            done += n;
        }
    }
}

/* 32-byte stubs: push rcx; push r11; mov $nr, eax; syscall; pop r11; pop rcx; ret. The iret
 * stub keeps the guest's frame (push rax too) and never returns. */
static void fill_hypercall_page(uint8_t *p)
{
    memset(p, 0xcc, PAGE_SIZE);
    for (uint32_t nr = 0; nr < PAGE_SIZE / 32; nr++) {
        uint8_t *s = p + nr * 32;
        static const uint8_t head[] = { 0x51, 0x41, 0x53 }, tail[] = { 0x0f, 0x05, 0x41, 0x5b, 0x59, 0xc3 };
        memcpy(s, head, sizeof(head));
        s += sizeof(head);
        if (nr == __HYPERVISOR_iret)
            *s++ = 0x50;
        *s++ = 0xb8;
        memcpy(s, &nr, 4);
        s += 4;
        if (nr == __HYPERVISOR_iret) {
            static const uint8_t ud[] = { 0x0f, 0x05, 0x0f, 0x0b };
            memcpy(s, ud, sizeof(ud));
        } else {
            memcpy(s, tail, sizeof(tail));
        }
    }
}

/* Map va to pfn in the bootstrap tables, taking new tables from the page-table pfns at *next. */
static void map_boot(uint64_t *l4, uint64_t va, uint64_t pfn, uint64_t *next)
{
    uint64_t *t = l4;

    for (unsigned shift = 39; shift > 12; shift -= 9) {
        uint64_t *e = &t[(va >> shift) & 511];
        if (!(*e & PTE_P)) {
            ASSERT(*next < lay.pt_pfn + lay.nr_pt);
            *e = (pv_dom.p2m[(*next)++] << PAGE_SHIFT) | PTE_TABLE;
        }
        t = frame_va((*e & PTE_ADDR) >> PAGE_SHIFT);
    }
    bool is_pt = pfn >= lay.pt_pfn && pfn < lay.pt_pfn + lay.nr_pt;
    t[(va >> 12) & 511] = (pv_dom.p2m[pfn] << PAGE_SHIFT) | (is_pt ? PTE_GUEST & ~(PTE_W | PTE_D) : PTE_GUEST);
}

static void build_page_tables(void)
{
    uint64_t next = lay.pt_pfn + 1, *l4 = pfn_va(lay.pt_pfn);
    const uint64_t *idle = phys_to_virt(idle_root_pa);

    for (uint64_t pfn = 0; pfn < lay.boot_end_pfn; pfn++)
        map_boot(l4, va_of(pfn), pfn, &next);
    for (uint64_t i = 0; elf.init_p2m && i < lay.p2m_pages; i++)
        map_boot(l4, elf.init_p2m + (i << PAGE_SHIFT), lay.p2m_pfn + i, &next);
    for (unsigned s = PV_SLOT_FIRST; s <= PV_SLOT_LAST; s++)
        l4[s] = idle[s];
    pv_current()->cr3 = pv_dom.p2m[lay.pt_pfn] << PAGE_SHIFT;
}

static void fill_start_info(const struct boot_info *bi)
{
    start_info_t *si = pfn_va(lay.si_pfn);

    snprintf_(si->magic, sizeof(si->magic), "xen-3.0-x86_64");
    si->nr_pages = pv_dom.nr_pages;
    si->shared_info = pv_dom.shared_mfn << PAGE_SHIFT;
    si->store_mfn = pv_dom.store_mfn;
    si->store_evtchn = pv_dom.store_port;
    si->console.domU.mfn = pv_dom.cons_mfn;
    si->console.domU.evtchn = pv_dom.console_port;
    si->pt_base = va_of(lay.pt_pfn);
    si->nr_pt_frames = lay.nr_pt;
    si->mfn_list = elf.init_p2m ? elf.init_p2m : va_of(lay.p2m_pfn);
    if (elf.init_p2m) {
        si->first_p2m_pfn = lay.p2m_pfn;
        si->nr_p2m_frames = lay.p2m_pages;
    }
    if (bi->nr_mods > 1) {
        si->mod_len = bi->mods[1].end - bi->mods[1].start;
        if (elf.mod_start_pfn) {
            si->flags |= SIF_MOD_START_PFN;
            si->mod_start = lay.mod_pfn;
        } else {
            si->mod_start = va_of(lay.mod_pfn) + lay.mod_offset;
        }
    }
    str_copy((char *)si->cmd_line, bi->mods[0].cmdline, sizeof(si->cmd_line));
}

/* Shim-owned pages the guest maps: shared_info, its console ring and the store ring. On Xen the
 * store ring is L0's: moved (as the stock shim does) into a frame of ours, so that, like the
 * console, it is a pfn of the guest's with an m2p entry (Linux finds both through the m2p). */
static int special_pages(void)
{
    int64_t s = alloc_frame(), c = alloc_frame(), st = alloc_frame();
    uint64_t store_pfn = 0;
    uint32_t store_port = 0;

    if (s < 0 || c < 0 || st < 0)
        return fail(-XEN_ENOMEM, "no shim memory for shared_info and the rings");
    pv_dom.shared_mfn = (uint64_t)s;
    pv_dom.shared = frame_va(pv_dom.shared_mfn);
    pv_dom.cons_mfn = (uint64_t)c;
    pv_dom.cons = frame_va(pv_dom.cons_mfn);
    pv_dom.store_mfn = (uint64_t)st;
    if (l0->store_ring && l0->store_ring((uint64_t)st, &store_pfn, &store_port) == 0 && store_pfn) {
        pv_dom.store_mfn = store_pfn;       /* L0's xenstore ring, now at our frame */
        pv_dom.store_l0_port = store_port;
    }
    return 0;
}

static int build_m2p(void)
{
    uint64_t pages = ALIGN_UP(frame_map.nr * 8, PAGE_SIZE) >> PAGE_SHIFT;
    int64_t first = alloc_frames(pages);
    int rc;

    if (first < 0)
        return fail(-XEN_ENOMEM, "no shim memory for a %lu KiB m2p", pages * 4);
    pv_dom.max_mfn = frame_map.nr;
    pv_dom.m2p_pa = (uint64_t)first << PAGE_SHIFT;
    pv_dom.m2p = phys_to_virt(pv_dom.m2p_pa);
    memset(pv_dom.m2p, 0xff, pages * PAGE_SIZE);
    if ((rc = map_range(PV_M2P_VIRT, pv_dom.m2p_pa, pages * PAGE_SIZE, PTE_P | PTE_U | PTE_NX)))
        return fail(rc, "cannot map the m2p");
    /* every shim slot gets its L3 now, so the copies in guest L4s never go stale */
    uint64_t *idle = phys_to_virt(idle_root_pa);
    for (unsigned s = PV_SLOT_FIRST; s <= PV_SLOT_LAST; s++) {
        if (idle[s] & PTE_P)
            continue;
        int64_t l3 = alloc_frame();
        if (l3 < 0)
            return fail(-XEN_ENOMEM, "no shim memory for page tables");
        idle[s] = ((uint64_t)l3 << PAGE_SHIFT) | PTE_P | PTE_W | PTE_A;
    }
    return 0;
}

int pv_build(const struct boot_info *bi)
{
    struct pv_kimage k;
    int rc;

    if (!bi->nr_mods)
        return fail(-XEN_ENOENT, "no guest kernel (boot module 0)");
    if ((rc = pv_image_open(&k, bi->mods[0].start, bi->mods[0].end - bi->mods[0].start, why, sizeof(why))))
        return rc;
    if ((rc = pv_elf_parse(&elf, k.elf, k.elf_len)))
        return fail(rc, "%s", elf.why);
    pv_dom.features = (1u << XENFEAT_mmu_pt_update_preserve_ad) | (1u << XENFEAT_highmem_assist) |
                      (1u << XENFEAT_gnttab_map_avail_bits);
    /* What a kernel may require: writable page tables are ptwr.c (Xen never lists that one in
     * XENVER_get_features for PV, but its builder accepts the requirement, and so do we). */
    const uint32_t can = pv_dom.features | (1u << XENFEAT_writable_page_tables) | (1u << XENFEAT_pae_pgdir_above_4gb);
    if (elf.feat_required & ~can) {
        uint32_t miss = elf.feat_required & ~can;
        return fail(-XEN_EOPNOTSUPP, "the kernel requires Xen feature %u (see features.h), not offered yet",
                    __builtin_ctz(miss));
    }
    if ((rc = build_m2p()) || (rc = special_pages()))
        return rc;
    if (pv_mmu_init(pv_dom.max_mfn))
        return fail(-XEN_ENOMEM, "no shim memory for the page-type words");
    if (balloon_init())
        return fail(-XEN_ENOMEM, "no shim memory for the balloon's bitmap");
    pt_fix_writable(pv_dom.shared_mfn);
    pt_fix_writable(pv_dom.cons_mfn);
    pt_fix_writable(pv_dom.store_mfn);
    /* a vCPU per shim CPU that came up, as the stock shim gives the guest */
    pv_dom.nr_vcpus = 0;
    while (pv_dom.nr_vcpus < PV_MAX_VCPUS && pv_dom.nr_vcpus < MAX_CPUS && cpus[pv_dom.nr_vcpus] &&
           cpus[pv_dom.nr_vcpus]->online)
        pv_dom.nr_vcpus++;
    pv_dom.shutdown_code = ~0u;
    for (unsigned i = 0; i < pv_dom.nr_vcpus; i++)
        pv_vcpu_init(&pv_dom.vcpu[i], i);
    pv_dom.vcpu[0].initialised = pv_dom.vcpu[0].started = true;
    pv_vcpu_init_smp();
    pv_evtchn_init();
    pv_store_init();

    uint64_t nr_pages = guest_pool.total_frames + 2;    /* + the xenstore and console pages */
    if ((rc = plan(bi, nr_pages)) || (rc = alloc_p2m(nr_pages, bi)) || (rc = back_pfns(lay.boot_end_pfn)))
        return rc;
    load_segments();
    if (elf.hypercall_page) {
        fill_hypercall_page(pfn_va((elf.hypercall_page - lay.virt_base) >> PAGE_SHIFT));
        pv_dom.hypercall_page = true;
    }
    build_page_tables();
    pv_dom.pt_pfn = lay.pt_pfn;
    pv_dom.nr_pt = lay.nr_pt;

    /* the image is loaded: its frames (module 0, any decompression buffer) become guest memory */
    pv_image_close(&k);
    if ((rc = back_pfns(nr_pages)))
        return rc;
    ASSERT(guest_pool.free_frames == 0);
    pv_dom.nr_pages = pv_dom.max_pages = nr_pages;
    for (uint64_t pfn = 0; pfn < nr_pages; pfn++)
        if (pv_dom.p2m[pfn] < pv_dom.max_mfn)     /* (L0's store ring may lie beyond the m2p) */
            pv_dom.m2p[pv_dom.p2m[pfn]] = pfn;
    fill_start_info(bi);
    pv_time_update();
    pv_wallclock_init();
    /* the start-of-day L4 is pinned and in CR3, as Xen's builder leaves it (Linux unpins it) */
    uint64_t l4 = pv_current()->cr3 >> PAGE_SHIFT;
    if ((rc = pt_pin(l4, PGT_L4)) || (rc = pt_get_type(l4, PGT_L4)))
        return fail(rc, "the bootstrap page tables do not validate (error %d)", rc);

    pr_info("guest: %s kernel (notes from %s), %lu MiB, entry %#lx%s\n", elf.guest_os[0] ? elf.guest_os : "a",
            elf.notes_from, nr_pages >> 8, elf.virt_entry, pv_dom.hypercall_page ? ", hypercall page" : "");
    uint64_t ram = 0;
    for (unsigned i = 0; i < bi->nr_mem; i++)
        if (bi->mem[i].type == E820_RAM)
            ram += bi->mem[i].end - bi->mem[i].start;
    pr_info("guest: memory %lu KiB of %lu KiB RAM; the shim keeps %lu KiB (pool %lu KiB incl. m2p %lu KiB, %lu KiB free; image %lu KiB)\n",
            nr_pages * 4, ram >> 10, (ram >> 10) - nr_pages * 4, shim_pool.total_frames * 4,
            ALIGN_UP(pv_dom.max_mfn * 8, PAGE_SIZE) >> 10, shim_pool.free_frames * 4,
            (uint64_t)(__image_end - __image_start) >> 10);
    pr_info("guest: kernel %#lx-%#lx, p2m %#lx%s, start_info %#lx, %lu page tables at %#lx, bootstrap end %#lx\n",
            elf.virt_kstart, elf.virt_kend, elf.init_p2m ? elf.init_p2m : va_of(lay.p2m_pfn),
            elf.init_p2m ? " (INIT_P2M)" : "", va_of(lay.si_pfn), lay.nr_pt, va_of(lay.pt_pfn), lay.v_end);
    return 0;
}

uint64_t pv_entry_rip(void)
{
    return elf.virt_entry;
}

uint64_t pv_entry_rsi(void)
{
    return va_of(lay.si_pfn);
}

uint64_t pv_entry_rsp(void)
{
    return va_of(lay.stack_pfn + 1);
}
