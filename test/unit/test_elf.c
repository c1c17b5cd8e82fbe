/* test_elf.c: the PV kernel ELF/notes parser on synthetic images: good ones (notes in PT_NOTE or
 * only in sections) and hostile ones (truncation at every length, overlaps, bad entry, sizes). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/elf.h"
#include "harness.h"
#include "xen-abi.h"
#include "shim/xerrno.h"

#define IMG_SIZE 0x3000
#define NOTES_OFF 0x200
#define DATA_OFF 0x1000
#define SHDR_OFF 0x2000

struct spec {
    unsigned char cls;
    bool pt_note, shdr_note;
    uint64_t entry, paddr2, memsz2, filesz;
    uint64_t hcpage;
    const char *features;
    const char *xen_version;
};

static size_t note(uint8_t *p, uint32_t type, const void *desc, uint32_t n)
{
    Elf64_Nhdr h = { 4, n, type };
    memcpy(p, &h, sizeof(h));
    memcpy(p + 12, "Xen", 4);
    memcpy(p + 16, desc, n);
    return 16 + ((n + 3) & ~3u);
}

static size_t build(uint8_t *b, const struct spec *s)
{
    Elf64_Ehdr *e = (Elf64_Ehdr *)b;
    Elf64_Phdr *ph = (Elf64_Phdr *)(b + sizeof(*e));
    uint64_t zero = 0, v;
    size_t n = NOTES_OFF;
    unsigned nph = 0;

    memset(b, 0, IMG_SIZE);
    memcpy(e->e_ident, ELFMAG, SELFMAG);
    e->e_ident[EI_CLASS] = s->cls ? s->cls : ELFCLASS64;
    e->e_ident[EI_DATA] = ELFDATA2LSB;
    e->e_type = ET_EXEC;
    e->e_machine = EM_X86_64;
    e->e_entry = 0x100000;
    e->e_phoff = sizeof(*e);
    e->e_phentsize = sizeof(Elf64_Phdr);
    e->e_ehsize = sizeof(*e);

    n += note(b + n, XEN_ELFNOTE_GUEST_OS, "test", 5);
    n += note(b + n, XEN_ELFNOTE_XEN_VERSION, s->xen_version ? s->xen_version : "xen-3.0", 8);
    n += note(b + n, XEN_ELFNOTE_LOADER, "generic", 8);
    n += note(b + n, XEN_ELFNOTE_VIRT_BASE, &zero, 8);
    n += note(b + n, XEN_ELFNOTE_PADDR_OFFSET, &zero, 8);
    v = s->entry ? s->entry : 0x100010;
    n += note(b + n, XEN_ELFNOTE_ENTRY, &v, 8);
    if (s->hcpage)
        n += note(b + n, XEN_ELFNOTE_HYPERCALL_PAGE, &s->hcpage, 8);
    if (s->features)
        n += note(b + n, XEN_ELFNOTE_FEATURES, s->features, (uint32_t)strlen(s->features) + 1);

    ph[nph++] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = DATA_OFF, .p_vaddr = 0x100000, .p_paddr = 0x100000,
                              .p_filesz = s->filesz ? s->filesz : 0x800, .p_memsz = 0x2000 };
    if (s->memsz2)
        ph[nph++] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = DATA_OFF, .p_paddr = s->paddr2,
                                  .p_filesz = 0x10, .p_memsz = s->memsz2 };
    if (s->pt_note)
        ph[nph++] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = NOTES_OFF, .p_filesz = n - NOTES_OFF };
    e->e_phnum = (uint16_t)nph;
    if (s->shdr_note) {
        Elf64_Shdr *sh = (Elf64_Shdr *)(b + SHDR_OFF);
        sh[1] = (Elf64_Shdr){ .sh_type = SHT_NOTE, .sh_offset = NOTES_OFF, .sh_size = n - NOTES_OFF };
        e->e_shoff = SHDR_OFF;
        e->e_shentsize = sizeof(Elf64_Shdr);
        e->e_shnum = 2;
    }
    return SHDR_OFF + 2 * sizeof(Elf64_Shdr);
}

static int parse(const struct spec *s, struct pv_elf *e)
{
    static uint8_t b[IMG_SIZE];
    size_t len = build(b, s);
    return pv_elf_parse(e, b, len);
}

static void test_good(void)
{
    struct pv_elf e;

    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .hcpage = 0x101000 }, &e), 0);
    CHECK_EQ(e.virt_kstart, 0x100000);
    CHECK_EQ(e.virt_kend, 0x102000);
    CHECK_EQ(e.virt_entry, 0x100010);
    CHECK_EQ(e.hypercall_page, 0x101000);
    CHECK(!strcmp(e.notes_from, "PT_NOTE"));
    CHECK(!strcmp(e.guest_os, "test"));

    CHECK_EQ(parse(&(struct spec){ .shdr_note = true }, &e), 0);        /* notes only in a section */
    CHECK(!strcmp(e.notes_from, "section headers"));

    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .features = "!writable_page_tables|pae_pgdir_above_4gb" }, &e), 0);
    CHECK_EQ(e.feat_required, 1u << XENFEAT_writable_page_tables);
    CHECK_EQ(e.feat_supported, (1u << XENFEAT_writable_page_tables) | (1u << XENFEAT_pae_pgdir_above_4gb));
}

