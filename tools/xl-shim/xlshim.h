/* xlshim.h: what the parts of xl-shim share: exit codes, options, the shim memory formula. */
#ifndef XLSHIM_H
#define XLSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define XLSHIM_VERSION      "0.1"
#define DEFAULT_SHIM_PATH   "/usr/lib/xen/boot/pvshim"

/* Exit codes: one per kind of failure (documented in --help and xl-shim.1). */
enum {
    EX_OK = 0,
    EX_USAGE = 1,       /* bad command line */
    EX_NOREAD = 2,      /* config missing or unreadable */
    EX_SYNTAX = 3,      /* config does not parse, or a value xl would reject */
    EX_NOTPV = 4,       /* config is not a PV guest (HVM, or already PVH) */
    EX_NOXEN = 5,       /* no Xen here (check, create) */
    EX_XL = 6,          /* xl could not be run, or xl create failed */
    EX_NOTOURS = 7,     /* stats: the domain does not run this project's shim (no stats page) */
    EX_INTERNAL = 8,    /* out of memory, cannot write output or temp file */
    EX_NOSHIM = 9,      /* check: Xen is fine but the shim is not installed/usable;
                           stats: the domain's shim image cannot be read */
    EX_NODOMAIN = 10,   /* stats: no such domain, or it is being destroyed */
    EX_PERM = 11,       /* stats: Xen is there but we may not use it (not root in dom0) */
};

struct conv_opts {
    const char *shim_path;      /* pvshim_path= */
    const char *shim_args;      /* pvshim_extra=, or NULL */
    bool keep_memory;           /* do not add the shim's overhead */
};

/*
 * The shim's memory overhead, in one place. Our shim keeps 4 MiB + 1/512 of the domain's RAM
 * for itself (shim/mm.c, shim_frames_wanted(); changeable with its shim_mem= option), so a
 * guest that had G MiB as plain PV needs a domain of T MiB with T - (4 + T/512) >= G:
 * T = ceil((G + 4) * 512 / 511), computed in KiB and rounded up to whole MiB.
 */
#define SHIM_MEM_FIXED_KIB  4096L
#define SHIM_MEM_DIVISOR    512L
static inline long shim_domain_mib(long guest_mib)
{
    long g = guest_mib * 1024 + SHIM_MEM_FIXED_KIB;
    long t_kib = (g * SHIM_MEM_DIVISOR + SHIM_MEM_DIVISOR - 2) / (SHIM_MEM_DIVISOR - 1);
    return (t_kib + 1023) / 1024;
}

/* libxl's default when a PV config gives no memory= (libxl__domain_build_info_setdefault). */
#define LIBXL_DEFAULT_MEMORY_MIB 32L

/* convert.c: the text of the converted config (malloc'd) or NULL with *code set and one
 * line printed. Warnings go to stderr. */
char *convert_config(const char *path, const struct conv_opts *o, int *code);

int cmd_convert(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stats(int argc, char **argv);

/* check.c: is Xen there? EX_OK, or EX_NOXEN / EX_PERM with one line in why. */
int xen_present(char *why, size_t n);
struct xentoollog_logger;
extern struct xentoollog_logger xlshim_quiet;  /* for libxen* handles: we report errors ourselves */

/* shimimg.c: what a shim image file says about itself. */
struct shim_info {
    bool phys32_entry, is64, has_stats;
    uint64_t entry;
    char guest_os[64], version[128], build_id[41];
    uint64_t stats_paddr;               /* PVSHIM_ELFNOTE_STATS, if has_stats */
    uint32_t stats_size, stats_version;
    const char *kind;                   /* "this project's pvshim", "Xen's stock shim", ... */
    uint64_t fingerprint;               /* FNV-1a 64 of the file */
    size_t size;
    time_t mtime;
};
enum { SHIM_IMG_NOFILE = 1, SHIM_IMG_NOTELF = 2 };
/* 0, or SHIM_IMG_* with the reason in why. */
int shim_image_read(const char *path, struct shim_info *si, char *why, size_t n);

/* statsfmt.c: check a copy of a stats page and print it; EX_OK or EX_NOTOURS (one line said). */
struct pvshim_stats;
struct stats_ctx {
    const char *what;                   /* where the page came from, for messages */
    const char *domain;                 /* "domain 3 (web01)", or NULL */
    const char *state;                  /* "running", "shut down (poweroff)", ... or NULL */
    bool json;
};
int stats_print(const struct pvshim_stats *p, size_t len, const struct stats_ctx *c);

void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern const char exit_codes_help[];
extern const char usage_check[];
extern const char usage_stats[];
void usage(const char *text, FILE *f);

#endif
