/*
 * build.c: the 32-bit parts of the domain builder (pv/loader/build.c decides, these fill in), as
 * Xen's dom0_construct_pv builds a compat domain: a p2m of 4-byte entries, PAE bootstrap tables
 * (one L3, all four of its slots given an L2, the L1s; kernel pages mapped without U, as ring 1
 * is supervisor), the compat start_info, a hypercall page of int $0x82 stubs, and the compat m2p
 * (4-byte entries) mapped read-only by 2 MiB pages in the hole of every slot-3 L2.
 */
#include "compat/compat.h"
#include "compat/layout.h"
#include "pv/loader/build.h"
#include "shim/boot.h"
#include "shim/debug.h"
#include "shim/frame.h"
#include "shim/mm.h"
#include "shim/xerrno.h"

#define SZ_2M           (2ull << 20)
#define L1_PROT         (PTE_P | PTE_W | PTE_A)                 /* COMPAT_L1_PROT: no U */
#define UPPER_PROT      (PTE_P | PTE_W | PTE_A | PTE_U | PTE_D) /* its L2_PROT and L3_PROT */
#define M2P_SLOTS       ((COMPAT_M2P_END - COMPAT_HV_START) >> 21)

static uint64_t m2p32_pa, m2p32_chunks;

/* The compat m2p needs 2 MiB-aligned runs: taken from the guest's pool before the guest gets
 * any frame, and handed to the shim's (the guest may never map them writable). */
int compat_m2p_init(void)
{
    uint64_t chunks = MIN(ALIGN_UP(pv_dom.max_mfn * 4, SZ_2M) / SZ_2M, (uint64_t)M2P_SLOTS);
    uint64_t pages = chunks * (SZ_2M >> PAGE_SHIFT);
    int64_t first = frame_alloc(&guest_pool, pages, 9, 0, FRAME_HIGHEST);

    if (first < 0)
        return ERR(-XEN_ENOMEM, "no 2 MiB-aligned room for the compat m2p");
    uint64_t f = (uint64_t)first;
    if (frame_free(&guest_pool, f, pages) || frame_pool_unback(&guest_pool, f, f + pages) ||
        frame_pool_add(&shim_pool, f, f + pages) || frame_pool_carve(&shim_pool, f, f + pages))
        return ERR(-XEN_ENOMEM, "the compat m2p's frames cannot move to the shim");
    m2p32_pa = f << PAGE_SHIFT;
    m2p32_chunks = chunks;
    pv_dom.m2p32 = phys_to_virt(m2p32_pa);
    memset(pv_dom.m2p32, 0xff, pages << PAGE_SHIFT);
    return 0;
}

void compat_l2_xen_slots(uint64_t *l2)
{
    for (unsigned i = COMPAT_L2_XEN_FIRST; i < 512; i++) {
        uint64_t k = i - COMPAT_L2_XEN_FIRST;
        l2[i] = k < m2p32_chunks ? (m2p32_pa + k * SZ_2M) | PTE_P | PTE_A | PTE_PS : 0;
    }
}

/* Xen's count: the L3, four L2s, an L1 per 2 MiB of the bootstrap region. */
uint64_t compat_tables_for(uint64_t v_start, uint64_t v_end)
{
    return 1 + 4 + ((ALIGN_UP(v_end, SZ_2M) - ALIGN_DOWN(v_start, SZ_2M)) >> 21);
}

static uint64_t *table_at(uint64_t *e, uint64_t *next, uint64_t prot)
{
    if (!(*e & PTE_P)) {
        ASSERT(*next < build_lay.pt_pfn + build_lay.nr_pt);
        *e = (p2m_get((*next)++) << PAGE_SHIFT) | prot;
    }
    return frame_va((*e & PTE_ADDR) >> PAGE_SHIFT);
}

void compat_build_page_tables(void)
{
    uint64_t next = build_lay.pt_pfn + 1, *l3 = pfn_va(build_lay.pt_pfn);

    for (uint64_t pfn = 0; pfn < build_lay.boot_end_pfn; pfn++) {
        uint64_t va = va_of(pfn);
        uint64_t *l2 = table_at(&l3[(va >> 30) & 3], &next, UPPER_PROT);
        uint64_t *l1 = table_at(&l2[(va >> 21) & 511], &next, UPPER_PROT);
        bool is_pt = pfn >= build_lay.pt_pfn && pfn < build_lay.pt_pfn + build_lay.nr_pt;
        l1[(va >> 12) & 511] = (p2m_get(pfn) << PAGE_SHIFT) | (is_pt ? L1_PROT & ~PTE_W : L1_PROT);
    }
    for (unsigned i = 0; i < 4; i++)
        table_at(&l3[i], &next, UPPER_PROT);
    compat_l2_xen_slots(frame_va((l3[3] & PTE_ADDR) >> PAGE_SHIFT));
    compat_set_l3(pv_current(), p2m_get(build_lay.pt_pfn));
}

/* 32-byte stubs: mov $nr, %eax; int $0x82; ret. The iret stub pushes eax first (the compat
 * iret frame's top) and never returns. */
void compat_fill_hypercall_page(uint8_t *p)
{
    memset(p, 0xcc, PAGE_SIZE);
    for (uint32_t nr = 0; nr < PAGE_SIZE / 32; nr++) {
        uint8_t *s = p + nr * 32;
        if (nr == __HYPERVISOR_iret)
            *s++ = 0x50;
        *s++ = 0xb8;
        memcpy(s, &nr, 4);
        s += 4;
        *s++ = 0xcd;
        *s++ = 0x82;
        if (nr != __HYPERVISOR_iret)
            *s = 0xc3;
    }
}

void compat_fill_start_info(const struct boot_info *bi)
{
    struct start_info_x86_32 *si = pfn_va(build_lay.si_pfn);

    snprintf_(si->magic, sizeof(si->magic), "xen-3.0-x86_32p");
    si->nr_pages = (uint32_t)pv_dom.nr_pages;
    si->shared_info = (uint32_t)(pv_dom.shared_mfn << PAGE_SHIFT);
    si->store_mfn = (uint32_t)pv_dom.store_mfn;
    si->store_evtchn = pv_dom.store_port;
    si->console.domU.mfn = (uint32_t)pv_dom.cons_mfn;
    si->console.domU.evtchn = pv_dom.console_port;
    si->pt_base = (uint32_t)va_of(build_lay.pt_pfn);
    si->nr_pt_frames = (uint32_t)build_lay.nr_pt;
    si->mfn_list = (uint32_t)va_of(build_lay.p2m_pfn);
    if (bi->nr_mods > 1) {
        si->mod_len = (uint32_t)(bi->mods[1].end - bi->mods[1].start);
        if (build_elf.mod_start_pfn) {
            si->flags |= SIF_MOD_START_PFN;
            si->mod_start = (uint32_t)build_lay.mod_pfn;
        } else {
            si->mod_start = (uint32_t)(va_of(build_lay.mod_pfn) + build_lay.mod_offset);
        }
    }
    str_copy((char *)si->cmd_line, bi->mods[0].cmdline, sizeof(si->cmd_line));
}
