/* test_bsdsyms.c: XEN_ELFNOTE_BSD_SYMTAB (pv/loader/bsdsyms.c) on synthetic ELF64 and ELF32
 * kernels: the blob's exact layout and zero padding as Xen's libelf writes it, where the image
 * then ends, and every malformed section table: skipped as libelf skips it, or refused. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/elf.h"
#include "harness.h"
#include "xen-abi.h"
#include "shim/xerrno.h"

#define IMG_SIZE  0x3000
#define NOTES_OFF 0x200
#define DATA_OFF  0x1000
#define SYM_OFF   0x2000
#define STR_OFF   0x2100
#define SHDR_OFF  0x2400
#define BASE      0x100000u
#define MEMSZ     0x1234u               /* an image end that is not word-aligned for ELF64 */
#define NSHDR     5                     /* null, .strtab, a PROGBITS, .symtab (link 1), a decoy STRTAB */

static const char strs[] = "\0alpha\0beta\0gamma_long_name";   /* 28 bytes: word padding after it */

struct spec {
    bool elf32;
    const char *bsd;                    /* BSD_SYMTAB's string; NULL: no note */
    uint32_t base;                      /* the segment's paddr; 0: BASE */
    unsigned shnum, shentsize;          /* 0: the usual */
    uint64_t shoff;                     /* 0: SHDR_OFF */
    bool no_shdrs, zero_shnum, no_symtab;
    uint32_t sym_link;                  /* 0: 1 (~0u: 0) */
    uint64_t sym_off, sym_size, str_size;       /* 0: the usual */
};

static size_t note(uint8_t *p, uint32_t type, const void *desc, uint32_t n)
{
    Elf64_Nhdr h = { 4, n, type };
    memcpy(p, &h, sizeof(h));
    memcpy(p + 12, "Xen", 4);
    memcpy(p + 16, desc, n);
    return 16 + ((n + 3) & ~3u);
}

/* The notes (4-byte numbers for ELF32, 8 for ELF64) at NOTES_OFF; their length. */
static size_t notes(uint8_t *b, const struct spec *s, uint64_t entry)
{
    size_t n = NOTES_OFF, w = s->elf32 ? 4 : 8;
    uint64_t zero = 0;

    n += note(b + n, XEN_ELFNOTE_GUEST_OS, "test", 5);
    n += note(b + n, XEN_ELFNOTE_XEN_VERSION, "xen-3.0", 8);
    n += note(b + n, XEN_ELFNOTE_LOADER, "generic", 8);
    n += note(b + n, XEN_ELFNOTE_VIRT_BASE, &zero, w);
    n += note(b + n, XEN_ELFNOTE_PADDR_OFFSET, &zero, w);
    n += note(b + n, XEN_ELFNOTE_ENTRY, &entry, w);
    if (s->bsd)
        n += note(b + n, XEN_ELFNOTE_BSD_SYMTAB, s->bsd, (uint32_t)strlen(s->bsd) + 1);
    return n - NOTES_OFF;
}

/* The section headers, in the class's form. */
static void shdrs(uint8_t *b, const struct spec *s, size_t symsz)
{
    struct { uint32_t type; uint64_t off, size, entsize; uint32_t link, info; } t[NSHDR] = {
        { SHT_NULL, 0, 0, 0, 0, 0 },
        { SHT_STRTAB, STR_OFF, s->str_size ? s->str_size : sizeof(strs), 0, 0, 0 },
        { SHT_PROGBITS, DATA_OFF, 0x800, 0, 0, 0 },
        { s->no_symtab ? SHT_PROGBITS : SHT_SYMTAB, s->sym_off ? s->sym_off : SYM_OFF,
          s->sym_size ? s->sym_size : 3 * symsz, symsz, s->sym_link == ~0u ? 0 : s->sym_link ? s->sym_link : 1, 1 },
        { SHT_STRTAB, STR_OFF, 4, 0, 0, 0 },
    };
    for (unsigned i = 0; i < NSHDR; i++) {
        if (s->elf32) {
            Elf32_Shdr h = { .sh_name = i, .sh_type = t[i].type, .sh_offset = (uint32_t)t[i].off,
                             .sh_size = (uint32_t)t[i].size, .sh_link = t[i].link, .sh_info = t[i].info,
                             .sh_addralign = 4, .sh_entsize = (uint32_t)t[i].entsize };
            memcpy(b + SHDR_OFF + i * sizeof(h), &h, sizeof(h));
        } else {
            Elf64_Shdr h = { .sh_name = i, .sh_type = t[i].type, .sh_offset = t[i].off, .sh_size = t[i].size,
                             .sh_link = t[i].link, .sh_info = t[i].info, .sh_addralign = 8,
                             .sh_entsize = t[i].entsize };
            memcpy(b + SHDR_OFF + i * sizeof(h), &h, sizeof(h));
        }
    }
}

