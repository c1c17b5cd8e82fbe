/* convert.c: turns a PV guest's xl config into one that runs it in the shim (libxlutil parses). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libxlutil.h>

#include "xlshim.h"

/* Settings the converted config sets itself: their old lines are commented out. */
static const char *const replaced[] = {
    "type", "builder", "memory", "maxmem", "pvshim", "pvshim_path", "pvshim_extra", NULL,
};

/* Other xl.cfg(5) settings: a line that sets one of these next to a replaced one stays as it is
 * (the appended settings still win: for xl the last assignment counts). */
static const char *const known[] = {
    "name", "uuid", "kernel", "ramdisk", "extra", "root", "cmdline", "firmware", "bootloader",
    "bootloader_args", "vcpus", "maxvcpus", "cpus", "cpus_soft", "cpu_weight", "cap", "pool",
    "disk", "vif", "vfb", "vkb", "vtpm", "p9", "pvcalls", "channel", "usbctrl", "usbdev",
    "on_poweroff", "on_reboot", "on_watchdog", "on_crash", "on_soft_reset", "seclabel",
    "init_seclabel", "max_grant_frames", "max_maptrack_frames", "max_event_channels",
    "e820_host", "pci", "iomem", "ioports", "irqs", "cpuid", "tsc_mode", "localtime",
    "rtc_timeoffset", "nomigrate", "driver_domain", "device_tree", "vnc", "sdl", "vncdisplay",
    "vnclisten", "gfx_passthru", "videoram", "shadow_memory", "hap", "oos", "pvh", "acpi",
    "pvshim_cmdline", "nestedhvm", "altp2m", "vnuma", "claim_mode", "vsnd", "vdispl",
    "passthrough", "dtdev", "blkdev_start", NULL,
};

/* ---- libxlutil helpers ------------------------------------------------------------------ */

static bool defined(const XLU_Config *c, const char *k)
{
    const char *s;
    return xlu_cfg_get_string(c, k, &s, 1) != ESRCH;
}

static const char *str(const XLU_Config *c, const char *k)
{
    const char *s;
    return xlu_cfg_get_string(c, k, &s, 1) ? NULL : s;
}

/* Parse text; the report (libxlutil's messages) goes to *report if given. */
static XLU_Config *parse(const char *name, const char *text, size_t len, char **report)
{
    char *rbuf = NULL;
    size_t rlen = 0;
    FILE *rep = report ? open_memstream(&rbuf, &rlen) : fopen("/dev/null", "w");
    if (!rep)
        return NULL;
    XLU_Config *c = xlu_cfg_init(rep, name);
    int e = c ? xlu_cfg_readdata(c, text, (int)len) : ENOMEM;
    if (e && c) {
        xlu_cfg_destroy(c);
        c = NULL;
    }
    fclose(rep);    /* xlu_cfg_destroy does not close the report */
    if (report)
        *report = rbuf;
    else
        free(rbuf);
    return c;
}

/* ---- reading ---------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len, int *code)
{
    struct stat st;
    FILE *f = fopen(path, "r");
    if (!f || fstat(fileno(f), &st) || S_ISDIR(st.st_mode)) {
        err("cannot read config %s: %s", path, !f ? strerror(errno) : "is a directory");
        if (f)
            fclose(f);
        *code = EX_NOREAD;
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, (cap *= 2) + 1);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    if (!b || rerr) {
        err("cannot read config %s: %s", path, b ? "read error" : "out of memory");
        free(b);
        *code = b ? EX_NOREAD : EX_INTERNAL;
        return NULL;
    }
    b[n] = 0;
    if (strlen(b) != n) {
        err("cannot read config %s: it contains NUL bytes (not a text file)", path);
        free(b);
        *code = EX_NOREAD;
        return NULL;
    }
    *len = n;
    return b;
}

/* ---- what kind of guest (xl's own rules: xl_parse.c, prefix matches included) -------------- */

enum gtype { G_PV, G_PVH, G_HVM };

static int guest_type(const XLU_Config *c, const char *path, enum gtype *t, const char **why)
{
    const char *s;
    int have_type = 0;

    if (defined(c, "type")) {
        if (!(s = str(c, "type"))) {
            err("%s: type= must be a string", path);
            return EX_SYNTAX;
        }
        size_t n = strlen(s);
        if (!strncmp(s, "hvm", n))
            *t = G_HVM;
        else if (!strncmp(s, "pv", n))
            *t = G_PV;
        else if (!strncmp(s, "pvh", n))
            *t = G_PVH;
        else {
            err("%s: invalid domain type type=\"%s\" (xl knows pv, pvh, hvm)", path, s);
            return EX_SYNTAX;
        }
        have_type = 1;
        *why = "type";
    }
    if (defined(c, "builder")) {
        if (!(s = str(c, "builder"))) {
            err("%s: builder= must be a string", path);
            return EX_SYNTAX;
        }
        size_t n = strlen(s);
        enum gtype b;
        if (!strncmp(s, "hvm", n))
            b = G_HVM;
        else if (!strncmp(s, "generic", n))
            b = G_PV;
        else {
            err("%s: invalid builder=\"%s\" (xl knows generic, hvm)", path, s);
            return EX_SYNTAX;
        }
        if (have_type && b != *t) {
            err("%s: contradicting builder= and type= settings", path);
            return EX_SYNTAX;
        }
        *t = b;
        *why = "builder";
    } else if (!have_type) {
        *t = G_PV;
    }
    return EX_OK;
}