static void test_bad(void)
{
    struct pv_elf e;

    /* an ELF64 image labelled class 32: its header is not an i386 ELF32's */
    CHECK_EQ(parse(&(struct spec){ .cls = ELFCLASS32, .pt_note = true }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "i386") != NULL);
    CHECK_EQ(parse(&(struct spec){ 0 }, &e), -XEN_EINVAL);                               /* no notes */
    CHECK(strstr(e.why, "no Xen ELF notes") != NULL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .entry = 0x200000 }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "entry point") != NULL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .paddr2 = 0x101000, .memsz2 = 0x10 }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "overlap") != NULL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .paddr2 = 0x200000, .memsz2 = 1ull << 40 }, &e), -XEN_EINVAL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .paddr2 = 0x80000000, .memsz2 = 0x1000 }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "spans") != NULL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .filesz = 0x2000 }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "outside") != NULL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .hcpage = 0x100800 }, &e), -XEN_EINVAL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .features = "warp_drive" }, &e), -XEN_EINVAL);
    CHECK_EQ(parse(&(struct spec){ .pt_note = true, .xen_version = "xen-2.0" }, &e), -XEN_EINVAL);
}

/* Every truncation of a good image fails cleanly (and ASan sees no out-of-bounds read). */
static void check_truncations(const uint8_t *b, size_t len)
{
    struct pv_elf e;
    unsigned failed = 0;

    for (size_t n = 0; n < DATA_OFF + 0x800; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, b, n);
        failed += pv_elf_parse(&e, copy, n) != 0;
        free(copy);
    }
    CHECK_EQ(failed, DATA_OFF + 0x800);
    CHECK_EQ(pv_elf_parse(&e, b, len), 0);
}

static void test_truncated(void)
{
    static uint8_t b[IMG_SIZE];

    check_truncations(b, build(b, &(struct spec){ .pt_note = true }));
}

/* A 32-bit PAE kernel (issue 19): ELF32 i386, 4-byte note values, PAE_MODE and HV_START_LOW. */
struct spec32 {
    const char *pae;                    /* PAE_MODE's string, NULL: no note */
    uint32_t hv_start_low;              /* 0: no note */
    uint32_t paddr, memsz;              /* the load segment; 0: 1 MiB, 0x2000 */
    bool shdr_note;                     /* notes in a section only */
};

static size_t build32(uint8_t *b, const struct spec32 *s)
{
    Elf32_Ehdr *e = (Elf32_Ehdr *)b;
    Elf32_Phdr *ph = (Elf32_Phdr *)(b + sizeof(*e));
    uint32_t zero = 0, base = s->paddr ? s->paddr : 0x100000, entry = base + 0x10;
    size_t n = NOTES_OFF;
    unsigned nph = 0;

    memset(b, 0, IMG_SIZE);
    memcpy(e->e_ident, ELFMAG, SELFMAG);
    e->e_ident[EI_CLASS] = ELFCLASS32;
    e->e_ident[EI_DATA] = ELFDATA2LSB;
    e->e_type = ET_EXEC;
    e->e_machine = EM_386;
    e->e_entry = entry;
    e->e_phoff = sizeof(*e);
    e->e_phentsize = sizeof(Elf32_Phdr);
    e->e_ehsize = sizeof(*e);
    n += note(b + n, XEN_ELFNOTE_GUEST_OS, "test", 5);
    n += note(b + n, XEN_ELFNOTE_XEN_VERSION, "xen-3.0", 8);
    n += note(b + n, XEN_ELFNOTE_LOADER, "generic", 8);
    n += note(b + n, XEN_ELFNOTE_VIRT_BASE, &zero, 4);
    n += note(b + n, XEN_ELFNOTE_PADDR_OFFSET, &zero, 4);
    n += note(b + n, XEN_ELFNOTE_ENTRY, &entry, 4);
    if (s->pae)
        n += note(b + n, XEN_ELFNOTE_PAE_MODE, s->pae, (uint32_t)strlen(s->pae) + 1);
    if (s->hv_start_low)
        n += note(b + n, XEN_ELFNOTE_HV_START_LOW, &s->hv_start_low, 4);
    ph[nph++] = (Elf32_Phdr){ .p_type = PT_LOAD, .p_offset = DATA_OFF, .p_vaddr = base, .p_paddr = base,
                              .p_filesz = 0x800, .p_memsz = s->memsz ? s->memsz : 0x2000 };
    if (!s->shdr_note)
        ph[nph++] = (Elf32_Phdr){ .p_type = PT_NOTE, .p_offset = NOTES_OFF, .p_filesz = (uint32_t)(n - NOTES_OFF) };
    e->e_phnum = (uint16_t)nph;
    if (s->shdr_note) {
        Elf32_Shdr *sh = (Elf32_Shdr *)(b + SHDR_OFF);
        sh[1] = (Elf32_Shdr){ .sh_type = SHT_NOTE, .sh_offset = NOTES_OFF, .sh_size = (uint32_t)(n - NOTES_OFF) };
        e->e_shoff = SHDR_OFF;
        e->e_shentsize = sizeof(Elf32_Shdr);
        e->e_shnum = 2;
    }
    return SHDR_OFF + 2 * sizeof(Elf32_Shdr);
}

