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
#include "compat/compat.h"
#include "l0/l0.h"
#include "pv/devices/xenstore.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/loader/build.h"
#include "pv/loader/elf.h"
#include "pv/loader/image.h"
#include "pv/loader/loader.h"
#include "pv/mm/balloon.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "pv/mm/segdesc.h"
#include "pv/vcpu/vcpu.h"
#include "shim/boot.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/sections.h"
#include "shim/time.h"
#include "shim/xerrno.h"

#define SZ_512K   (512ull << 10)
#define SZ_4M     (4ull << 20)

struct pv_domain pv_dom;
struct pv_elf build_elf;
struct build_layout build_lay;

static char why[128];

/* The build's one refusal: its reason (pv_build_error, the FATAL line) is also ERR's, with the
 * caller's file:line. */
static int fail_at(const char *file, int line, int err, const char *fmt, ...) __printf(4, 5);
static int fail_at(const char *file, int line, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(why, sizeof(why), fmt, ap);
    va_end(ap);
    return err_at(err, why, file, line);
}
#define fail(...) fail_at(__FILE__, __LINE__, __VA_ARGS__)

const char *pv_build_error(void)
{
    return why;
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

    build_lay.virt_base = build_elf.virt_base;
    pfn = (build_elf.virt_kend - build_elf.virt_base) >> PAGE_SHIFT;
    if (bi->nr_mods > 1) {
        const struct boot_module *m = &bi->mods[1];
        build_lay.mod_offset = m->start & (PAGE_SIZE - 1);
        build_lay.mod_pages = (ALIGN_UP(m->end, PAGE_SIZE) - ALIGN_DOWN(m->start, PAGE_SIZE)) >> PAGE_SHIFT;
        if (build_elf.mod_start_pfn && build_lay.mod_offset)
            return fail(-XEN_EINVAL, "the initrd does not start on a page boundary");
        if (!build_elf.mod_start_pfn) {
            build_lay.mod_pfn = pfn;
            pfn += build_lay.mod_pages;
        }
    }
    build_lay.p2m_pages = ALIGN_UP(nr_pages * (build_lay.p2m32 ? 4 : 8), PAGE_SIZE) >> PAGE_SHIFT;
    if (!build_elf.init_p2m) {
        build_lay.p2m_pfn = pfn;
        pfn += build_lay.p2m_pages;
    }
    build_lay.si_pfn = pfn++;
    build_lay.store_pfn = pfn++;              /* xen.h's layout: start_info, the xenstore page, the console */
    build_lay.cons_pfn = pfn++;
    build_lay.pt_pfn = pfn;
    uint64_t p2m_end = build_elf.init_p2m + (build_lay.p2m_pages << PAGE_SHIFT);
    for (build_lay.nr_pt = 4;;) {
        uint64_t stack_end = va_of(build_lay.pt_pfn + build_lay.nr_pt + 1);
        build_lay.v_end = ALIGN_UP(stack_end + SZ_512K, SZ_4M);
        /* with INIT_P2M, the p2m's own tables too (the L4 is shared; an overestimate is harmless) */
        uint64_t need = pv_dom.compat ? compat_tables_for(build_lay.virt_base, build_lay.v_end) :
                        tables_for(build_lay.virt_base, build_lay.v_end) + (build_elf.init_p2m ? tables_for(build_elf.init_p2m, p2m_end) - 1 : 0);
        if (need <= build_lay.nr_pt)
            break;
        build_lay.nr_pt = need;
    }
    build_lay.stack_pfn = build_lay.pt_pfn + build_lay.nr_pt;
    build_lay.boot_end_pfn = (build_lay.v_end - build_lay.virt_base) >> PAGE_SHIFT;
    bool low = build_lay.v_end <= (pv_dom.compat ? COMPAT_HV_START : 1ull << 47);
    bool high = !pv_dom.compat && build_lay.virt_base >= PV_HOLE_END;
    if (build_lay.v_end < build_lay.virt_base || !(low || high))
        return fail(-XEN_EINVAL, "the bootstrap region %#lx-%#lx is not canonical or reaches the hypervisor's hole",
                    build_lay.virt_base, build_lay.v_end);
    pfn = build_lay.boot_end_pfn;             /* what is not mapped in the bootstrap region goes after it */
    if (bi->nr_mods > 1 && build_elf.mod_start_pfn) {
        build_lay.mod_pfn = pfn;
        pfn += build_lay.mod_pages;
    }
    if (build_elf.init_p2m) {
        build_lay.p2m_pfn = pfn;
        pfn += build_lay.p2m_pages;
        if (p2m_end < build_elf.init_p2m || (build_elf.init_p2m < build_lay.v_end && build_lay.virt_base < p2m_end) ||
            !(p2m_end <= (1ull << 47) || build_elf.init_p2m >= PV_HOLE_END))
            return fail(-XEN_EINVAL, "INIT_P2M %#lx-%#lx overlaps the bootstrap region or is unusable",
                        build_elf.init_p2m, p2m_end);
    }
    if (pfn > nr_pages)
        return fail(-XEN_ENOMEM, "no room for the initrd or the p2m after the bootstrap region");
    if (build_lay.boot_end_pfn > nr_pages)
        return fail(-XEN_ENOMEM, "the bootstrap region needs %lu MiB, the guest has %lu MiB",
                    build_lay.boot_end_pfn >> 8, nr_pages >> 8);
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
    uintptr_t va = vmap_reserve(build_lay.p2m_pages);
    int rc;

    if (!va)
        return fail(-XEN_ENOMEM, "no shim address space for a %lu-page p2m", build_lay.p2m_pages);
    for (uint64_t i = 0; i < build_lay.p2m_pages; i++) {
        int64_t mfn = guest_frame();
        if (mfn < 0)
            return fail(-XEN_ENOMEM, "out of memory for the p2m");
        if ((rc = map_range(va + i * PAGE_SIZE, (uint64_t)mfn << PAGE_SHIFT, PAGE_SIZE, PTE_RW)))
            return fail(rc, "cannot map the p2m in the shim");
    }
    pv_dom.p2m = (uint64_t *)va;
    for (uint64_t pfn = 0; pfn < nr_pages; pfn++)
        p2m_set(pfn, M2P_INVALID);
    for (uint64_t i = 0; i < build_lay.p2m_pages; i++)
        p2m_set(build_lay.p2m_pfn + i, virt_to_phys((void *)(va + i * PAGE_SIZE)) >> PAGE_SHIFT);
    /* the rings are the shim's frames (or L0's store ring) but pfns of the guest, as on Xen:
     * Linux finds them through the m2p and reserves their pfns */
    p2m_set(build_lay.store_pfn, pv_dom.store_mfn);
    p2m_set(build_lay.cons_pfn, pv_dom.cons_mfn);
    if (bi->nr_mods > 1) {
        uint64_t first = bi->mods[1].start >> PAGE_SHIFT;
        for (uint64_t i = 0; i < build_lay.mod_pages; i++)
            p2m_set(build_lay.mod_pfn + i, first + i);
    }
    return 0;
}

