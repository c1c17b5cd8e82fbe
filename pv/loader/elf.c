/* elf.c: reads a PV kernel's ELF image (ELF64 x86-64, or ELF32 i386 for a 32-bit PAE kernel) and
 * its Xen notes, refusing anything malformed or hostile. An ELF32 file's headers are read into the
 * ELF64 layout (read_ehdr, read_phdr, read_shdr), so the rest reads one form. */
#include "pv/loader/elf.h"
#include "shim/debug.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

/* The ELF file format (System V gABI), only what we read. */
struct elf64_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct elf64_shdr {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t addralign, entsize;
};
/* ELF32's forms of the same three */
struct elf32_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version, entry, phoff, shoff, flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf32_phdr {
    uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};
struct elf32_shdr {
    uint32_t name, type, flags, addr, offset, size, link, info, addralign, entsize;
};
struct elf_nhdr {
    uint32_t namesz, descsz, type;
};
#define EI_CLASS     4
#define EI_DATA      5
#define ELFCLASS32   1
#define ELFCLASS64   2
#define ELFDATA2LSB  1
#define ET_EXEC      2
#define EM_386       3
#define EM_X86_64    62
#define PT_LOAD      1
#define PT_NOTE      4
#define SHT_NOTE     7

#define XEN_HOLE_START 0xffff800000000000ull
#define XEN_HOLE_END   0xffff880000000000ull
/* A 32-bit guest's hole: from HYPERVISOR_COMPAT_VIRT_START (at most this, Xen's PAE default;
 * a HV_START_LOW note may only lower what the guest uses) to 4 GiB. */
#define COMPAT_HOLE_START 0xf5800000ull
#define UNSET          (~0ull)
#define PAGE           4096ull

static const char *const feature_names[] = {
    [XENFEAT_writable_page_tables] = "writable_page_tables",
    [XENFEAT_writable_descriptor_tables] = "writable_descriptor_tables",
    [XENFEAT_auto_translated_physmap] = "auto_translated_physmap",
    [XENFEAT_supervisor_mode_kernel] = "supervisor_mode_kernel",
    [XENFEAT_pae_pgdir_above_4gb] = "pae_pgdir_above_4gb",
    [XENFEAT_mmu_pt_update_preserve_ad] = "mmu_pt_update_preserve_ad",
    [XENFEAT_highmem_assist] = "highmem_assist",
    [XENFEAT_gnttab_map_avail_bits] = "gnttab_map_avail_bits",
    [XENFEAT_hvm_callback_vector] = "hvm_callback_vector",
    [XENFEAT_hvm_safe_pvclock] = "hvm_safe_pvclock",
    [XENFEAT_hvm_pirqs] = "hvm_pirqs",
    [XENFEAT_dom0] = "dom0",
    [XENFEAT_linux_rsdp_unrestricted] = "linux_rsdp_unrestricted",
};

int pv_feature_bit(const char *name, size_t len)
{
    for (unsigned i = 0; i < ARRAY_SIZE(feature_names); i++)
        if (feature_names[i] && strlen(feature_names[i]) == len && !memcmp(feature_names[i], name, len))
            return (int)i;
    return -1;
}

/* A refusal: its reason (e->why, the builder's FATAL line) is also ERR's, with the caller's
 * file:line. */
static int fail_at(const char *file, int line, struct pv_elf *e, int err, const char *fmt, ...) __printf(5, 6);
static int fail_at(const char *file, int line, struct pv_elf *e, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(e->why, sizeof(e->why), fmt, ap);
    va_end(ap);
    return err_at(err, e->why, file, line);
}
#define fail(...) fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* [off, off + size) lies within the image (no overflow). */
static bool in_image(const struct pv_elf *e, uint64_t off, uint64_t size)
{
    return off <= e->len && size <= e->len - off;
}