static int parse32(const struct spec32 *s, struct pv_elf *e)
{
    static uint8_t b[IMG_SIZE];
    size_t len = build32(b, s);
    return pv_elf_parse(e, b, len);
}

static void test_elf32(void)
{
    struct pv_elf e;

    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes" }, &e), 0);
    CHECK(e.compat && e.pae && !e.pae_extended_cr3);
    CHECK_EQ(e.hv_start_low, 0xf5800000);
    CHECK_EQ(e.virt_kstart, 0x100000);
    CHECK_EQ(e.virt_kend, 0x102000);
    CHECK_EQ(e.virt_entry, 0x100010);
    CHECK(!strcmp(e.notes_from, "PT_NOTE"));
    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes", .shdr_note = true }, &e), 0);
    CHECK(!strcmp(e.notes_from, "section headers"));
    CHECK_EQ(parse32(&(struct spec32){ .pae = "extended-cr3" }, &e), 0);
    CHECK(e.pae && e.pae_extended_cr3);
    CHECK_EQ(parse32(&(struct spec32){ .pae = "bimodal" }, &e), 0);
    CHECK(e.pae && e.pae_extended_cr3);                 /* as Xen's builder: bimodal is extended-cr3 */

    /* as Xen's builder of a shim's guest: no PAE_MODE, or "no", still runs (on PAE tables) */
    CHECK_EQ(parse32(&(struct spec32){ 0 }, &e), 0);
    CHECK(e.compat && !e.pae);
    CHECK_EQ(parse32(&(struct spec32){ .pae = "no" }, &e), 0);
    CHECK(!e.pae);

    /* the hole: a kernel reaching into it; HV_START_LOW changes nothing (the shim's Xen ignores it) */
    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes", .paddr = 0xf5700000, .memsz = 0x200000 }, &e), -XEN_EINVAL);
    CHECK(strstr(e.why, "not usable") != NULL);
    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes", .paddr = 0xf5600000, .memsz = 0x200000 }, &e), 0);
    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes", .hv_start_low = 0xf6000000 }, &e), 0);
    CHECK_EQ(e.hv_start_low, 0xf5800000);
    CHECK_EQ(parse32(&(struct spec32){ .pae = "yes", .hv_start_low = 0xc0000000, .paddr = 0xc0000000 }, &e), 0);
    CHECK_EQ(e.hv_start_low, 0xf5800000);

    static uint8_t b[IMG_SIZE];
    check_truncations(b, build32(b, &(struct spec32){ .pae = "yes" }));

    /* A last note cut off by the end of the file, its note area ending there too (PV GRUB
     * i386's PAE_MODE): skipped, as Xen's libelf skips it; the notes before it count. Here the
     * notes move to the end of the file, the area and the file then end 8 bytes into the value
     * of the last note, PAE_MODE. */
    build32(b, &(struct spec32){ .pae = "yes,bimodal" });
    Elf32_Phdr *ph = (Elf32_Phdr *)(b + sizeof(Elf32_Ehdr));
    size_t area = ph[1].p_filesz, at = DATA_OFF + 0x800;
    memcpy(b + at, b + NOTES_OFF, area);
    ph[1].p_offset = (uint32_t)at;
    CHECK_EQ(pv_elf_parse(&e, b, at + area), 0);                /* whole: PAE_MODE read */
    CHECK(e.pae && !e.note_cut);
    ph[1].p_filesz = (uint32_t)(area - 8);
    CHECK_EQ(pv_elf_parse(&e, b, at + area - 8), 0);            /* cut: PAE_MODE skipped */
    CHECK(!e.pae && e.note_cut == at + area - 28);
    CHECK_EQ(e.virt_entry, 0x100010);                           /* the notes before it were read */
}

void test_elf(void)
{
    test_good();
    test_bad();
    test_truncated();
    test_elf32();
}
