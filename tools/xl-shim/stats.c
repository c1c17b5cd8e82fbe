/*
 * stats.c: xl-shim stats DOMAIN: the counters of the shim a domain runs in. The domain's config
 * (libxl) names its shim image; the image's "pvshim" ELF note says which guest frame holds the
 * stats page; we map that frame read-only (libxenforeignmemory) and take a consistent copy
 * under the page's sequence count (include/public/pvshim-stats.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <libxl.h>
#include <libxl_utils.h>
#include <xenforeignmemory.h>

#include "pvshim-stats.h"
#include "xlshim.h"

static const char *const reasons[] = { "poweroff", "reboot", "suspend", "crash", "watchdog",
                                       "soft_reset" };

/* A consistent copy of the mapped page: retry while the shim is writing (odd count) or
 * wrote meanwhile (count changed). Gives up after about a second. */
static bool snapshot(const volatile struct pvshim_stats *m, struct pvshim_stats *out)
{
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t g = __atomic_load_n(&m->generation, __ATOMIC_ACQUIRE);
        if (!(g & 1)) {
            memcpy(out, (const void *)m, sizeof(*out));
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (__atomic_load_n(&m->generation, __ATOMIC_RELAXED) == g) {
                out->generation = g;
                return true;
            }
        }
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    }
    memcpy(out, (const void *)m, sizeof(*out));
    return false;
}

/* --page FILE: a saved page (tests, or a copy taken elsewhere). */
static int stats_from_file(const char *path, struct stats_ctx *c)
{
    static struct pvshim_stats page;
    FILE *f = fopen(path, "rb");
    if (!f) {
        err("cannot read %s: %s", path, strerror(errno));
        return EX_NOREAD;
    }
    size_t len = fread(&page, 1, sizeof(page), f);
    fclose(f);
    c->what = path;
    return stats_print(&page, len, c);
}

struct dom {
    libxl_ctx *ctx;
    uint32_t domid;
    libxl_dominfo info;
    libxl_domain_config cfg;
    char label[160], state[64], what[200];
};

/* Find the domain and its shim image; EX_OK with d filled, or an exit code (one line said). */
static int find_domain(struct dom *d, const char *q, struct shim_info *si)
{
    if (libxl_domain_qualifier_to_domid(d->ctx, q, &d->domid)) {
        err("no domain '%s'", q);
        return EX_NODOMAIN;
    }
    if (libxl_domain_info(d->ctx, &d->info, d->domid)) {
        err("no domain '%s' (domid %u is not running)", q, d->domid);
        return EX_NODOMAIN;
    }
    char *name = libxl_domid_to_name(d->ctx, d->domid);
    snprintf(d->label, sizeof(d->label), "domain %u (%s)", d->domid, name ? name : "?");
    free(name);
    if (d->info.dying) {
        err("%s is being destroyed: its memory is going", d->label);
        return EX_NODOMAIN;
    }
    if (d->info.shutdown) {
        unsigned r = d->info.shutdown_reason;
        snprintf(d->state, sizeof(d->state), "shut down (%s), kept by on_* = \"preserve\"",
                 r < sizeof(reasons) / sizeof(reasons[0]) ? reasons[r] : "unknown");
    } else {
        snprintf(d->state, sizeof(d->state), "%s", d->info.paused ? "paused" : "running");
    }
    if (libxl_retrieve_domain_configuration(d->ctx, d->domid, &d->cfg, NULL)) {
        err("%s: cannot get its configuration from libxl", d->label);
        return EX_NOTOURS;
    }
    const libxl_domain_build_info *b = &d->cfg.b_info;
    if (b->type != LIBXL_DOMAIN_TYPE_PVH || !libxl_defbool_val(b->u.pvh.pvshim)) {
        err("%s is a %s domain without a shim: no shim counters", d->label,
            libxl_domain_type_to_string(b->type));
        return EX_NOTOURS;
    }
    const char *path = b->u.pvh.pvshim_path;
    char why[128];
    if (!path || !*path) {
        err("%s: libxl does not say which shim image it runs", d->label);
        return EX_NOTOURS;
    }
    int rc = shim_image_read(path, si, why, sizeof(why));
    if (rc) {
        err("%s: cannot read its shim image %s: %s", d->label, path, why);
        return rc == SHIM_IMG_NOFILE ? EX_NOSHIM : EX_NOTOURS;
    }
    if (!si->has_stats) {
        err("%s runs %s (%s), which has no stats page: not this project's shim", d->label, path,
            si->kind);
        return EX_NOTOURS;
    }
    if (si->stats_paddr & 0xfff || si->stats_size != PVSHIM_STATS_SIZE) {
        err("%s: the stats note of %s is damaged (page %#llx, %u bytes)", d->label, path,
            (unsigned long long)si->stats_paddr, si->stats_size);
        return EX_NOTOURS;
    }
    snprintf(d->what, sizeof(d->what), "%s, frame %#llx (from %s)", d->label,
             (unsigned long long)(si->stats_paddr >> 12), path);
    return EX_OK;
}

