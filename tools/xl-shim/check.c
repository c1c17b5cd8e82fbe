/* check.c: xl-shim check: Xen (libxenctrl), its version and PVH support, the installed shim. */
#define _GNU_SOURCE
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
xentoollog_logger xlshim_quiet = { quiet_vmessage, NULL, quiet_destroy };

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

static xc_interface *open_xen(char *why, size_t n, int *code)
{
    xc_interface *xch = xc_interface_open(&xlshim_quiet, &xlshim_quiet, 0);
    *code = EX_OK;
    if (!xch) {
        int e = errno;
        *code = under_xen() && (e == EACCES || e == EPERM) ? EX_PERM : EX_NOXEN;
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
    int code;
    xc_interface *xch = open_xen(why, n, &code);
    if (xch)
        xc_interface_close(xch);
    return code;
}

/* Reports on the shim at path; returns EX_OK or EX_NOSHIM. */
static int check_shim(const char *path)
{
    struct shim_info si;
    char why[128];
    int rc = shim_image_read(path, &si, why, sizeof(why));
    if (rc == SHIM_IMG_NOFILE) {
        printf("shim:     NOT INSTALLED at %s (%s)\n", path, why);
        return EX_NOSHIM;
    }
    if (rc) {
        printf("shim:     %s is not an ELF image: not a usable shim\n", path);
        return EX_NOSHIM;
    }
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", gmtime(&si.mtime));
    printf("shim:     %s: %s, ELF%d, %zu bytes, modified %s UTC, fingerprint %016llx\n", path,
           si.kind, si.is64 ? 64 : 32, si.size, when, (unsigned long long)si.fingerprint);
    if (si.version[0])
        printf("shim:     version %s\n", si.version);
    if (si.build_id[0])
        printf("shim:     build-id %s\n", si.build_id);
    if (!si.phys32_entry) {
        printf("shim:     no XEN_ELFNOTE_PHYS32_ENTRY note: Xen cannot boot it as PVH\n");
        return EX_NOSHIM;
    }
    printf("shim:     PVH entry 0x%llx\n", (unsigned long long)si.entry);
    if (si.has_stats)
        printf("shim:     stats page at 0x%llx (ABI %u): xl-shim stats can read its counters\n",
               (unsigned long long)si.stats_paddr, si.stats_version);
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
    xc_interface *xch = open_xen(why, sizeof(why), &code);
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
