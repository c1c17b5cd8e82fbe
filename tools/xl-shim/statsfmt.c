/* statsfmt.c: checks a copy of a shim's stats page (include/public/pvshim-stats.h) and prints it,
 * as a table or as JSON. No Xen here: the page may come from a domain or from a file. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "pvshim-stats.h"
#include "xen-abi.h"
#include "xlshim.h"

#define HC(n) [__HYPERVISOR_##n] = #n
static const char *const hc_names[PVSHIM_STATS_NR_HC] = {
    HC(set_trap_table), HC(mmu_update), HC(set_gdt), HC(stack_switch), HC(set_callbacks),
    HC(fpu_taskswitch), HC(sched_op_compat), HC(platform_op), HC(set_debugreg),
    HC(get_debugreg), HC(update_descriptor), HC(memory_op), HC(multicall),
    HC(update_va_mapping), HC(set_timer_op), HC(event_channel_op_compat), HC(xen_version),
    HC(console_io), HC(physdev_op_compat), HC(grant_table_op), HC(vm_assist),
    HC(update_va_mapping_otherdomain), HC(iret), HC(vcpu_op), HC(set_segment_base),
    HC(mmuext_op), HC(xsm_op), HC(nmi_op), HC(sched_op), HC(callback_op), HC(xenoprof_op),
    HC(event_channel_op), HC(physdev_op), HC(hvm_op), HC(sysctl), HC(domctl), HC(kexec_op),
    HC(tmem_op), HC(argo_op), HC(xenpmu_op), HC(dm_op), HC(hypfs_op), [__HYPERVISOR_arch_0] = "mca",
};

static const char *const reasons[] = { "poweroff", "reboot", "suspend", "crash", "watchdog",
                                       "soft_reset" };

/* The single counters after the hypercall tables, in page order: JSON key, table label. */
#define ONE(f, label) { #f, label, __builtin_offsetof(struct pvshim_stats, f) }
static const struct { const char *key, *label; size_t off; } singles[] = {
    ONE(bounces, "exceptions bounced to the guest"),
    ONE(emulated, "instructions emulated"),
    ONE(ipis_sent, "IPIs sent"),
    ONE(tlb_flush_local, "TLB flushes, local"),
    ONE(tlb_flush_remote_assisted, "TLB flushes, remote by L0"),
    ONE(tlb_flush_remote_ipi, "TLB flushes, remote by IPI"),
    ONE(flush_wait_ns, "ns waiting for remote flushes"),
    ONE(cr4_writes, "CR4 writes"),
    ONE(pt_validations, "page-table validations"),
};

static uint64_t single(const struct pvshim_stats *p, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)p + singles[i].off, sizeof(v));
    return v;
}

static void hc_name(unsigned i, char *buf, size_t n)
{
    if (hc_names[i])
        snprintf(buf, n, "%s", hc_names[i]);
    else
        snprintf(buf, n, "hypercall_%u", i);
}

static void table_hc(const char *title, uint64_t total, const uint64_t *by_nr)
{
    char name[40];
    printf("%-34s %14llu\n", title, (unsigned long long)total);
    for (unsigned i = 0; i < PVSHIM_STATS_NR_HC; i++)
        if (by_nr[i]) {
            hc_name(i, name, sizeof(name));
            printf("  %-32s %14llu\n", name, (unsigned long long)by_nr[i]);
        }
}

static void json_hc(const char *key, uint64_t total, const uint64_t *by_nr)
{
    char name[40];
    const char *sep = "";
    printf(",\n  \"%s\": %llu,\n  \"%s_by_op\": {", key, (unsigned long long)total, key);
    for (unsigned i = 0; i < PVSHIM_STATS_NR_HC; i++)
        if (by_nr[i]) {
            hc_name(i, name, sizeof(name));
            printf("%s\"%s\": %llu", sep, name, (unsigned long long)by_nr[i]);
            sep = ", ";
        }
    printf("}");
}

/* Strings in the page are the shim's: print only what is printable. */
static void clean(char *d, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n && s[i]; i++)
        d[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    d[i] = 0;
}