static bool canonical(uint64_t va)
{
    return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

/* A virtual range the guest may own: canonical, no wrap, clear of the hypervisor hole (for a
 * 32-bit guest: below its hole). */
static bool guest_range_ok(const struct pv_elf *e, uint64_t start, uint64_t end)
{
    if (e->compat)
        return start <= end && end <= e->hv_start_low;
    if (end < start || !canonical(start) || !canonical(end - (end > start)))
        return false;
    if ((start >> 47) != ((end - (end > start)) >> 47))
        return false;                   /* spans the non-canonical gap */
    return end <= XEN_HOLE_START || start >= XEN_HOLE_END;
}

static uint64_t desc_num(const uint8_t *d, uint32_t n)
{
    uint64_t v = 0;

    if (n == 4 || n == 8)
        memcpy(&v, d, n);               /* little-endian host and image */
    return v;
}

static void desc_str(char *out, size_t size, const uint8_t *d, uint32_t n)
{
    size_t k = 0;

    for (; k < n && k + 1 < size && d[k]; k++)
        out[k] = (d[k] >= 0x20 && d[k] < 0x7f) ? (char)d[k] : '?';
    out[k] = '\0';
}

static int parse_features(struct pv_elf *e, const uint8_t *d, uint32_t n)
{
    uint32_t i = 0;

    while (i < n && d[i]) {
        uint32_t s = i;
        while (i < n && d[i] && d[i] != '|')
            i++;
        bool req = s < i && d[s] == '!';
        const char *name = (const char *)d + s + req;
        size_t len = i - s - req;
        int bit = pv_feature_bit(name, len);
        if (bit < 0 && len)
            return fail(e, -XEN_EINVAL, "FEATURES note names an unknown feature '%.*s'", (int)MIN(len, 32),
                        name);
        if (bit >= 0) {
            e->feat_supported |= 1u << bit;
            if (req)
                e->feat_required |= 1u << bit;
        }
        if (i < n && d[i] == '|')
            i++;
    }
    return 0;
}

struct note_vals {
    uint64_t entry, virt_base, paddr_offset, hypercall_page, init_p2m, hv_start_low;
    bool pae_note;
};

/* PAE_MODE, as Xen's libelf reads it: "yes", "bimodal" or "extended-cr3" (the L3 may lie above
 * 4 GiB); anything else ("no") is a non-PAE kernel. */
static void pae_mode(struct pv_elf *e, struct note_vals *v, const uint8_t *d, uint32_t n)
{
    char m[16];

    desc_str(m, sizeof(m), d, n);
    v->pae_note = true;
    e->pae = !strcmp(m, "yes") || strstr(m, "bimodal") || strstr(m, "extended-cr3");
    e->pae_extended_cr3 = strstr(m, "extended-cr3") != NULL;
}

static int one_note(struct pv_elf *e, struct note_vals *v, uint32_t type, const uint8_t *d, uint32_t n)
{
    switch (type) {
    case XEN_ELFNOTE_ENTRY:          v->entry = desc_num(d, n); break;
    case XEN_ELFNOTE_VIRT_BASE:      v->virt_base = desc_num(d, n); break;
    case XEN_ELFNOTE_PADDR_OFFSET:   v->paddr_offset = desc_num(d, n); break;
    case XEN_ELFNOTE_HYPERCALL_PAGE: v->hypercall_page = desc_num(d, n); break;
    case XEN_ELFNOTE_INIT_P2M:       v->init_p2m = desc_num(d, n); break;
    case XEN_ELFNOTE_HV_START_LOW:   v->hv_start_low = desc_num(d, n); break;
    case XEN_ELFNOTE_PAE_MODE:       pae_mode(e, v, d, n); break;
    case XEN_ELFNOTE_MOD_START_PFN:  e->mod_start_pfn = desc_num(d, n) != 0; break;
    case XEN_ELFNOTE_GUEST_OS:       desc_str(e->guest_os, sizeof(e->guest_os), d, n); break;
    case XEN_ELFNOTE_LOADER:         desc_str(e->loader, sizeof(e->loader), d, n); break;
    case XEN_ELFNOTE_XEN_VERSION:    desc_str(e->xen_version, sizeof(e->xen_version), d, n); break;
    case XEN_ELFNOTE_FEATURES:       return parse_features(e, d, n);
    case XEN_ELFNOTE_SUPPORTED_FEATURES:
        e->feat_supported |= (uint32_t)desc_num(d, n);
        break;
    default:
        break;                          /* L1_MFN_VALID, PHYS32_ENTRY...: not ours to use */
    }
    if ((type == XEN_ELFNOTE_ENTRY || type == XEN_ELFNOTE_VIRT_BASE || type == XEN_ELFNOTE_PADDR_OFFSET ||
         type == XEN_ELFNOTE_HYPERCALL_PAGE || type == XEN_ELFNOTE_INIT_P2M || type == XEN_ELFNOTE_HV_START_LOW) &&
        n != 8 && n != 4)
        return fail(e, -XEN_EINVAL, "Xen note %u has a %u-byte value (want 4 or 8)", type, n);
    return 0;
}

/* The notes in [off, off + size): how many were Xen's, or a negative error. */
static int scan_notes(struct pv_elf *e, struct note_vals *v, uint64_t off, uint64_t size)
{
    int found = 0;

    if (!in_image(e, off, size))
        return fail(e, -XEN_EINVAL, "a note area (offset %#lx, %#lx bytes) lies outside the file", off, size);
    uint64_t end = off + size;
    while (end - off >= sizeof(struct elf_nhdr)) {
        struct elf_nhdr h;
        memcpy(&h, e->img + off, sizeof(h));
        uint64_t name = off + sizeof(h), desc = name + ALIGN_UP((uint64_t)h.namesz, 4);
        uint64_t next = desc + ALIGN_UP((uint64_t)h.descsz, 4);
        if (desc > end || next > end || h.namesz > size || h.descsz > size)
            return fail(e, -XEN_EINVAL, "a truncated or oversized note at offset %#lx", off);
        if (h.namesz == 4 && !memcmp(e->img + name, "Xen", 4)) {
            int rc = one_note(e, v, h.type, e->img + desc, h.descsz);
            if (rc)
                return rc;
            found++;
        }
        off = next;
    }
    return found;
}

/* Program header i (the table was checked to lie in the file), as ELF64. */
static void read_phdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_phdr *p)
{
    if (!e->compat) {
        memcpy(p, e->img + h->phoff + i * sizeof(*p), sizeof(*p));
        return;
    }
    struct elf32_phdr q;
    memcpy(&q, e->img + h->phoff + i * sizeof(q), sizeof(q));
    *p = (struct elf64_phdr){ q.type, q.flags, q.offset, q.vaddr, q.paddr, q.filesz, q.memsz, q.align };
}

