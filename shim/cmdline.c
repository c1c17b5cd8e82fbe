/* cmdline.c: parses the shim's command line into struct shim_opts; unknown options become notes. */
#include "shim/cmdline.h"

struct span {
    const char *s;
    size_t n;
};

static bool span_eq(struct span a, const char *lit)
{
    return strlen(lit) == a.n && !memcmp(a.s, lit, a.n);
}

static void note(struct shim_opts *o, const char *what, struct span a, struct span b)
{
    if (o->nr_notes >= CMDLINE_MAX_NOTES)
        return;
    snprintf_(o->notes[o->nr_notes++], sizeof(o->notes[0]), "%s '%.*s%s%.*s'", what,
              (int)MIN(a.n, 24), a.s, b.s ? "=" : "", (int)MIN(b.n, 24), b.s ? b.s : "");
}

void cmdline_defaults(struct shim_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->loglvl = o->loglvl_rl = -1;
    o->guest_loglvl = o->guest_loglvl_rl = -1;
    o->global_pages = o->tlb_clock = o->assisted_flush = o->l0_steal = o->xsave = o->cpuid_faulting = o->evtchn_fifo = o->xpti = -1;
}

bool parse_bool(const char *s, size_t len, bool *val)
{
    static const char *const yes[] = { "1", "yes", "true", "on", "enable" };
    static const char *const no[] = { "0", "no", "false", "off", "disable" };
    struct span v = { s, len };

    for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
        if (span_eq(v, yes[i])) {
            *val = true;
            return true;
        }
        if (span_eq(v, no[i])) {
            *val = false;
            return true;
        }
    }
    return false;
}

/* Xen's size syntax: a number with an optional T/G/M/K/B suffix; no suffix means KiB. */
bool parse_size(const char *s, size_t len, uint64_t *bytes)
{
    uint64_t v;
    size_t used;
    char tmp[32];

    if (!len || len >= sizeof(tmp))
        return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    used = parse_ulong(tmp, &v);
    if (!used)
        return false;
    unsigned shift = 10;
    if (used < len) {
        if (used + 1 != len)
            return false;
        switch (tmp[used] | 0x20) {
        case 't': shift = 40; break;
        case 'g': shift = 30; break;
        case 'm': shift = 20; break;
        case 'k': shift = 10; break;
        case 'b': shift = 0; break;
        default: return false;
        }
    }
    if (shift && v > (UINT64_MAX >> shift))
        return false;
    *bytes = v << shift;
    return true;
}

static const char *const level_names[] = { "none", "error", "warning", "info", "debug" };

const char *log_level_name(int lvl)
{
    return lvl >= 0 && lvl < (int)ARRAY_SIZE(level_names) ? level_names[lvl] : "?";
}

static bool parse_level(struct span v, int *lvl)
{
    if (span_eq(v, "all")) {
        *lvl = LOG_DEBUG;
        return true;
    }
    for (size_t i = 0; i < ARRAY_SIZE(level_names); i++) {
        if (span_eq(v, level_names[i])) {
            *lvl = (int)i;
            return true;
        }
    }
    return false;
}

/* loglvl=<level>[/<rate-limited level>] */
static bool parse_loglvl(struct span v, int *lvl, int *rl)
{
    const char *slash = memchr(v.s, '/', v.n);
    struct span a = { v.s, slash ? (size_t)(slash - v.s) : v.n };
    int l, r = -1;

    if (!parse_level(a, &l))
        return false;
    if (slash) {
        struct span b = { slash + 1, v.n - a.n - 1 };
        if (!parse_level(b, &r))
            return false;
    }
    *lvl = l;
    *rl = r;
    return true;
}

static bool parse_console(struct span v, unsigned *mask)
{
    unsigned m = 0;
    const char *p = v.s, *end = v.s + v.n;

    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        struct span item = { p, c ? (size_t)(c - p) : (size_t)(end - p) };
        if (span_eq(item, "com1"))
            m |= CONS_COM1;
        else if (span_eq(item, "xen"))
            m |= CONS_XEN;
        else if (span_eq(item, "pv"))
            m |= CONS_PV;
        else if (span_eq(item, "none"))
            m |= CONS_NONE;
        else if (item.n)
            return false;
        p = item.s + item.n + 1;
    }
    *mask = m ? m : CONS_NONE;
    return true;
}

/* shim_mem=[min:<size>,][max:<size>,][<size>] */
static bool parse_shim_mem(struct span v, struct shim_opts *o)
{
    const char *p = v.s, *end = v.s + v.n;
    uint64_t mn = 0, mx = 0, sz = 0;

    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
        if (n > 4 && !memcmp(p, "min:", 4)) {
            if (!parse_size(p + 4, n - 4, &mn))
                return false;
        } else if (n > 4 && !memcmp(p, "max:", 4)) {
            if (!parse_size(p + 4, n - 4, &mx))
                return false;
        } else if (!parse_size(p, n, &sz)) {
            return false;
        }
        p += n + 1;
    }
    o->shim_mem = sz;
    o->shim_mem_min = mn;
    o->shim_mem_max = mx;
    return true;
}