static size_t build(uint8_t *b, const struct spec *s)
{
    uint32_t base = s->base ? s->base : BASE, entry = base + 0x10;
    size_t nlen, symsz = s->elf32 ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);

    memset(b, 0, IMG_SIZE);
    nlen = notes(b, s, entry);
    if (s->elf32) {
        Elf32_Ehdr e = { .e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT, .e_entry = entry,
                         .e_phoff = sizeof(e), .e_flags = 0x5a, .e_ehsize = sizeof(e),
                         .e_phentsize = sizeof(Elf32_Phdr), .e_phnum = 2, .e_shstrndx = 4 };
        Elf32_Phdr ph[2] = { { .p_type = PT_LOAD, .p_offset = DATA_OFF, .p_vaddr = base, .p_paddr = base,
                               .p_filesz = 0x800, .p_memsz = MEMSZ },
                             { .p_type = PT_NOTE, .p_offset = NOTES_OFF, .p_filesz = (uint32_t)nlen } };
        Elf32_Sym sy[3] = { { 0 }, { .st_name = 1, .st_value = base + 0x10, .st_info = STT_FUNC },
                            { .st_name = 7, .st_value = base + 0x20, .st_info = STT_OBJECT } };
        memcpy(e.e_ident, ELFMAG, SELFMAG);
        e.e_ident[EI_CLASS] = ELFCLASS32;
        e.e_ident[EI_DATA] = ELFDATA2LSB;
        e.e_ident[EI_VERSION] = EV_CURRENT;
        if (!s->no_shdrs) {
            e.e_shoff = (uint32_t)(s->shoff ? s->shoff : SHDR_OFF);
            e.e_shentsize = (uint16_t)(s->shentsize ? s->shentsize : sizeof(Elf32_Shdr));
            e.e_shnum = (uint16_t)(s->zero_shnum ? 0 : s->shnum ? s->shnum : NSHDR);
        }
        memcpy(b, &e, sizeof(e));
        memcpy(b + sizeof(e), ph, sizeof(ph));
        memcpy(b + SYM_OFF, sy, sizeof(sy));
    } else {
        Elf64_Ehdr e = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_entry = entry,
                         .e_phoff = sizeof(e), .e_flags = 0x5a, .e_ehsize = sizeof(e),
                         .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2, .e_shstrndx = 4 };
        Elf64_Phdr ph[2] = { { .p_type = PT_LOAD, .p_offset = DATA_OFF, .p_vaddr = base, .p_paddr = base,
                               .p_filesz = 0x800, .p_memsz = MEMSZ },
                             { .p_type = PT_NOTE, .p_offset = NOTES_OFF, .p_filesz = nlen } };
        Elf64_Sym sy[3] = { { 0 }, { .st_name = 1, .st_info = STT_FUNC, .st_value = base + 0x10 },
                            { .st_name = 7, .st_info = STT_OBJECT, .st_value = base + 0x20 } };
        memcpy(e.e_ident, ELFMAG, SELFMAG);
        e.e_ident[EI_CLASS] = ELFCLASS64;
        e.e_ident[EI_DATA] = ELFDATA2LSB;
        e.e_ident[EI_VERSION] = EV_CURRENT;
        if (!s->no_shdrs) {
            e.e_shoff = s->shoff ? s->shoff : SHDR_OFF;
            e.e_shentsize = (uint16_t)(s->shentsize ? s->shentsize : sizeof(Elf64_Shdr));
            e.e_shnum = (uint16_t)(s->zero_shnum ? 0 : s->shnum ? s->shnum : NSHDR);
        }
        memcpy(b, &e, sizeof(e));
        memcpy(b + sizeof(e), ph, sizeof(ph));
        memcpy(b + SYM_OFF, sy, sizeof(sy));
    }
    memcpy(b + STR_OFF, strs, sizeof(strs));
    shdrs(b, s, symsz);
    return SHDR_OFF + NSHDR * (s->elf32 ? sizeof(Elf32_Shdr) : sizeof(Elf64_Shdr));     /* the file ends there */
}

static uint8_t img[IMG_SIZE];

static int parse(struct spec s, struct pv_elf *e)
{
    return pv_elf_parse(e, img, build(img, &s));
}

/* A guest's memory around the blob: every put must land in [start, end), each byte once. */
#define MEM 0x4000
struct mem {
    uint64_t base;                      /* p_paddr of mem[0] */
    uint8_t bytes[MEM], hits[MEM];
    unsigned bad;
};