/* Section header i (the table was checked to lie in the file), as ELF64. */
static void read_shdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_shdr *s)
{
    if (!e->compat) {
        memcpy(s, e->img + h->shoff + i * sizeof(*s), sizeof(*s));
        return;
    }
    struct elf32_shdr q;
    memcpy(&q, e->img + h->shoff + i * sizeof(q), sizeof(q));
    *s = (struct elf64_shdr){ q.name, q.type, q.flags, q.addr, q.offset, q.size, q.link, q.info, q.addralign,
                              q.entsize };
}

static int find_notes(struct pv_elf *e, const struct elf64_ehdr *h, struct note_vals *v)
{
    int found = 0, rc;

    for (unsigned i = 0; i < h->phnum; i++) {
        struct elf64_phdr p;
        read_phdr(e, h, i, &p);
        if (p.type == PT_NOTE && (rc = scan_notes(e, v, p.offset, p.filesz)) < 0)
            return rc;
        found += p.type == PT_NOTE ? rc : 0;
    }
    if (found) {
        e->notes_from = "PT_NOTE";
        return found;
    }
    /* no PT_NOTE with Xen notes: look for note sections */
    if (!h->shoff || !h->shnum)
        return 0;
    size_t shsize = e->compat ? sizeof(struct elf32_shdr) : sizeof(struct elf64_shdr);
    if (h->shentsize != shsize || !in_image(e, h->shoff, (uint64_t)h->shnum * shsize))
        return fail(e, -XEN_EINVAL, "the section header table is malformed or outside the file");
    for (unsigned i = 0; i < h->shnum; i++) {
        struct elf64_shdr s;
        read_shdr(e, h, i, &s);
        if (s.type == SHT_NOTE && (rc = scan_notes(e, v, s.offset, s.size)) < 0)
            return rc;
        found += s.type == SHT_NOTE ? rc : 0;
    }
    if (found)
        e->notes_from = "section headers";
    return found;
}