/* Back every still-unbacked pfn below `end` with a fresh frame. */
static int back_pfns(uint64_t end)
{
    for (uint64_t pfn = 0; pfn < end; pfn++) {
        if (p2m_get(pfn) != M2P_INVALID)
            continue;
        int64_t mfn = guest_frame();
        if (mfn < 0)
            return fail(-XEN_ENOMEM, "out of guest frames at pfn %#lx", pfn);
        p2m_set(pfn, (uint64_t)mfn);
    }
    return 0;
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
    if ((rc = pv_elf_parse(&build_elf, k.elf, k.elf_len)))
        return fail(rc, "%s", build_elf.why);
    if (build_elf.note_cut)
        pr_warn("guest: the kernel's note at file offset %#lx runs past the end of the file: skipped, as Xen does\n",
                build_elf.note_cut);
    if (build_elf.bsd.skipped[0])
        pr_warn("guest: BSD_SYMTAB asked, but %s: no symbol table loaded, as Xen does\n", build_elf.bsd.skipped);
    else if (build_elf.bsd.start)
        pr_info("guest: BSD_SYMTAB: symbols at %#lx-%#lx\n", build_elf.bsd.start + build_elf.virt_offset,
                build_elf.bsd.end + build_elf.virt_offset);
    /* a 32-bit PAE kernel: ring 1, int $0x82, the compat layouts (compat/) */
    pv_dom.compat = build_lay.p2m32 = build_elf.compat;
    if (build_elf.compat && build_elf.pae_extended_cr3)
        pv_dom.vm_assist |= 1ull << VMASST_TYPE_pae_extended_cr3;     /* as Xen's builder */
    pv_dom.features = (1u << XENFEAT_mmu_pt_update_preserve_ad) | (1u << XENFEAT_highmem_assist) |
                      (1u << XENFEAT_gnttab_map_avail_bits);
    /* What a kernel may require: writable page tables are ptwr.c (Xen never lists that one in
     * XENVER_get_features for PV, but its builder accepts the requirement, and so do we). */
    const uint32_t can = pv_dom.features | (1u << XENFEAT_writable_page_tables) | (1u << XENFEAT_pae_pgdir_above_4gb);
    if (build_elf.feat_required & ~can) {
        uint32_t miss = build_elf.feat_required & ~can;
        return fail(-XEN_EOPNOTSUPP, "the kernel requires Xen feature %u (see features.h), not offered yet",
                    __builtin_ctz(miss));
    }
    if ((rc = build_m2p()))
        return rc;
    if (pv_dom.compat && (rc = compat_m2p_init()))
        return fail(rc, "no memory in 2 MiB-aligned runs for the 32-bit guest's m2p");
    if ((rc = special_pages()))
        return rc;
    if (pv_mmu_init(pv_dom.max_mfn))
        return fail(-XEN_ENOMEM, "no shim memory for the page-type words");
    pv_mm.compat = segdesc_compat = pv_dom.compat;     /* PAE tables, descriptors: the 32-bit rules */
    if (pv_dom.compat)
        idt_compat_gate();
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
    ev_2l_compat(pv_dom.compat);
    pv_store_init();

    uint64_t nr_pages = guest_pool.total_frames + 2;    /* + the xenstore and console pages */
    if ((rc = plan(bi, nr_pages)) || (rc = alloc_p2m(nr_pages, bi)) || (rc = back_pfns(build_lay.boot_end_pfn)))
        return rc;
    build_load_segments();
    if (build_elf.hypercall_page) {
        uint8_t *page = pfn_va((build_elf.hypercall_page - build_lay.virt_base) >> PAGE_SHIFT);
        if (pv_dom.compat)
            compat_fill_hypercall_page(page);
        else
            build_fill_hypercall_page(page);
        pv_dom.hypercall_page = true;
    }
    if (pv_dom.compat)
        compat_build_page_tables();
    else
        build_page_tables();
    pv_dom.pt_pfn = build_lay.pt_pfn;
    pv_dom.nr_pt = build_lay.nr_pt;

    /* the image is loaded: its frames (module 0, any decompression buffer) become guest memory */
    pv_image_close(&k);
    if ((rc = back_pfns(nr_pages)))
        return rc;
    ASSERT(guest_pool.free_frames == 0);
    pv_dom.nr_pages = pv_dom.max_pages = nr_pages;
    for (uint64_t pfn = 0; pfn < nr_pages; pfn++)
        if (p2m_get(pfn) < pv_dom.max_mfn)     /* (L0's store ring may lie beyond the m2p) */
            pv_m2p_set(p2m_get(pfn), pfn);
    if (pv_dom.compat)
        compat_fill_start_info(bi);
    else
        build_fill_start_info(bi);
    pv_time_update();
    pv_wallclock_init();
    /* the start-of-day top table (a 32-bit guest's L3) is pinned and in CR3, as Xen's builder
     * leaves it (Linux unpins it) */
    uint64_t top = pv_dom.compat ? pv_current()->compat_l3 : pv_current()->cr3 >> PAGE_SHIFT;
    unsigned level = pv_dom.compat ? PGT_L3 : PGT_L4;
    if ((rc = pt_pin(top, level)) || (rc = pt_get_type(top, level)))
        return fail(rc, "the bootstrap page tables do not validate (error %d)", rc);
    if (!pv_dom.compat)
        pv_l4_ro_m2p(top, true);        /* a kernel base: the m2p shows (validation left it blank) */

    pr_info("guest: %s kernel (notes from %s), %lu MiB, entry %#lx%s\n", build_elf.guest_os[0] ? build_elf.guest_os : "a",
            build_elf.notes_from, nr_pages >> 8, build_elf.virt_entry, pv_dom.hypercall_page ? ", hypercall page" : "");
    uint64_t ram = 0;
    for (unsigned i = 0; i < bi->nr_mem; i++)
        if (bi->mem[i].type == E820_RAM)
            ram += bi->mem[i].end - bi->mem[i].start;
    pr_info("guest: memory %lu KiB of %lu KiB RAM; the shim keeps %lu KiB (pool %lu KiB incl. m2p %lu KiB, %lu KiB free; image %lu KiB)\n",
            nr_pages * 4, ram >> 10, (ram >> 10) - nr_pages * 4, shim_pool.total_frames * 4,
            ALIGN_UP(pv_dom.max_mfn * 8, PAGE_SIZE) >> 10, shim_pool.free_frames * 4,
            (uint64_t)(__image_end - __image_start) >> 10);
    pr_info("guest: kernel %#lx-%#lx, p2m %#lx%s, start_info %#lx, %lu page tables at %#lx, bootstrap end %#lx\n",
            build_elf.virt_kstart, build_elf.virt_kend, build_elf.init_p2m ? build_elf.init_p2m : va_of(build_lay.p2m_pfn),
            build_elf.init_p2m ? " (INIT_P2M)" : "", va_of(build_lay.si_pfn), build_lay.nr_pt, va_of(build_lay.pt_pfn), build_lay.v_end);
    return 0;
}

uint64_t pv_entry_rip(void)
{
    return build_elf.virt_entry;
}

uint64_t pv_entry_rsi(void)
{
    return va_of(build_lay.si_pfn);
}

uint64_t pv_entry_rsp(void)
{
    return va_of(build_lay.stack_pfn + 1);
}
