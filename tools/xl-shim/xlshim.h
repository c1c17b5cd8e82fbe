/* xlshim.h: what the parts of xl-shim share: exit codes, options, the shim memory formula. */
#ifndef XLSHIM_H
#define XLSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
    EX_NOTIMPL = 7,     /* command not implemented yet (stats) */
    EX_INTERNAL = 8,    /* out of memory, cannot write output or temp file */
    EX_NOSHIM = 9,      /* check: Xen is fine but the shim is not installed/usable */
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

/* check.c: is Xen there? 0 = yes; else one line in why. */
int xen_present(char *why, size_t n);

void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern const char exit_codes_help[];
extern const char usage_check[];
void usage(const char *text, FILE *f);

#endif