static int load_segments(struct pv_elf *e, const struct elf64_ehdr *h)
{
    for (unsigned i = 0; i < h->phnum; i++) {
        struct elf64_phdr p;
        read_phdr(e, h, i, &p);
        if (p.type != PT_LOAD || !p.memsz)
            continue;
        if (e->nr_segs == PV_ELF_MAX_SEGMENTS)
            return fail(e, -XEN_EINVAL, "more than %u loadable segments", PV_ELF_MAX_SEGMENTS);
        if (p.filesz > p.memsz)
            return fail(e, -XEN_EINVAL, "segment %u: file size %#lx exceeds memory size %#lx", i, p.filesz,
                        p.memsz);
        if (!in_image(e, p.offset, p.filesz))
            return fail(e, -XEN_EINVAL, "segment %u (offset %#lx, %#lx bytes) lies outside the %#zx-byte file",
                        i, p.offset, p.filesz, e->len);
        if (p.memsz > PV_ELF_MAX_SPAN || p.paddr > UINT64_MAX - p.memsz || p.paddr + p.memsz > (1ull << 46))
            return fail(e, -XEN_EINVAL, "segment %u: absurd placement (paddr %#lx, %#lx bytes)", i, p.paddr,
                        p.memsz);
        for (unsigned k = 0; k < e->nr_segs; k++) {
            const struct pv_segment *o = &e->seg[k];
            if (p.paddr < o->paddr + o->memsz && o->paddr < p.paddr + p.memsz)
                return fail(e, -XEN_EINVAL, "segments overlap at paddr %#lx", MAX(p.paddr, o->paddr));
        }
        e->seg[e->nr_segs++] = (struct pv_segment){ p.paddr, p.filesz, p.memsz, p.offset };
    }
    if (!e->nr_segs)
        return fail(e, -XEN_EINVAL, "no loadable segment");
    e->pstart = UINT64_MAX;
    e->pend = 0;
    for (unsigned k = 0; k < e->nr_segs; k++) {
        e->pstart = MIN(e->pstart, e->seg[k].paddr);
        e->pend = MAX(e->pend, e->seg[k].paddr + e->seg[k].memsz);
    }
    e->pstart = ALIGN_DOWN(e->pstart, PAGE);
    e->pend = ALIGN_UP(e->pend, PAGE);
    if (e->pend - e->pstart > PV_ELF_MAX_SPAN)
        return fail(e, -XEN_EINVAL, "the image spans %lu MiB (limit %llu MiB)", (e->pend - e->pstart) >> 20,
                    PV_ELF_MAX_SPAN >> 20);
    return 0;
}

/* The file header of either class into *h (ELF64's layout); e->compat for an ELF32 one. */
static int read_ehdr(struct pv_elf *e, struct elf64_ehdr *h)
{
    memset(h, 0, sizeof(*h));
    memcpy(h, e->img, MIN(e->len, sizeof(*h)));
    if (e->len < 16 || memcmp(h->ident, "\177ELF", 4))
        return fail(e, -XEN_EINVAL, "not an ELF image (bad magic)");
    if (h->ident[EI_CLASS] == ELFCLASS32 && e->len >= sizeof(struct elf32_ehdr)) {
        struct elf32_ehdr q;
        memcpy(&q, e->img, sizeof(q));
        *h = (struct elf64_ehdr){ .type = q.type, .machine = q.machine, .version = q.version, .entry = q.entry,
                                  .phoff = q.phoff, .shoff = q.shoff, .flags = q.flags, .ehsize = q.ehsize,
                                  .phentsize = q.phentsize, .phnum = q.phnum, .shentsize = q.shentsize,
                                  .shnum = q.shnum, .shstrndx = q.shstrndx };
        memcpy(h->ident, q.ident, sizeof(h->ident));
        e->compat = true;
        return 0;
    }
    if (h->ident[EI_CLASS] != ELFCLASS64 || e->len < sizeof(*h))
        return fail(e, -XEN_EINVAL, "not an ELF64 or ELF32 image (class %u, %zu bytes)", h->ident[EI_CLASS], e->len);
    return 0;
}

static int check_header(struct pv_elf *e, const struct elf64_ehdr *h)
{
    size_t phsize = e->compat ? sizeof(struct elf32_phdr) : sizeof(struct elf64_phdr);

    if (h->ident[EI_DATA] != ELFDATA2LSB || h->machine != (e->compat ? EM_386 : EM_X86_64))
        return fail(e, -XEN_EINVAL, "not a little-endian %s ELF (machine %u)", e->compat ? "i386" : "x86-64",
                    h->machine);
    if (h->type != ET_EXEC)
        return fail(e, -XEN_EINVAL, "ELF type %u is not an executable", h->type);
    if (h->phentsize != phsize || !h->phnum || !in_image(e, h->phoff, (uint64_t)h->phnum * phsize))
        return fail(e, -XEN_EINVAL, "the program header table is malformed or outside the file");
    return 0;
}