static void put(void *ctx, uint64_t pa, const void *src, uint64_t n)
{
    struct mem *m = ctx;

    for (uint64_t i = 0; i < n; i++) {
        uint64_t at = pa + i - m->base;
        if (pa + i < m->base || at >= MEM) {
            m->bad++;
            continue;
        }
        m->bytes[at] = src ? ((const uint8_t *)src)[i] : 0;
        m->hits[at]++;
    }
}

/* Load the blob over memory filled with 0xAA: every byte of it written once, none outside. */
static void load(const struct pv_elf *e, struct mem *m)
{
    memset(m, 0, sizeof(*m));
    memset(m->bytes, 0xaa, MEM);
    m->base = e->bsd.start & ~0xfffull;
    pv_bsdsyms_load(e, put, m);
    unsigned wrong = 0;
    for (uint64_t i = 0; i < MEM; i++) {
        bool in = m->base + i >= e->bsd.start && m->base + i < e->bsd.end;
        wrong += m->hits[i] != (in ? 1 : 0);
    }
    CHECK_EQ(m->bad, 0);
    CHECK_EQ(wrong, 0);
}

static bool zero(const uint8_t *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i])
            return false;
    return true;
}

static void test_layout64(void)
{
    struct pv_elf e;
    struct mem m;

    CHECK_EQ(parse((struct spec){ .bsd = "yes" }, &e), 0);
    CHECK(!e.bsd.skipped[0]);
    CHECK_EQ(e.bsd.start, BASE + 0x1238);               /* 0x101234 rounded up to 8 */
    CHECK_EQ(e.bsd.sym_at, 264);
    CHECK_EQ(e.bsd.str_at, 264 + 72);
    CHECK_EQ(e.bsd.end, e.bsd.start + 264 + 72 + 32);   /* 28 bytes of strings, word-rounded */
    CHECK_EQ(e.virt_kend, 0x102000);
    load(&e, &m);
    const uint8_t *blob = m.bytes + (e.bsd.start - m.base), *eh = blob + 4;
    uint32_t size;
    Elf64_Ehdr h;
    Elf64_Shdr s[3];
    memcpy(&size, blob, 4);
    memcpy(&h, eh, sizeof(h));
    memcpy(s, eh + 64, sizeof(s));
    CHECK_EQ(size, 260 + 72 + 28);
    CHECK(!memcmp(h.e_ident, img, EI_NIDENT));
    CHECK(h.e_type == ET_EXEC && h.e_machine == EM_X86_64 && h.e_version == EV_CURRENT && h.e_flags == 0x5a);
    CHECK_EQ(h.e_entry, BASE + 0x10);
    CHECK(!h.e_phoff && !h.e_phnum && !h.e_phentsize);
    CHECK(h.e_shoff == 64 && h.e_shnum == 3 && h.e_shentsize == 64 && h.e_ehsize == 64 && h.e_shstrndx == 0);
    CHECK(zero(eh, 64, 128));                           /* the null section header */
    CHECK(s[1].sh_type == SHT_SYMTAB && s[1].sh_link == 2 && s[1].sh_info == 1 && s[1].sh_name == 3);
    CHECK(s[1].sh_offset == 260 && s[1].sh_size == 72 && s[1].sh_entsize == 24);
    CHECK(s[2].sh_type == SHT_STRTAB && s[2].sh_offset == 332 && s[2].sh_size == 28 && s[2].sh_name == 1);
    CHECK(zero(eh, 256, 260));                          /* the word padding before the symtab */
    CHECK(!memcmp(eh + 260, img + SYM_OFF, 72));
    CHECK(!memcmp(eh + 332, strs, 28));
    CHECK(zero(eh, 360, 364));                          /* after the strings, to the word */
}

