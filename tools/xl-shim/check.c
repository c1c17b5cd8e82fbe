/* check.c: xl-shim check: Xen (libxenctrl), its version and PVH support, the installed shim. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xenctrl.h>

#include "xlshim.h"

/* libxenctrl logs its failures to stderr by default; we report them in our own words. */
static void quiet_vmessage(struct xentoollog_logger *l, xentoollog_level lvl, int e,
                           const char *ctx, const char *fmt, va_list ap)
{
    (void)l, (void)lvl, (void)e, (void)ctx, (void)fmt, (void)ap;
}
static void quiet_destroy(struct xentoollog_logger *l)
{
    (void)l;
}
static xentoollog_logger quiet = { quiet_vmessage, NULL, quiet_destroy };

static bool under_xen(void)
{
    char t[16] = "";
    FILE *f = fopen("/sys/hypervisor/type", "r");
    if (f) {
        if (!fgets(t, sizeof(t), f))
            t[0] = 0;
        fclose(f);
    }
    return !strncmp(t, "xen", 3) || access("/proc/xen", F_OK) == 0;
}

static xc_interface *open_xen(char *why, size_t n)
{
    xc_interface *xch = xc_interface_open(&quiet, &quiet, 0);
    if (!xch) {
        int e = errno;
        if (!under_xen())
            snprintf(why, n, "this machine is not running under Xen "
                     "(no /sys/hypervisor/type = xen, no /proc/xen)");
        else
            snprintf(why, n, "running under Xen, but the control interface "
                     "(/dev/xen/privcmd) cannot be opened: %s (run as root in dom0)",
                     strerror(e));
    }
    return xch;
}

int xen_present(char *why, size_t n)
{
    xc_interface *xch = open_xen(why, n);
    if (!xch)
        return -1;
    xc_interface_close(xch);
    return 0;
}

/* ---- the shim binary --------------------------------------------------------------------- */

struct shim_info {
    bool phys32_entry, is64;
    uint64_t entry;
    char guest_os[64], version[128], build_id[41];
};

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
    } else if (!strcmp(name, "pvshim") && type == 1 /* our build string, when there is one */) {
        snprintf(si->version, sizeof(si->version), "%.*s", (int)dsz, (const char *)d);
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

/* Reports on the shim at path; returns EX_OK or EX_NOSHIM. */
static int check_shim(const char *path)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        printf("shim:     NOT INSTALLED at %s (%s)\n", path, !f ? strerror(errno) : "not a file");
        if (f)
            fclose(f);
        return EX_NOSHIM;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *b = len && len < (256u << 20) ? malloc(len) : NULL;
    bool ok = b && fread(b, 1, len, f) == len;
    fclose(f);
    struct shim_info si = { 0 };
    if (!ok || !elf_notes(&si, b, len)) {
        printf("shim:     %s is not an ELF image: not a usable shim\n", path);
        free(b);
        return EX_NOSHIM;
    }
    uint64_t h = 0xcbf29ce484222325ull;    /* FNV-1a 64 of the file: tells builds apart */
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    const char *kind = memmem(b, len, "pvshim starting", 15) ? "this project's pvshim"
                     : memmem(b, len, "Xen version", 11) ? "Xen's stock shim (xen-shim)"
                     : "unknown kind";
    free(b);
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", gmtime(&st.st_mtime));
    printf("shim:     %s: %s, ELF%d, %zu bytes, modified %s UTC, fingerprint %016llx\n", path,
           kind, si.is64 ? 64 : 32, len, when, (unsigned long long)h);
    if (si.version[0])
        printf("shim:     version %s\n", si.version);
    if (si.build_id[0])
        printf("shim:     build-id %s\n", si.build_id);
    if (!si.phys32_entry) {
        printf("shim:     no XEN_ELFNOTE_PHYS32_ENTRY note: Xen cannot boot it as PVH\n");
        return EX_NOSHIM;
    }
    printf("shim:     PVH entry 0x%llx\n", (unsigned long long)si.entry);
    return EX_OK;
}

int cmd_check(int argc, char **argv)
{
    static const struct option lo[] = {
        { "shim", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *shim = DEFAULT_SHIM_PATH;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
        if (c == 'h') {
            usage(usage_check, stdout);
            return EX_OK;
        }
        if (c == 's') {
            shim = optarg;
            continue;
        }
        err("check: bad option %s (see xl-shim check --help)", argv[optind - 1]);
        return EX_USAGE;
    }
    if (optind != argc) {
        err("check takes no arguments (see xl-shim check --help)");
        return EX_USAGE;
    }

    int code = EX_OK;
    char why[256];
    xc_interface *xch = open_xen(why, sizeof(why));
    if (!xch) {
        printf("xen:      NO: %s\n", why);
        code = EX_NOXEN;
    } else {
        int v = xc_version(xch, XENVER_version, NULL);
        xen_extraversion_t extra = "";
        xc_version(xch, XENVER_extraversion, &extra);
        printf("xen:      yes, Xen %d.%d%.*s\n", v >> 16, v & 0xffff, (int)sizeof(extra), extra);
        xc_physinfo_t pi = { 0 };
        if (xc_physinfo(xch, &pi)) {
            printf("pvh:      unknown (physinfo failed: %s)\n", strerror(errno));
        } else {
            bool hvm = pi.capabilities & XEN_SYSCTL_PHYSCAP_hvm;
            printf("pvh:      %s (hvm %s, hap %s, shadow %s; pv %s)\n",
                   hvm ? "supported" : "NOT supported: no HVM on this host",
                   hvm ? "yes" : "no", pi.capabilities & XEN_SYSCTL_PHYSCAP_hap ? "yes" : "no",
                   pi.capabilities & XEN_SYSCTL_PHYSCAP_shadow ? "yes" : "no",
                   pi.capabilities & XEN_SYSCTL_PHYSCAP_pv ? "yes" : "no");
            if (!hvm)
                code = EX_NOXEN;
        }
        xc_interface_close(xch);
    }
    int s = check_shim(shim);
    if (code == EX_OK)
        code = s;
    fflush(stdout);    /* the report first, then the one-line verdict on stderr */
    if (code == EX_NOXEN)
        err("no usable Xen: %s", xch ? "this host cannot run PVH guests" : why);
    else if (code == EX_NOSHIM)
        err("the shim is not usable at %s (install it: make -C tools/xl-shim install)", shim);
    return code;
}