/* ---- warnings ---------------------------------------------------------------------------- */

/* Settings that, when present (any of keys), always get the same advice. */
struct fixed_warning {
    const char *keys[3];
    const char *text;
};
static const struct fixed_warning fixed_warnings[] = {
    { { "pci" }, "pci= kept, but libxl refuses it for PVH (\"passthrough not yet supported for x86 "
                 "PVH guests\"); remove it or keep this guest as plain PV" },
    { { "iomem", "ioports", "irqs" }, "iomem=/ioports=/irqs= are PV hardware access the shim does not "
                 "pass on; remove them or keep this guest as plain PV" },
    { { "e820_host" }, "e820_host= is a PV-only option and is ignored for PVH; the shim gives the "
                 "guest its own memory map" },
    { { "gfx_passthru" }, "gfx_passthru= is HVM-only and does nothing for a shim guest; remove it" },
    { { "vnc", "sdl" }, "vnc=/sdl= are HVM emulated-display options and do nothing for a shim guest; "
                 "use vfb=[\"vnc=1\"] for a PV framebuffer" },
    { { "cpuid" }, "cpuid= now applies to the shim's PVH container; the guest sees CPUID through the "
                 "shim, so check the features it needs" },
    { { "pvh" }, "pvh= is the obsolete PVHv1 switch and is ignored; type=\"pvh\" replaces it" },
    { { "pvshim_cmdline" }, "pvshim_cmdline= kept: it replaces the shim's default command line "
                 "(\"pv-shim console=xen,pv\")" },
};

static void warn_settings(const XLU_Config *c, const struct conv_opts *o, long mem, long maxmem)
{
    const char *s = str(c, "bootloader");
    if (defined(c, "bootloader"))
        warn("bootloader=\"%s\" kept: libxl runs it in dom0 for PVH too and hands the kernel it "
             "finds to the shim, which must then be a PV kernel; to stop dom0 parsing the guest's "
             "disk, use kernel=\"/usr/lib/grub-xen/grub-x86_64-xen.bin\" (PV GRUB, runs inside "
             "the shim) and drop bootloader=", s ? s : "(list)");
    if (!defined(c, "kernel") && !defined(c, "bootloader") && !defined(c, "firmware"))
        warn("no kernel=, firmware= or bootloader=: xl will refuse this config");
    for (size_t i = 0; i < sizeof(fixed_warnings) / sizeof(fixed_warnings[0]); i++) {
        const struct fixed_warning *w = &fixed_warnings[i];
        bool any = false;
        for (size_t k = 0; k < 3 && w->keys[k]; k++)
            any = any || defined(c, w->keys[k]);
        if (any)
            warn("%s", w->text);
    }
    if (maxmem > mem)
        warn("maxmem=%ld > memory=%ld: a PVH domain gets the difference as populate-on-demand "
             "memory; the guest must balloon down to memory= early, or set maxmem=memory",
             maxmem, mem);
    if (o->shim_args && strstr(o->shim_args, "shim_mem=") && !o->keep_memory)
        warn("--shim-args sets shim_mem=: memory= was adjusted for the default overhead "
             "(4 MiB + 1/512 of RAM); check it");
}

/* ---- output ------------------------------------------------------------------------------ */

struct out {
    FILE *f;
    char *buf;
    size_t len;
};

/* A string as an xl.cfg literal; NULL if it has characters we will not write. */
static char *quote(const char *s)
{
    char *q = malloc(2 * strlen(s) + 3), *p = q;
    if (!q)
        return NULL;
    *p++ = '"';
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            free(q);
            return NULL;
        }
        if (*s == '"' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    *p++ = '"';
    *p = 0;
    return q;
}

static bool in(const char *const *list, const XLU_Config *c)
{
    for (; *list; list++)
        if (defined(c, *list))
            return true;
    return false;
}

/* Copy the original text, commenting out the statements that set a replaced setting. Statement
 * boundaries come from libxlutil: the shortest run of lines that parses on its own. */
static void copy_original(struct out *o, const char *text)
{
    size_t nl = 0;
    for (const char *p = text; *p; p++)
        nl += *p == '\n';
    const char **line = calloc(nl + 2, sizeof(*line));
    if (!line) {
        fputs(text, o->f);
        return;
    }
    size_t n = 0;
    for (const char *p = text; *p;) {
        line[n++] = p;
        const char *e = strchr(p, '\n');
        p = e ? e + 1 : p + strlen(p);
    }
    line[n] = text + strlen(text);

    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        XLU_Config *g = NULL;
        for (; j <= n; j++) {
            char *chunk = strndup(line[i], (size_t)(line[j] - line[i]));
            g = chunk ? parse("probe", chunk, strlen(chunk), NULL) : NULL;
            free(chunk);
            if (g)
                break;
        }
        if (j > n)
            j = n;
        bool drop = g && in(replaced, g) && !in(known, g);
        if (g)
            xlu_cfg_destroy(g);
        for (size_t k = i; k < j; k++) {
            if (drop)
                fputs("#xl-shim# ", o->f);
            fwrite(line[k], 1, (size_t)(line[k + 1] - line[k]), o->f);
        }
        i = j;
    }
    if (n && line[n][-1] != '\n')
        fputc('\n', o->f);
    free(line);
}

