/* elf.h: the PV kernel's ELF image and Xen notes, parsed and checked (hosted and freestanding). */
#ifndef PV_ELF_H
#define PV_ELF_H

#include "shim/lib.h"

#define PV_ELF_MAX_SEGMENTS 16
#define PV_ELF_MAX_SPAN     (1ull << 30)        /* loaded span of a kernel: at most 1 GiB */

struct pv_segment {
    uint64_t paddr, filesz, memsz, offset;
};

/* XEN_ELFNOTE_BSD_SYMTAB's blob (bsdsyms.c): the symbol and string tables after the kernel, behind
 * an ELF header of their own. Offsets within the blob are from its start (the size word). */
struct pv_bsdsyms {
    uint64_t start, end;                /* p_paddr of the blob and of its word-rounded end; 0: none */
    uint64_t sym_at, str_at;            /* where the two tables go in the blob */
    uint64_t sym_shdr, str_shdr;        /* file offsets of their section headers */
    uint64_t sym_off, sym_size, str_off, str_size;      /* the tables in the file */
    char skipped[96];                   /* why a kernel that asked got no blob ("": it did, or did not ask) */
};

/* What the builder needs from a kernel image. Addresses are the guest's virtual addresses. */
struct pv_elf {
    const uint8_t *img;
    size_t len;
    unsigned nr_segs;
    struct pv_segment seg[PV_ELF_MAX_SEGMENTS];
    uint64_t pstart, pend;              /* loaded physical span (p_paddr), page-rounded out; with
                                         * a BSD_SYMTAB blob, to the blob's end */
    const char *notes_from;             /* "PT_NOTE" or "section headers" */
    uint64_t virt_base, paddr_offset, virt_offset;
    uint64_t virt_kstart, virt_kend, virt_entry;
    uint64_t hypercall_page;            /* 0: none asked for */
    uint64_t init_p2m;                  /* 0: none asked for */
    bool compat;                        /* an ELF32 i386 kernel: a 32-bit PV guest */
    bool pae, pae_extended_cr3;         /* its PAE_MODE note (it runs on PAE tables either way) */
    uint64_t hv_start_low;              /* 32-bit: where its addresses end (the hole: 0xF5800000) */
    uint64_t note_cut;                  /* a note cut off by the end of the file, skipped: its offset */
    bool bsd_symtab;                    /* its BSD_SYMTAB note says "yes" */
    struct pv_bsdsyms bsd;
    bool mod_start_pfn;
    uint32_t feat_supported, feat_required;     /* XENFEAT_* bits of submap 0 */
    char guest_os[16], loader[16], xen_version[16];
    char why[112];                      /* the one-line reason when parsing fails */
};

/* Parse and check an image in memory. 0, or -XEN_EINVAL/-XEN_EOPNOTSUPP with e->why set. A
 * 32-bit kernel parses (e->compat); the builder decides whether it can run it. */
int pv_elf_parse(struct pv_elf *e, const void *img, size_t len);
/* The XENFEAT_ bit for a FEATURES note name, or -1 if unknown. */
int pv_feature_bit(const char *name, size_t len);
/* Write e->bsd's blob (if any) through put: n bytes of src at p_paddr pa (src NULL: zeros), every
 * byte of [bsd.start, bsd.end) once, nothing outside it. */
typedef void pv_put_fn(void *ctx, uint64_t pa, const void *src, uint64_t n);
void pv_bsdsyms_load(const struct pv_elf *e, pv_put_fn *put, void *ctx);

#endif