static int stats_from_domain(const char *q, struct stats_ctx *c)
{
    char why[256];
    int code = xen_present(why, sizeof(why));
    if (code) {
        err("%s: %s", code == EX_PERM ? "not allowed" : "no Xen", why);
        return code;
    }
    struct dom d = { 0 };
    struct shim_info si;
    libxl_dominfo_init(&d.info);
    libxl_domain_config_init(&d.cfg);
    if (libxl_ctx_alloc(&d.ctx, LIBXL_VERSION, 0, (xentoollog_logger *)&xlshim_quiet)) {
        err("cannot talk to libxl (is xenstored running?)");
        return EX_NOXEN;
    }
    code = find_domain(&d, q, &si);
    xenforeignmemory_handle *fm = NULL;
    void *map = NULL;
    if (code == EX_OK && !(fm = xenforeignmemory_open((xentoollog_logger *)&xlshim_quiet, 0))) {
        err("cannot open foreign memory mapping: %s", strerror(errno));
        code = errno == EACCES || errno == EPERM ? EX_PERM : EX_INTERNAL;
    }
    if (code == EX_OK) {
        xen_pfn_t pfn = si.stats_paddr >> 12;
        int e = 0;
        map = xenforeignmemory_map(fm, d.domid, PROT_READ, 1, &pfn, &e);
        if (!map || e) {
            e = map ? -e : errno;
            err("%s: cannot map frame %#llx: %s", d.label, (unsigned long long)pfn, strerror(e));
            code = e == EACCES || e == EPERM ? EX_PERM : EX_INTERNAL;
        }
    }
    if (code == EX_OK) {
        static struct pvshim_stats page;
        bool ok = snapshot(map, &page);
        c->what = d.what;
        c->domain = d.label;
        c->state = d.state;
        if (!ok && page.magic == PVSHIM_STATS_MAGIC) {
            err("%s: no consistent snapshot in a second (the shim stopped while writing it?)",
                d.label);
            code = EX_INTERNAL;
        } else {
            code = stats_print(&page, sizeof(page), c);
        }
    }
    if (map)
        xenforeignmemory_unmap(fm, map, 1);
    if (fm)
        xenforeignmemory_close(fm);
    libxl_domain_config_dispose(&d.cfg);
    libxl_dominfo_dispose(&d.info);
    libxl_ctx_free(d.ctx);
    return code;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option lo[] = {
        { "json", no_argument, NULL, 'j' },
        { "page", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct stats_ctx c = { 0 };
    const char *page = NULL;
    int o;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
        switch (o) {
        case 'h':
            usage(usage_stats, stdout);
            return EX_OK;
        case 'j':
            c.json = true;
            break;
        case 'p':
            page = optarg;
            break;
        default:
            if (optopt == 'p')
                err("option --page needs a file");
            else
                err("stats: bad option %s (see xl-shim stats --help)", argv[optind - 1]);
            return EX_USAGE;
        }
    }
    if (page) {
        if (optind != argc) {
            err("stats --page FILE takes no DOMAIN");
            return EX_USAGE;
        }
        return stats_from_file(page, &c);
    }
    if (optind + 1 != argc) {
        err("stats: %s (see xl-shim stats --help)",
            optind == argc ? "which domain?" : "one domain at a time");
        return EX_USAGE;
    }
    return stats_from_domain(argv[optind], &c);
}
