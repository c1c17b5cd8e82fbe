/* elf_notes.c: a PV kernel's Xen ELF notes (public/elfnote.h), from its PT_NOTE segments or, if
 * those have none, its note sections: numbers of 4 or 8 bytes, strings, the FEATURES list and
 * PAE_MODE as Xen's libelf reads them. */
#include "pv/loader/elf_format.h"
#include "shim/debug.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

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


/* PAE_MODE, as Xen's libelf reads it: "yes", "bimodal" or "extended-cr3" (the L3 may lie above
 * 4 GiB); anything else ("no") is a non-PAE kernel. */
static void pae_mode(struct pv_elf *e, const uint8_t *d, uint32_t n)
{
    char m[16];

    desc_str(m, sizeof(m), d, n);
    e->pae = !strcmp(m, "yes") || strstr(m, "bimodal") || strstr(m, "extended-cr3");
    /* Xen's builder takes a 32-bit bimodal kernel as extended-cr3 */
    e->pae_extended_cr3 = strstr(m, "extended-cr3") || strstr(m, "bimodal");
}

static int one_note(struct pv_elf *e, struct note_vals *v, uint32_t type, const uint8_t *d, uint32_t n)
{
    switch (type) {
    case XEN_ELFNOTE_ENTRY:          v->entry = desc_num(d, n); break;
    case XEN_ELFNOTE_VIRT_BASE:      v->virt_base = desc_num(d, n); break;
    case XEN_ELFNOTE_PADDR_OFFSET:   v->paddr_offset = desc_num(d, n); break;
    case XEN_ELFNOTE_HYPERCALL_PAGE: v->hypercall_page = desc_num(d, n); break;
    case XEN_ELFNOTE_INIT_P2M:       v->init_p2m = desc_num(d, n); break;
    case XEN_ELFNOTE_PAE_MODE:       pae_mode(e, d, n); break;
    case XEN_ELFNOTE_MOD_START_PFN:  e->mod_start_pfn = desc_num(d, n) != 0; break;
    case XEN_ELFNOTE_GUEST_OS:       desc_str(e->guest_os, sizeof(e->guest_os), d, n); break;
    case XEN_ELFNOTE_LOADER:         desc_str(e->loader, sizeof(e->loader), d, n); break;
    case XEN_ELFNOTE_XEN_VERSION:    desc_str(e->xen_version, sizeof(e->xen_version), d, n); break;
    case XEN_ELFNOTE_FEATURES:       return parse_features(e, d, n);
    case XEN_ELFNOTE_BSD_SYMTAB:        /* a string, as libelf reads it: "yes" asks, nothing unasks */
        if (n >= 3 && !memcmp(d, "yes", 3) && (n == 3 || !d[3]))
            e->bsd_symtab = true;
        break;
    case XEN_ELFNOTE_SUPPORTED_FEATURES:
        e->feat_supported |= (uint32_t)desc_num(d, n);
        break;
    default:
        break;                          /* L1_MFN_VALID, PHYS32_ENTRY...: not ours to use */
    }
    if ((type == XEN_ELFNOTE_ENTRY || type == XEN_ELFNOTE_VIRT_BASE || type == XEN_ELFNOTE_PADDR_OFFSET ||
         type == XEN_ELFNOTE_HYPERCALL_PAGE || type == XEN_ELFNOTE_INIT_P2M) &&
        n != 8 && n != 4)
        return fail(e, -XEN_EINVAL, "Xen note %u has a %u-byte value (want 4 or 8)", type, n);
    return 0;
}

/* The notes in [off, off + size): how many were Xen's, or a negative error. Walked as Xen's
 * libelf walks them: a note starts below the area's end, and one whose name or value runs past
 * the area is still read if it lies within the file; one that runs past the end of the file is
 * skipped and ends the walk (libelf cannot read it and goes on without it). PV GRUB i386's image
 * is one: its last note, PAE_MODE, is cut off by the end of the file. */
static int scan_notes(struct pv_elf *e, struct note_vals *v, uint64_t off, uint64_t size)
{
    int found = 0;

    if (!pv_elf_in_image(e, off, size))
        return fail(e, -XEN_EINVAL, "a note area (offset %#lx, %#lx bytes) lies outside the file", off, size);
    uint64_t end = off + size;
    while (off < end) {
        struct elf_nhdr h;
        if (!pv_elf_in_image(e, off, sizeof(h))) {
            e->note_cut = off;
            break;
        }
        memcpy(&h, e->img + off, sizeof(h));
        uint64_t name = off + sizeof(h), desc = name + ALIGN_UP((uint64_t)h.namesz, 4);
        if (!pv_elf_in_image(e, name, h.namesz) || !pv_elf_in_image(e, desc, h.descsz)) {
            e->note_cut = off;
            break;
        }
        if (h.namesz == 4 && !memcmp(e->img + name, "Xen", 4)) {
            int rc = one_note(e, v, h.type, e->img + desc, h.descsz);
            if (rc)
                return rc;
            found++;
        }
        off = desc + ALIGN_UP((uint64_t)h.descsz, 4);
    }
    return found;
}

void pv_elf_read_shdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_shdr *s)
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

int pv_elf_find_notes(struct pv_elf *e, const struct elf64_ehdr *h, struct note_vals *v)
{
    int found = 0, rc;

    for (unsigned i = 0; i < h->phnum; i++) {
        struct elf64_phdr p;
        pv_elf_read_phdr(e, h, i, &p);
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
    if (h->shentsize != shsize || !pv_elf_in_image(e, h->shoff, (uint64_t)h->shnum * shsize))
        return fail(e, -XEN_EINVAL, "the section header table is malformed or outside the file");
    for (unsigned i = 0; i < h->shnum; i++) {
        struct elf64_shdr s;
        pv_elf_read_shdr(e, h, i, &s);
        if (s.type == SHT_NOTE && (rc = scan_notes(e, v, s.offset, s.size)) < 0)
            return rc;
        found += s.type == SHT_NOTE ? rc : 0;
    }
    if (found)
        e->notes_from = "section headers";
    return found;
}
