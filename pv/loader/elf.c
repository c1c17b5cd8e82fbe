/* elf.c: reads a PV kernel's ELF image (ELF64 x86-64, or ELF32 i386 for a 32-bit PAE kernel) and
 * its Xen notes (elf_notes.c), refusing anything malformed or hostile. An ELF32 file's headers are
 * read into the ELF64 layout (read_ehdr, pv_elf_read_phdr), so the rest reads one form. */
#include "pv/loader/elf.h"
#include "pv/loader/elf_format.h"
#include "shim/debug.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

#define XEN_HOLE_START 0xffff800000000000ull
#define XEN_HOLE_END   0xffff880000000000ull
/* A 32-bit guest's hole: from HYPERVISOR_COMPAT_VIRT_START (Xen's PAE default; a shim's guest
 * keeps it whatever its HV_START_LOW says) to 4 GiB. */
#define COMPAT_HOLE_START 0xf5800000ull
#define PAGE           4096ull

/* A refusal: its reason (e->why, the builder's FATAL line) is also ERR's, with the caller's
 * file:line. */
int pv_elf_fail_at(const char *file, int line, struct pv_elf *e, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(e->why, sizeof(e->why), fmt, ap);
    va_end(ap);
    return err_at(err, e->why, file, line);
}

/* [off, off + size) lies within the image (no overflow). */
bool pv_elf_in_image(const struct pv_elf *e, uint64_t off, uint64_t size)
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

/* Program header i (the table was checked to lie in the file), as ELF64. */
void pv_elf_read_phdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_phdr *p)
{
    if (!e->compat) {
        memcpy(p, e->img + h->phoff + i * sizeof(*p), sizeof(*p));
        return;
    }
    struct elf32_phdr q;
    memcpy(&q, e->img + h->phoff + i * sizeof(q), sizeof(q));
    *p = (struct elf64_phdr){ q.type, q.flags, q.offset, q.vaddr, q.paddr, q.filesz, q.memsz, q.align };
}

static int load_segments(struct pv_elf *e, const struct elf64_ehdr *h)
{
    for (unsigned i = 0; i < h->phnum; i++) {
        struct elf64_phdr p;
        pv_elf_read_phdr(e, h, i, &p);
        if (p.type != PT_LOAD || !p.memsz)
            continue;
        if (e->nr_segs == PV_ELF_MAX_SEGMENTS)
            return fail(e, -XEN_EINVAL, "more than %u loadable segments", PV_ELF_MAX_SEGMENTS);
        if (p.filesz > p.memsz)
            return fail(e, -XEN_EINVAL, "segment %u: file size %#lx exceeds memory size %#lx", i, p.filesz,
                        p.memsz);
        if (!pv_elf_in_image(e, p.offset, p.filesz))
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
    if (h->phentsize != phsize || !h->phnum || !pv_elf_in_image(e, h->phoff, (uint64_t)h->phnum * phsize))
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
    struct note_vals v = { UNSET, UNSET, UNSET, UNSET, UNSET };
    struct elf64_ehdr h;
    int rc;

    memset(e, 0, sizeof(*e));
    e->img = img;
    e->len = len;
    if ((rc = read_ehdr(e, &h)) || (rc = check_header(e, &h)) || (rc = load_segments(e, &h)))
        return rc;
    if ((rc = pv_elf_find_notes(e, &h, &v)) < 0)
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
        /* As Xen's builder of a shim's guest (dom0_construct_pv): a 32-bit guest runs on PAE
         * page tables whatever its PAE_MODE says (a 64-bit hypervisor has no other kind), its
         * HV_START_LOW is not looked at (the hole stays at 0xF5800000), and INIT_P2M is
         * ignored ("P2M table base ignored"). */
        e->hv_start_low = COMPAT_HOLE_START;
        e->init_p2m = 0;
        if (e->virt_entry >> 32 || e->hypercall_page >> 32)
            return fail(e, -XEN_EINVAL, "a 32-bit kernel's entry or hypercall page above 4 GiB");
    }
    /* as libelf: the symbol table's blob extends the image before its addresses are checked */
    if (e->bsd_symtab && (rc = pv_bsdsyms_plan(e, &h)))
        return rc;
    return check_addresses(e);
}
