/*
 * bsdsyms.c: XEN_ELFNOTE_BSD_SYMTAB ("yes"): the kernel's symbol table and its string table loaded
 * after the image, so that a kernel (NetBSD, FreeBSD, Mini-OS) has its symbols at boot, laid out
 * as Xen 4.17's libelf does (elf_parse_bsdsyms, elf_load_bsdsyms):
 *
 *   start = the loaded image's exact end, rounded up to the class's word (8 or 4 bytes)
 *   start + 0    uint32: bytes from the ELF header to the end of the string table
 *   start + 4    an ELF header of the kernel's class: the kernel's own, no program headers,
 *                e_shoff 64, e_shnum 3, e_shstrndx 0 (an ELF32 one is followed by 12 zero bytes)
 *   start + 68   3 section headers of the class: a null one, the symtab's (sh_link 2), the strtab's
 *                (sh_offset of both relative to the ELF header, the rest as in the file)
 *   start + 260  (word-rounded) the symbol table, then (word-rounded) the string table
 *
 * 260 is what Xen reserves for either class (its header is a union of both). The blob counts as
 * part of the image: start-of-day memory (initrd, p2m, start_info, ...) follows it. Every byte
 * not written from the file is zero (XSA-194: libelf once leaked its stack into this padding).
 *
 * Malformed input, against libelf: no symtab, a symtab whose sh_link names no section or not a
 * SHT_STRTAB: no blob (libelf gives none), with a warning. Refused: a section header table
 * outside the file or of the wrong entry size (libelf refuses the first, "shdr overflow", and
 * strides garbage on the second), and a symtab or strtab outside the file (Xen's own builder
 * would copy whatever lies past the image).
 *
 * One divergence: for ELF32, libelf's elf_parse_bsdsyms counts 192 header bytes (4 + 68 + three
 * ELF32 section headers: the size word twice) but elf_load_bsdsyms writes the tables from
 * start + 260, up to 68 bytes past the end it reserved. We reserve what we write: the next page
 * starts one page later than under Xen when those bytes cross a page boundary (where Xen's p2m
 * then overwrites the string table's tail).
 */
#include "pv/loader/elf_format.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define PAGE          4096ull
#define HDR_AREA      260u      /* the size word, an ELF64 header, three ELF64 section headers */
#define SHDRS_AT      64u       /* e_shoff: the section headers' offset from the ELF header */
#define SYMTAB_INDEX  1u
#define STRTAB_INDEX  2u

static int skip(struct pv_elf *e, const char *fmt, ...) __printf(2, 3);
static int skip(struct pv_elf *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(e->bsd.skipped, sizeof(e->bsd.skipped), fmt, ap);
    va_end(ap);
    return 0;
}

int pv_bsdsyms_plan(struct pv_elf *e, const struct elf64_ehdr *h)
{
    size_t shsize = e->compat ? sizeof(struct elf32_shdr) : sizeof(struct elf64_shdr);
    uint64_t word = e->compat ? 4 : 8, kend = 0;
    struct elf64_shdr sym, str;
    unsigned i;

    if (!h->shoff || !h->shnum)
        return skip(e, "the kernel has no section headers");
    if (h->shentsize != shsize || !pv_elf_in_image(e, h->shoff, (uint64_t)h->shnum * shsize))
        return fail(e, -XEN_EINVAL, "BSD_SYMTAB: the section header table is malformed or outside the file");
    /* as libelf: the first SHT_SYMTAB after the null section decides */
    for (i = 1; i < h->shnum; i++) {
        pv_elf_read_shdr(e, h, i, &sym);
        if (sym.type == SHT_SYMTAB)
            break;
    }
    if (i == h->shnum)
        return skip(e, "the kernel has no symbol table");
    if (!sym.link || sym.link >= h->shnum)
        return skip(e, "the symbol table (section %u) links to no section (%u)", i, sym.link);
    pv_elf_read_shdr(e, h, sym.link, &str);
    if (str.type != SHT_STRTAB)
        return skip(e, "the symbol table's link, section %u, is not a string table", sym.link);
    if (!pv_elf_in_image(e, sym.offset, sym.size) || !pv_elf_in_image(e, str.offset, str.size))
        return fail(e, -XEN_EINVAL,
                    "BSD_SYMTAB: the symbol table (section %u) or its strings (section %u) lie outside the file", i,
                    sym.link);

    for (unsigned k = 0; k < e->nr_segs; k++)
        kend = MAX(kend, e->seg[k].paddr + e->seg[k].memsz);
    /* all below 2^46 + twice the file's size: no overflow */
    struct pv_bsdsyms *b = &e->bsd;
    b->start = ALIGN_UP(kend, word);
    b->sym_at = ALIGN_UP((uint64_t)HDR_AREA, word);
    b->str_at = ALIGN_UP(b->sym_at + sym.size, word);
    b->end = b->start + ALIGN_UP(b->str_at + str.size, word);
    b->sym_shdr = h->shoff + (uint64_t)i * shsize;
    b->str_shdr = h->shoff + (uint64_t)sym.link * shsize;
    b->sym_off = sym.offset;
    b->sym_size = sym.size;
    b->str_off = str.offset;
    b->str_size = str.size;
    if (b->str_at + str.size - 4 > UINT32_MAX)
        return fail(e, -XEN_EINVAL, "BSD_SYMTAB: the symbol and string tables exceed 4 GiB");
    e->pend = MAX(e->pend, ALIGN_UP(b->end, PAGE));
    if (e->pend - e->pstart > PV_ELF_MAX_SPAN)
        return fail(e, -XEN_EINVAL, "the image with its symbol table spans %lu MiB (limit %llu MiB)",
                    (e->pend - e->pstart) >> 20, PV_ELF_MAX_SPAN >> 20);
    return 0;
}