/* Re-read what we wrote with libxlutil: it must parse and say what we meant. */
static bool verify(const char *text, const struct conv_opts *o, long memory)
{
    XLU_Config *c = parse("converted", text, strlen(text), NULL);
    long l;
    bool ok = c && str(c, "type") && !strcmp(str(c, "type"), "pvh") && !defined(c, "builder") &&
              !xlu_cfg_get_long(c, "pvshim", &l, 1) && l == 1 && str(c, "pvshim_path") &&
              !strcmp(str(c, "pvshim_path"), o->shim_path) &&
              !xlu_cfg_get_long(c, "memory", &l, 1) && l == memory;
    if (c)
        xlu_cfg_destroy(c);
    return ok;
}

char *convert_config(const char *path, const struct conv_opts *o, int *code)
{
    size_t len;
    char *text = slurp(path, &len, code), *report = NULL, *res = NULL;
    char *qpath = NULL, *qargs = NULL;
    struct out out = { 0 };
    XLU_Config *c = NULL;

    if (!text)
        return NULL;
    c = parse(path, text, len, &report);
    if (!c) {
        char *nl = report ? strchr(report, '\n') : NULL;
        if (nl)
            *nl = 0;
        err("syntax error: %s", report && *report ? report : path);
        *code = EX_SYNTAX;
        goto done;
    }

    enum gtype t;
    const char *why = NULL;
    if ((*code = guest_type(c, path, &t, &why)))
        goto done;
    if (t != G_PV) {
        err("%s is not a PV guest (%s=\"%s\": %s): only PV guests need the shim", path, why,
            str(c, why), t == G_PVH ? "already PVH" : "an HVM guest");
        *code = EX_NOTPV;
        goto done;
    }

    long mem = LIBXL_DEFAULT_MEMORY_MIB, maxmem = 0;
    int e = xlu_cfg_get_long(c, "memory", &mem, 1);
    if (e == ESRCH)
        mem = LIBXL_DEFAULT_MEMORY_MIB;
    else if (e || mem <= 0) {
        err("%s: memory= must be a positive number of MiB", path);
        *code = EX_SYNTAX;
        goto done;
    }
    e = xlu_cfg_get_long(c, "maxmem", &maxmem, 1);
    if (e == ESRCH)
        maxmem = 0;
    else if (e || maxmem <= 0) {
        err("%s: maxmem= must be a positive number of MiB", path);
        *code = EX_SYNTAX;
        goto done;
    }

    qpath = quote(o->shim_path);
    qargs = o->shim_args ? quote(o->shim_args) : NULL;
    if (!qpath || (o->shim_args && !qargs)) {
        err("--shim and --shim-args must not contain control characters");
        *code = EX_USAGE;
        goto done;
    }

    warn_settings(c, o, mem, maxmem);

    long dom = o->keep_memory ? mem : shim_domain_mib(mem), extra = dom - mem;
    out.f = open_memstream(&out.buf, &out.len);
    if (!out.f) {
        err("out of memory");
        *code = EX_INTERNAL;
        goto done;
    }
    copy_original(&out, text);
    fprintf(out.f, "\n# --- xl-shim %s: run this PV guest inside the PV-shim (a PVH container) ---\n",
            XLSHIM_VERSION);
    if (o->keep_memory)
        fprintf(out.f, "# memory kept as it was (--keep-memory): the shim's share comes out of it\n");
    else
        fprintf(out.f, "# memory: the guest's %ld MiB + %ld MiB for the shim (4 MiB + 1/512 of RAM)\n",
                mem, extra);
    fprintf(out.f, "type = \"pvh\"\npvshim = 1\npvshim_path = %s\n", qpath);
    if (qargs)
        fprintf(out.f, "pvshim_extra = %s\n", qargs);
    fprintf(out.f, "memory = %ld\n", dom);
    if (maxmem)
        fprintf(out.f, "maxmem = %ld\n", maxmem + extra);
    if (fclose(out.f)) {
        out.f = NULL;
        err("out of memory");
        *code = EX_INTERNAL;
        goto done;
    }
    out.f = NULL;
    if (!verify(out.buf, o, dom)) {
        err("internal error: the converted config of %s does not re-parse as intended", path);
        *code = EX_INTERNAL;
        goto done;
    }
    res = out.buf;
    out.buf = NULL;
    *code = EX_OK;
done:
    if (c)
        xlu_cfg_destroy(c);
    free(out.buf);
    free(report);
    free(text);
    free(qpath);
    free(qargs);
    return res;
}
