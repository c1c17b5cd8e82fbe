/* build.h: what build.c and start.c share while the domain is built (not seen outside pv/loader/). */
#ifndef PV_LOADER_BUILD_H
#define PV_LOADER_BUILD_H

#include "pv/domain/domain.h"
#include "pv/loader/elf.h"
#include "shim/paging.h"

struct boot_info;

/* Where start-of-day memory puts each part, in guest pfns from virt_base (build.c's plan()). */
struct build_layout {
    uint64_t virt_base;
    uint64_t mod_pfn, mod_pages, mod_offset;    /* initrd, if any */
    uint64_t p2m_pfn, p2m_pages;
    uint64_t si_pfn, store_pfn, cons_pfn, pt_pfn, nr_pt, stack_pfn;
    uint64_t boot_end_pfn;                      /* the mapped bootstrap region is [0, boot_end_pfn) */
    uint64_t v_end;
    bool p2m32;                                 /* a 32-bit guest's p2m: 4-byte entries */
};

extern struct pv_elf build_elf;         /* the kernel image being built */
extern struct build_layout build_lay;

static inline uint64_t va_of(uint64_t pfn)
{
    return build_lay.virt_base + (pfn << PAGE_SHIFT);
}

static inline void *frame_va(uint64_t mfn)
{
    return phys_to_virt(mfn << PAGE_SHIFT);
}

/* The guest's p2m (pv_dom.p2m, in the guest's own frames), in its width. */
static inline uint64_t p2m_get(uint64_t pfn)
{
    if (build_lay.p2m32) {
        uint32_t e = ((const uint32_t *)pv_dom.p2m)[pfn];
        return e == ~0u ? M2P_INVALID : e;
    }
    return pv_dom.p2m[pfn];
}

static inline void p2m_set(uint64_t pfn, uint64_t mfn)
{
    if (build_lay.p2m32)
        ((uint32_t *)pv_dom.p2m)[pfn] = (uint32_t)mfn;
    else
        pv_dom.p2m[pfn] = mfn;
}

static inline void *pfn_va(uint64_t pfn)
{
    return frame_va(p2m_get(pfn));
}

/* start.c: the guest's first pages, once its frames are backed */
void build_load_segments(void);                 /* the ELF's segments at their pfns, and its BSD_SYMTAB blob */
void build_fill_hypercall_page(uint8_t *p);
void build_page_tables(void);                   /* the bootstrap tables; vCPU 0's cr3 */
void build_fill_start_info(const struct boot_info *bi);

#endif
