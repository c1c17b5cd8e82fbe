/* shimimg.c: what a shim image file says about itself: ELF notes (PVH entry, build, where the
 * stats page is), size, a fingerprint, and which kind of shim it is. Used by check and stats. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pvshim-stats.h"
#include "xlshim.h"

static void take_note(struct shim_info *si, const char *name, uint32_t type, const uint8_t *d,
                      uint32_t dsz)
{
    if (!strcmp(name, "Xen") && type == 18 /* XEN_ELFNOTE_PHYS32_ENTRY */ && dsz >= 4) {
        uint64_t v = 0;
        memcpy(&v, d, dsz >= 8 ? 8 : 4);
        si->phys32_entry = true;
        si->entry = dsz >= 8 ? v : (uint32_t)v;
    } else if (!strcmp(name, "Xen") && type == 6 /* GUEST_OS */) {
        snprintf(si->guest_os, sizeof(si->guest_os), "%.*s", (int)dsz, (const char *)d);
    } else if (!strcmp(name, "Xen") && type == 7 /* GUEST_VERSION */ && !si->version[0]) {
        snprintf(si->version, sizeof(si->version), "%.*s", (int)dsz, (const char *)d);
    } else if (!strcmp(name, PVSHIM_ELFNOTE_NAME) && type == PVSHIM_ELFNOTE_BUILD) {
        snprintf(si->version, sizeof(si->version), "%.*s", (int)strnlen((const char *)d, dsz),
                 (const char *)d);
    } else if (!strcmp(name, PVSHIM_ELFNOTE_NAME) && type == PVSHIM_ELFNOTE_STATS &&
               dsz >= sizeof(struct pvshim_stats_note)) {
        struct pvshim_stats_note n;
        memcpy(&n, d, sizeof(n));
        si->has_stats = true;
        si->stats_paddr = n.paddr;
        si->stats_size = n.size;
        si->stats_version = n.version;
    } else if (!strcmp(name, "GNU") && type == NT_GNU_BUILD_ID) {
        for (uint32_t i = 0; i < dsz && i < 20; i++)
            sprintf(si->build_id + 2 * i, "%02x", d[i]);
    }
}

static void walk_notes(struct shim_info *si, const uint8_t *p, size_t len)
{
    size_t off = 0;
    while (off + 12 <= len) {
        uint32_t nsz, dsz, type;
        memcpy(&nsz, p + off, 4);
        memcpy(&dsz, p + off + 4, 4);
        memcpy(&type, p + off + 8, 4);
        size_t nal = (nsz + 3) & ~3u, dal = (dsz + 3) & ~3u;
        if (nsz > len || dsz > len || off + 12 + nal + dal > len)
            return;
        char name[16] = "";
        snprintf(name, sizeof(name), "%.*s", (int)(nsz ? nsz - 1 : 0), (const char *)p + off + 12);
        take_note(si, name, type, p + off + 12 + nal, dsz);
        off += 12 + nal + dal;
    }
}

/* Reads the notes of an ELF image (Xen's stock shim is ELF32, ours ELF64); false if not ELF. */
static bool elf_notes(struct shim_info *si, const uint8_t *b, size_t len)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG))
        return false;
    bool is64 = b[EI_CLASS] == ELFCLASS64;
    if (!is64 && b[EI_CLASS] != ELFCLASS32)
        return false;
    const Elf64_Ehdr *e64 = (const void *)b;
    const Elf32_Ehdr *e32 = (const void *)b;
    uint64_t phoff = is64 ? e64->e_phoff : e32->e_phoff;
    size_t phent = is64 ? e64->e_phentsize : e32->e_phentsize;
    unsigned phnum = is64 ? e64->e_phnum : e32->e_phnum;
    if (phent != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phoff > len ||
        phnum > (len - phoff) / phent)
        return false;
    for (unsigned i = 0; i < phnum; i++) {
        uint64_t type, off, sz;
        if (is64) {
            Elf64_Phdr ph;
            memcpy(&ph, b + phoff + i * phent, sizeof(ph));
            type = ph.p_type, off = ph.p_offset, sz = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            memcpy(&ph, b + phoff + i * phent, sizeof(ph));
            type = ph.p_type, off = ph.p_offset, sz = ph.p_filesz;
        }
        if (type == PT_NOTE && off <= len && sz <= len - off)
            walk_notes(si, b + off, sz);
    }
    si->is64 = is64;
    return true;
}

int shim_image_read(const char *path, struct shim_info *si, char *why, size_t n)
{
    struct stat st;
    memset(si, 0, sizeof(*si));
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s", !f ? strerror(errno) : "not a file");
        if (f)
            fclose(f);
        return SHIM_IMG_NOFILE;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *b = len && len < (256u << 20) ? malloc(len) : NULL;
    bool ok = b && fread(b, 1, len, f) == len;
    fclose(f);
    if (!ok || !elf_notes(si, b, len)) {
        snprintf(why, n, "not an ELF image");
        free(b);
        return SHIM_IMG_NOTELF;
    }
    uint64_t h = 0xcbf29ce484222325ull;    /* FNV-1a 64 of the file: tells builds apart */
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    si->fingerprint = h;
    si->size = len;
    si->mtime = st.st_mtime;
    si->kind = si->has_stats || memmem(b, len, "pvshim starting", 15) ? "this project's pvshim"
             : memmem(b, len, "Xen version", 11) ? "Xen's stock shim (xen-shim)"
             : "unknown kind";
    free(b);
    return 0;
}