/* A JSON string value (or null), escaped. */
static void json_str(const char *key, const char *s, const char *after)
{
    printf("  \"%s\": ", key);
    if (!s) {
        printf("null%s", after);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    printf("\"%s", after);
}

int stats_print(const struct pvshim_stats *p, size_t len, const struct stats_ctx *c)
{
    if (len < 16 || p->magic != PVSHIM_STATS_MAGIC) {
        err("%s: no pvshim stats page there (magic %016llx): not this project's shim",
            c->what, len < 8 ? 0ull : (unsigned long long)p->magic);
        return EX_NOTOURS;
    }
    if (p->version != PVSHIM_STATS_VERSION) {
        err("%s: stats page version %u, this xl-shim reads version %u (use a matching xl-shim)",
            c->what, p->version, PVSHIM_STATS_VERSION);
        return EX_NOTOURS;
    }
    size_t need = __builtin_offsetof(struct pvshim_stats, reserved);
    if (len < need) {
        err("%s: only %zu bytes, a stats page has %d: truncated", c->what, len, PVSHIM_STATS_SIZE);
        return EX_NOTOURS;
    }
    if (p->size < need || p->size > PVSHIM_STATS_SIZE) {
        err("%s: stats page claims %u bytes, want %zu..%d: damaged", c->what, p->size, need,
            PVSHIM_STATS_SIZE);
        return EX_NOTOURS;
    }
    if (p->generation & 1) {
        err("%s: the shim was writing the snapshot (generation %llu): try again", c->what,
            (unsigned long long)p->generation);
        return EX_INTERNAL;
    }

    char build[sizeof(p->build) + 1], l0[sizeof(p->l0) + 1], when[64];
    clean(build, p->build, sizeof(p->build));
    clean(l0, p->l0, sizeof(p->l0));
    bool final = p->flags & PVSHIM_STATS_FINAL;
    const char *why = p->shutdown_reason < sizeof(reasons) / sizeof(reasons[0])
                      ? reasons[p->shutdown_reason] : "unknown";
    if (!p->generation)
        snprintf(when, sizeof(when), "none yet (the shim has not started counting)");
    else if (final)
        snprintf(when, sizeof(when), "final, at the shim's shutdown (%s)", why);
    else
        snprintf(when, sizeof(when), "live, refreshed every %u ms", p->publish_interval_ms);

    if (c->json) {
        printf("{\n");
        json_str("domain", c->domain, ",\n");
        json_str("state", c->state, ",\n");
        json_str("build", build, ",\n");
        printf("  \"abi\": %u,\n", p->version);
        json_str("l0", l0, ",\n");
        printf("  \"cpus\": %u,\n  \"snapshot\": %llu,\n  \"final\": %s,\n", p->nr_cpus,
               (unsigned long long)p->nr_snapshots, final ? "true" : "false");
        json_str("shutdown_reason", final ? why : NULL, ",\n");
        printf("  \"uptime_ns\": %llu", (unsigned long long)p->uptime_ns);
        json_hc("guest_hypercalls", p->guest_hypercalls, p->guest_hypercall);
        json_hc("l0_hypercalls", p->l0_hypercalls, p->l0_hypercall);
        for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); i++)
            printf(",\n  \"%s\": %llu", singles[i].key, (unsigned long long)single(p, i));
        printf("\n}\n");
        return EX_OK;
    }
    if (c->domain)
        printf("%s: %s\n", c->domain, c->state ? c->state : "");
    if (!p->generation) {
        printf("shim: %s (stats ABI %u)\nsnapshot: %s\n", build, p->version, when);
        return EX_OK;
    }
    printf("shim: %s (stats ABI %u), L0 %s, %u CPU%s\n", build, p->version, l0, p->nr_cpus,
           p->nr_cpus == 1 ? "" : "s");
    printf("snapshot: %s; shim uptime %llu.%03llu s\n\n", when,
           (unsigned long long)(p->uptime_ns / 1000000000), (unsigned long long)(p->uptime_ns / 1000000 % 1000));
    table_hc("guest hypercalls", p->guest_hypercalls, p->guest_hypercall);
    table_hc("hypercalls to L0", p->l0_hypercalls, p->l0_hypercall);
    for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); i++)
        printf("%-34s %14llu\n", singles[i].label, (unsigned long long)single(p, i));
    return EX_OK;
}
