/* start.c: the guest kernel's first pages: its loaded segments, the hypercall page, the bootstrap
 * page tables (mapping start-of-day memory read-only where they sit) and start_info. */
#include "pv/domain/domain.h"
#include "pv/loader/build.h"
#include "shim/boot.h"
#include "shim/debug.h"
#include "shim/lib.h"
#include "shim/paging.h"
#include "xen-abi.h"

#define PTE_GUEST (PTE_P | PTE_W | PTE_U | PTE_A | PTE_D)
#define PTE_TABLE (PTE_P | PTE_W | PTE_U | PTE_A)

/* n bytes of src (NULL: zeros) at the kernel's p_paddr pa, page by page through the p2m. */
static void put_guest(void *ctx, uint64_t paddr, const void *src, uint64_t n)
{
    uint64_t pa = paddr - build_elf.paddr_offset, done = 0;     /* guest pseudo-physical */

    (void)ctx;
    while (done < n) {
        uint64_t off = (pa + done) & (PAGE_SIZE - 1);
        uint64_t k = MIN(PAGE_SIZE - off, n - done);
        char *dst = (char *)pfn_va((pa + done) >> PAGE_SHIFT) + off;
        if (src)
            memcpy(dst, (const char *)src + done, k);
        else
            memset(dst, 0, k);
        done += k;
    }
}

void build_load_segments(void)
{
    for (unsigned i = 0; i < build_elf.nr_segs; i++) {
        const struct pv_segment *s = &build_elf.seg[i];
        put_guest(NULL, s->paddr, build_elf.img + s->offset, s->filesz);
    }
    pv_bsdsyms_load(&build_elf, put_guest, NULL);
}

/* 32-byte stubs: push rcx; push r11; mov $nr, eax; syscall; pop r11; pop rcx; ret. The iret
 * stub keeps the guest's frame (push rax too) and never returns. */
void build_fill_hypercall_page(uint8_t *p)
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
            ASSERT(*next < build_lay.pt_pfn + build_lay.nr_pt);
            *e = (p2m_get((*next)++) << PAGE_SHIFT) | PTE_TABLE;
        }
        t = frame_va((*e & PTE_ADDR) >> PAGE_SHIFT);
    }
    bool is_pt = pfn >= build_lay.pt_pfn && pfn < build_lay.pt_pfn + build_lay.nr_pt;
    t[(va >> 12) & 511] = (p2m_get(pfn) << PAGE_SHIFT) | (is_pt ? PTE_GUEST & ~(PTE_W | PTE_D) : PTE_GUEST);
}

void build_page_tables(void)
{
    uint64_t next = build_lay.pt_pfn + 1, *l4 = pfn_va(build_lay.pt_pfn);
    const uint64_t *idle = phys_to_virt(idle_root_pa);

    for (uint64_t pfn = 0; pfn < build_lay.boot_end_pfn; pfn++)
        map_boot(l4, va_of(pfn), pfn, &next);
    for (uint64_t i = 0; build_elf.init_p2m && i < build_lay.p2m_pages; i++)
        map_boot(l4, build_elf.init_p2m + (i << PAGE_SHIFT), build_lay.p2m_pfn + i, &next);
    for (unsigned s = PV_SLOT_FIRST; s <= PV_SLOT_LAST; s++)
        l4[s] = idle[s];
    pv_current()->cr3 = p2m_get(build_lay.pt_pfn) << PAGE_SHIFT;
}

void build_fill_start_info(const struct boot_info *bi)
{
    start_info_t *si = pfn_va(build_lay.si_pfn);

    snprintf_(si->magic, sizeof(si->magic), "xen-3.0-x86_64");
    si->nr_pages = pv_dom.nr_pages;
    si->shared_info = pv_dom.shared_mfn << PAGE_SHIFT;
    si->store_mfn = pv_dom.store_mfn;
    si->store_evtchn = pv_dom.store_port;
    si->console.domU.mfn = pv_dom.cons_mfn;
    si->console.domU.evtchn = pv_dom.console_port;
    si->pt_base = va_of(build_lay.pt_pfn);
    si->nr_pt_frames = build_lay.nr_pt;
    si->mfn_list = build_elf.init_p2m ? build_elf.init_p2m : va_of(build_lay.p2m_pfn);
    if (build_elf.init_p2m) {
        si->first_p2m_pfn = build_lay.p2m_pfn;
        si->nr_p2m_frames = build_lay.p2m_pages;
    }
    if (bi->nr_mods > 1) {
        si->mod_len = bi->mods[1].end - bi->mods[1].start;
        if (build_elf.mod_start_pfn) {
            si->flags |= SIF_MOD_START_PFN;
            si->mod_start = build_lay.mod_pfn;
        } else {
            si->mod_start = va_of(build_lay.mod_pfn) + build_lay.mod_offset;
        }
    }
    str_copy((char *)si->cmd_line, bi->mods[0].cmdline, sizeof(si->cmd_line));
}