static void test_layout32(void)
{
    struct pv_elf e;
    struct mem m;

    CHECK_EQ(parse((struct spec){ .elf32 = true, .bsd = "yes" }, &e), 0);
    CHECK(e.compat && !e.bsd.skipped[0]);
    CHECK_EQ(e.bsd.start, BASE + 0x1234);               /* already 4-aligned */
    CHECK_EQ(e.bsd.sym_at, 260);
    CHECK_EQ(e.bsd.str_at, 260 + 48);
    CHECK_EQ(e.bsd.end, e.bsd.start + 260 + 48 + 28);
    load(&e, &m);
    const uint8_t *blob = m.bytes + (e.bsd.start - m.base), *eh = blob + 4;
    uint32_t size;
    Elf32_Ehdr h;
    Elf32_Shdr s[3];
    memcpy(&size, blob, 4);
    memcpy(&h, eh, sizeof(h));
    memcpy(s, eh + 64, sizeof(s));
    CHECK_EQ(size, 256 + 48 + 28);
    CHECK(h.e_ident[EI_CLASS] == ELFCLASS32 && h.e_machine == EM_386 && h.e_flags == 0x5a);
    CHECK(!h.e_phoff && !h.e_phnum && !h.e_phentsize);
    CHECK(h.e_shoff == 64 && h.e_shnum == 3 && h.e_shentsize == 40 && h.e_ehsize == 52 && h.e_shstrndx == 0);
    CHECK(zero(eh, 52, 64));                            /* XSA-194: the ELF64-sized header's tail */
    CHECK(zero(eh, 64, 104));                           /* the null section header */
    CHECK(s[1].sh_type == SHT_SYMTAB && s[1].sh_link == 2 && s[1].sh_offset == 256 && s[1].sh_size == 48);
    CHECK(s[2].sh_type == SHT_STRTAB && s[2].sh_offset == 304 && s[2].sh_size == 28);
    CHECK(zero(eh, 184, 256));                          /* room for ELF64 section headers, unused */
    CHECK(!memcmp(eh + 256, img + SYM_OFF, 48));
    CHECK(!memcmp(eh + 304, strs, 28));
}

/* Kernels that get no blob, as libelf gives none: they load as if they had not asked. */
static void test_skipped(void)
{
    static const struct spec cases[] = {
        { .bsd = "no" },
        { .bsd = "yesplease" },
        { .bsd = "yes", .no_shdrs = true },
        { .bsd = "yes", .zero_shnum = true },
        { .bsd = "yes", .no_symtab = true },
        { .bsd = "yes", .sym_link = ~0u },              /* sh_link 0: SHN_UNDEF */
        { .bsd = "yes", .sym_link = NSHDR },            /* past the table */
        { .bsd = "yes", .sym_link = 2 },                /* a PROGBITS, not a string table */
        { .elf32 = true, .bsd = "yes", .sym_link = 3 }, /* itself */
    };
    struct pv_elf e;

    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(parse(cases[i], &e), 0);
        CHECK_EQ(e.bsd.start, 0);
        CHECK_EQ(e.virt_kend, 0x102000);
        CHECK_EQ(!!e.bsd.skipped[0], i >= 2);           /* a kernel that did not ask is not warned about */
    }
}

/* Section tables no loader can use: refused, with the reason. */
static void test_refused(void)
{
    static const struct {
        struct spec s;
        const char *why;
    } cases[] = {
        { { .bsd = "yes", .shoff = SHDR_OFF + 64 }, "section header table" },
        { { .bsd = "yes", .shoff = ~0ull - 8 }, "section header table" },
        { { .bsd = "yes", .shentsize = 40 }, "section header table" },
        { { .elf32 = true, .bsd = "yes", .shentsize = 64 }, "section header table" },
        { { .bsd = "yes", .shnum = 0xffff }, "section header table" },
        { { .bsd = "yes", .sym_off = SHDR_OFF + 0x100 }, "outside the file" },
        { { .bsd = "yes", .sym_size = ~0ull - 0x1000 }, "outside the file" },          /* offset + size wraps */
        { { .bsd = "yes", .str_size = IMG_SIZE }, "outside the file" },
        { { .elf32 = true, .bsd = "yes", .sym_size = 0xffffffffu }, "outside the file" },
    };
    struct pv_elf e;

    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(parse(cases[i].s, &e), -XEN_EINVAL);
        CHECK(strstr(e.why, cases[i].why) != NULL);
    }
    /* a 32-bit kernel ending right at the hypervisor's hole: its blob would reach into it */
    CHECK_EQ(parse((struct spec){ .elf32 = true, .bsd = "yes", .base = 0xf57fedcc }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "not usable") != NULL);
    CHECK_EQ(parse((struct spec){ .elf32 = true, .base = 0xf57fedcc }, &e), 0);   /* without it, it fits */
}

/* Every truncation of a kernel with a blob fails or parses, and a parsed one loads within bounds. */
static void test_truncated(void)
{
    static struct mem m;
    struct pv_elf e;
    unsigned parsed = 0;

    for (int cls = 0; cls < 2; cls++) {
        size_t len = build(img, &(struct spec){ .elf32 = cls, .bsd = "yes" });
        for (size_t n = 0; n <= len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, img, n);
            if (pv_elf_parse(&e, copy, n) == 0) {
                parsed++;
                if (e.bsd.start)
                    load(&e, &m);
            }
            free(copy);
        }
    }
    CHECK_EQ(parsed, 2);                                /* only the whole images */
}

void test_bsdsyms(void)
{
    test_layout64();
    test_layout32();
    test_skipped();
    test_refused();
    test_truncated();
}