/* The ELF header and section headers of the blob, in the kernel's class, at hdr (its size word
 * excluded): copies of the kernel's own, changed as libelf changes them. */
static void fill_headers(const struct pv_elf *e, uint8_t *hdr)
{
    const struct pv_bsdsyms *b = &e->bsd;
    uint64_t sym_rel = b->sym_at - 4, str_rel = b->str_at - 4;  /* from the ELF header */

    if (e->compat) {
        struct elf32_ehdr h;
        struct elf32_shdr sym, str;
        memcpy(&h, e->img, sizeof(h));
        memcpy(&sym, e->img + b->sym_shdr, sizeof(sym));
        memcpy(&str, e->img + b->str_shdr, sizeof(str));
        h.version = EV_CURRENT;
        h.phoff = 0;
        h.phentsize = h.phnum = 0;
        h.shoff = SHDRS_AT;
        h.ehsize = sizeof(h);
        h.shentsize = sizeof(sym);
        h.shnum = 3;
        h.shstrndx = 0;
        sym.offset = (uint32_t)sym_rel;
        sym.link = STRTAB_INDEX;
        str.offset = (uint32_t)str_rel;
        memcpy(hdr, &h, sizeof(h));
        memcpy(hdr + SHDRS_AT + SYMTAB_INDEX * sizeof(sym), &sym, sizeof(sym));
        memcpy(hdr + SHDRS_AT + STRTAB_INDEX * sizeof(str), &str, sizeof(str));
        return;
    }
    struct elf64_ehdr h;
    struct elf64_shdr sym, str;
    memcpy(&h, e->img, sizeof(h));
    memcpy(&sym, e->img + b->sym_shdr, sizeof(sym));
    memcpy(&str, e->img + b->str_shdr, sizeof(str));
    h.version = EV_CURRENT;
    h.phoff = 0;
    h.phentsize = h.phnum = 0;
    h.shoff = SHDRS_AT;
    h.ehsize = sizeof(h);
    h.shentsize = sizeof(sym);
    h.shnum = 3;
    h.shstrndx = 0;
    sym.offset = sym_rel;
    sym.link = STRTAB_INDEX;
    str.offset = str_rel;
    memcpy(hdr, &h, sizeof(h));
    memcpy(hdr + SHDRS_AT + SYMTAB_INDEX * sizeof(sym), &sym, sizeof(sym));
    memcpy(hdr + SHDRS_AT + STRTAB_INDEX * sizeof(str), &str, sizeof(str));
}

void pv_bsdsyms_load(const struct pv_elf *e, pv_put_fn *put, void *ctx)
{
    const struct pv_bsdsyms *b = &e->bsd;
    uint8_t hdr[ALIGN_UP(HDR_AREA, 8)];

    if (!b->start)
        return;
    _Static_assert(sizeof(struct elf64_ehdr) == SHDRS_AT && 4 + SHDRS_AT + 3 * sizeof(struct elf64_shdr) == HDR_AREA,
                   "the blob's header layout");
    memset(hdr, 0, sizeof(hdr));
    uint32_t size = (uint32_t)(b->str_at + b->str_size - 4);
    memcpy(hdr, &size, sizeof(size));
    fill_headers(e, hdr + 4);
    uint64_t sym_end = b->sym_at + b->sym_size, str_end = b->str_at + b->str_size;
    put(ctx, b->start, hdr, b->sym_at);
    put(ctx, b->start + b->sym_at, e->img + b->sym_off, b->sym_size);
    put(ctx, b->start + sym_end, NULL, b->str_at - sym_end);
    put(ctx, b->start + b->str_at, e->img + b->str_off, b->str_size);
    put(ctx, b->start + str_end, NULL, b->end - b->start - str_end);
}