static int check_addresses(struct pv_elf *e)
{
    e->virt_kstart = e->pstart + e->virt_offset;
    e->virt_kend = e->pend + e->virt_offset;
    if (e->virt_kend < e->virt_kstart || !guest_range_ok(e, e->virt_kstart, e->virt_kend))
        return fail(e, -XEN_EINVAL, "the kernel's virtual range %#lx-%#lx is not usable by a guest",
                    e->virt_kstart, e->virt_kend);
    if (e->virt_kstart < e->virt_base)
        return fail(e, -XEN_EINVAL, "the kernel starts (%#lx) below VIRT_BASE (%#lx)", e->virt_kstart, e->virt_base);
    if (e->virt_entry < e->virt_kstart || e->virt_entry >= e->virt_kend)
        return fail(e, -XEN_EINVAL, "the entry point %#lx lies outside the image %#lx-%#lx", e->virt_entry,
                    e->virt_kstart, e->virt_kend);
    if (e->hypercall_page && (e->hypercall_page < e->virt_kstart || e->hypercall_page >= e->virt_kend ||
                              !IS_ALIGNED(e->hypercall_page, PAGE)))
        return fail(e, -XEN_EINVAL, "the hypercall page %#lx is not a page of the image", e->hypercall_page);
    if (e->init_p2m && (!IS_ALIGNED(e->init_p2m, PAGE) || !guest_range_ok(e, e->init_p2m, e->init_p2m + PAGE) ||
                        (e->init_p2m >= e->virt_base && e->init_p2m < e->virt_kend)))
        return fail(e, -XEN_EINVAL, "INIT_P2M %#lx is not a usable address", e->init_p2m);
    return 0;
}

int pv_elf_parse(struct pv_elf *e, const void *img, size_t len)
{
    struct note_vals v = { UNSET, UNSET, UNSET, UNSET, UNSET, UNSET, false };
    struct elf64_ehdr h;
    int rc;

    memset(e, 0, sizeof(*e));
    e->img = img;
    e->len = len;
    if ((rc = read_ehdr(e, &h)) || (rc = check_header(e, &h)) || (rc = load_segments(e, &h)))
        return rc;
    if ((rc = find_notes(e, &h, &v)) < 0)
        return rc;
    if (rc == 0)
        return fail(e, -XEN_EINVAL, "no Xen ELF notes (in PT_NOTE or note sections): not a PV kernel");
    if (strncmp(e->xen_version, "xen-3.0", 7))
        return fail(e, -XEN_EINVAL, "XEN_VERSION note is '%s', want xen-3.0", e->xen_version);
    if (strncmp(e->loader, "generic", 7) && strncmp(e->guest_os, "linux", 5))
        return fail(e, -XEN_EINVAL, "neither LOADER=generic nor GUEST_OS=linux (loader '%s', os '%s')", e->loader,
                    e->guest_os);

    /* as Xen's libelf: no VIRT_BASE means 0; no PADDR_OFFSET means 0 with notes */
    e->virt_base = v.virt_base == UNSET ? 0 : v.virt_base;
    e->paddr_offset = v.paddr_offset == UNSET ? 0 : v.paddr_offset;
    e->virt_offset = e->virt_base - e->paddr_offset;
    e->virt_entry = v.entry == UNSET ? h.entry : v.entry;
    e->hypercall_page = v.hypercall_page == UNSET ? 0 : v.hypercall_page;
    e->init_p2m = v.init_p2m == UNSET ? 0 : v.init_p2m;
    if (e->compat) {
        /* a 64-bit hypervisor runs 32-bit guests on PAE page tables only (Xen: "Unsupported
         * PAE mode"), and its hole starts at 0xF5800000 at the highest */
        if (!e->pae)
            return fail(e, -XEN_EINVAL, "a 32-bit kernel without PAE (%s): a 64-bit hypervisor runs only PAE "
                        "32-bit guests", v.pae_note ? "PAE_MODE note says no" : "no PAE_MODE note");
        if (v.hv_start_low != UNSET && v.hv_start_low > COMPAT_HOLE_START)
            return fail(e, -XEN_EINVAL, "HV_START_LOW %#lx: the hypervisor's hole starts at %#llx at the highest",
                        v.hv_start_low, COMPAT_HOLE_START);
        e->hv_start_low = v.hv_start_low == UNSET ? COMPAT_HOLE_START : v.hv_start_low;
        if (e->virt_entry >> 32 || e->hypercall_page >> 32)
            return fail(e, -XEN_EINVAL, "a 32-bit kernel's entry or hypercall page above 4 GiB");
    }
    return check_addresses(e);
}