/* Boolean options: "name", "name=<bool>" and "no-name". */
static bool parse_tristate(struct span name, struct span val, bool has_val, bool negated, int *out)
{
    bool b = true;

    if (has_val && (negated || !parse_bool(val.s, val.n, &b)))
        return false;
    *out = negated ? 0 : b;
    return true;
}

static void parse_one(struct span name, struct span val, bool has_val, struct shim_opts *o)
{
    bool negated = name.n > 3 && !memcmp(name.s, "no-", 3);
    struct span base = negated ? (struct span){ name.s + 3, name.n - 3 } : name;
    struct span shown_val = has_val ? val : (struct span){ NULL, 0 };
    bool ok = true;

    if (span_eq(name, "pv-shim")) {
        bool b = true;
        ok = !has_val || parse_bool(val.s, val.n, &b);
        o->pv_shim = b;
    } else if (span_eq(name, "console")) {
        ok = has_val && parse_console(val, &o->console);
    } else if (span_eq(name, "loglvl")) {
        ok = has_val && parse_loglvl(val, &o->loglvl, &o->loglvl_rl);
    } else if (span_eq(name, "guest_loglvl")) {
        ok = has_val && parse_loglvl(val, &o->guest_loglvl, &o->guest_loglvl_rl);
    } else if (span_eq(name, "shim_mem")) {
        ok = has_val && parse_shim_mem(val, o);
    } else if (span_eq(base, "global-pages")) {
        ok = parse_tristate(base, val, has_val, negated, &o->global_pages);
    } else if (span_eq(base, "tlb-clock")) {
        ok = parse_tristate(base, val, has_val, negated, &o->tlb_clock);
    } else if (span_eq(base, "assisted-flush")) {
        ok = parse_tristate(base, val, has_val, negated, &o->assisted_flush);
    } else if (span_eq(base, "l0-steal")) {
        ok = parse_tristate(base, val, has_val, negated, &o->l0_steal);
    } else if (span_eq(base, "xsave")) {
        ok = parse_tristate(base, val, has_val, negated, &o->xsave);
    } else if (span_eq(base, "cpuid-faulting")) {
        ok = parse_tristate(base, val, has_val, negated, &o->cpuid_faulting);
    } else if (span_eq(base, "xpti")) {
        ok = parse_tristate(base, val, has_val, negated, &o->xpti);
    } else if (span_eq(base, "evtchn-fifo")) {
        ok = parse_tristate(base, val, has_val, negated, &o->evtchn_fifo);
    } else if (span_eq(name, "test-drop-kicks")) {
        /* fault injection for the test suite: proves a halted vCPU survives a lost wakeup */
        unsigned n = 0;
        ok = has_val && val.n > 0 && val.n < 6;
        for (size_t i = 0; ok && i < val.n; i++) {
            ok = val.s[i] >= '0' && val.s[i] <= '9';
            n = n * 10 + (unsigned)(val.s[i] - '0');
        }
        if (ok)
            o->test_drop_kicks = n;
    } else if (span_eq(name, "selftest")) {
        bool b;
        if (!has_val)
            o->selftest = SELFTEST_ON;
        else if (span_eq(val, "fault"))
            o->selftest = SELFTEST_FAULT;
        else if (parse_bool(val.s, val.n, &b))
            o->selftest = b ? SELFTEST_ON : SELFTEST_OFF;
        else
            ok = false;
    } else {
        note(o, "unknown option", name, shown_val);
        return;
    }
    if (!ok)
        note(o, "bad value in", name, shown_val);
}

void cmdline_parse(const char *line, struct shim_opts *o)
{
    const char *p = line;

    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        const char *tok = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        struct span t = { tok, (size_t)(p - tok) };
        if (span_eq(t, "--")) {
            while (*p == ' ' || *p == '\t')
                p++;
            str_copy(o->guest_cmdline, p, sizeof(o->guest_cmdline));
            o->has_guest_cmdline = true;
            break;
        }
        const char *eq = memchr(t.s, '=', t.n);
        struct span name = { t.s, eq ? (size_t)(eq - t.s) : t.n };
        struct span val = { eq ? eq + 1 : t.s + t.n, eq ? t.n - name.n - 1 : 0 };
        if (name.n)
            parse_one(name, val, eq != NULL, o);
        else
            note(o, "unknown option", t, (struct span){ NULL, 0 });
    }
}

const char *cmdline_skip_image_name(const char *line)
{
    const char *p = line, *end;
    struct shim_opts probe;

    while (*p == ' ')
        p++;
    for (end = p; *end && *end != ' '; end++)
        ;
    if (end == p)
        return p;
    bool has_slash = memchr(p, '/', (size_t)(end - p)) != NULL;
    bool has_eq = memchr(p, '=', (size_t)(end - p)) != NULL;
    if (!has_slash) {
        if (has_eq || (end - p == 2 && p[0] == '-' && p[1] == '-'))
            return p;
        /* A bare word: keep it only if it is a known option. */
        char word[40];
        if ((size_t)(end - p) >= sizeof(word))
            return end;
        memcpy(word, p, (size_t)(end - p));
        word[end - p] = '\0';
        cmdline_defaults(&probe);
        cmdline_parse(word, &probe);
        if (probe.nr_notes == 0)
            return p;
    }
    while (*end == ' ')
        end++;
    return end;
}
