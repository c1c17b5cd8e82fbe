/*
 * exitcount: how many hardware-virtualization exits (#VMEXITs) the L0 took for the shim domain,
 * from a xentrace stream on standard input, with the commonest exit reasons. The test bed runs
 * it in dom0 for `run-guest --count-exits`:
 *     mkfifo F; exitcount --vendor amd|intel < F & xentrace -D -e 0x81000 -S 2048 F
 * (event mask 0x81000: VMENTRY and VMEXIT records only; a fifo, as xentrace prints its messages
 * on standard output). It counts until the stream ends (the
 * job's post script stops xentrace) and prints one line:
 *     exits: N in T s, R/s (entries E, lost L records); top: NAME n, ...; where: shim N (RDTSC n),
 *     kernel N (RDTSC n), user N (RDTSC n)
 * T is the time from its start to the stream's end. "where" splits the exits by the RIP they
 * were taken at (parse.h): the shim itself, the guest's kernel, its user space. On SIGUSR1 it
 * prints a running total, so a window of the run can be counted by difference:
 *     exits-mark K: total N rdtsc R shim N rdtsc R kernel N rdtsc R user N rdtsc R
 * (K counts the marks from 1; the records xentrace has not yet handed over are not in it). Lost records (Xen's trace buffer was full
 * before xentrace drained it) make N a lower bound, so a count with any lost says so and exits 3.
 * Exit status: 0, 1 on a malformed stream or read error, 2 on bad options.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

struct name { unsigned code; const char *name; };

/* AMD SVM exit codes (AMD64 APM vol. 2, appendix C); ranges are named in reason_name() */
static const struct name svm_names[] = {
    { 0x60, "INTR" }, { 0x61, "NMI" }, { 0x64, "VINTR" }, { 0x6e, "RDTSC" }, { 0x6f, "RDPMC" },
    { 0x72, "CPUID" }, { 0x74, "IRET" }, { 0x76, "INVD" }, { 0x77, "PAUSE" }, { 0x78, "HLT" },
    { 0x79, "INVLPG" }, { 0x7a, "INVLPGA" }, { 0x7b, "IOIO" }, { 0x7c, "MSR" }, { 0x7f, "SHUTDOWN" },
    { 0x80, "VMRUN" }, { 0x81, "VMMCALL" }, { 0x87, "RDTSCP" }, { 0x89, "WBINVD" }, { 0x8d, "XSETBV" },
    { 0x400, "NPF" },
};
/* Intel VMX basic exit reasons (SDM vol. 3, appendix C) */
static const struct name vmx_names[] = {
    { 0, "EXCEPTION_NMI" }, { 1, "EXT_INTR" }, { 2, "TRIPLE_FAULT" }, { 7, "INTR_WINDOW" },
    { 10, "CPUID" }, { 12, "HLT" }, { 14, "INVLPG" }, { 16, "RDTSC" }, { 18, "VMCALL" },
    { 28, "CR_ACCESS" }, { 29, "DR_ACCESS" }, { 30, "IO" }, { 31, "RDMSR" }, { 32, "WRMSR" },
    { 40, "PAUSE" }, { 44, "APIC_ACCESS" }, { 48, "EPT_VIOLATION" }, { 49, "EPT_MISCONFIG" },
    { 52, "PREEMPT_TIMER" }, { 54, "WBINVD" }, { 55, "XSETBV" },
};

static const char *reason_name(int svm, unsigned r, char *buf, size_t len)
{
    const struct name *t = svm ? svm_names : vmx_names;
    size_t n = svm ? sizeof(svm_names) / sizeof(*t) : sizeof(vmx_names) / sizeof(*t);

    for (size_t i = 0; i < n; i++)
        if (t[i].code == r)
            return t[i].name;
    if (svm && r < 0x40)
        snprintf(buf, len, "%s%u_%s", r & 0x20 ? "DR" : "CR", r & 15, r & 0x10 ? "WRITE" : "READ");
    else if (svm && r < 0x60)
        snprintf(buf, len, "EXC%u", r - 0x40);
    else
        snprintf(buf, len, "exit_%#x", r);
    return buf;
}

static volatile sig_atomic_t mark_wanted;
static void on_usr1(int sig) { (void)sig; mark_wanted = 1; }

static uint64_t where_reason(const struct exits *e, enum exits_where w, unsigned r)
{
    return e->by_where[w][r];
}

static uint64_t where_all(const struct exits *e, enum exits_where w)
{
    uint64_t n = e->where_other_reason[w];
    for (unsigned r = 0; r < EXITS_REASONS; r++)
        n += e->by_where[w][r];
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
    fputs("usage: exitcount [--vendor amd|intel] [--rips N] < FIFO   (with xentrace -D -e 0x81000 -S 2048 FIFO)\n"
          "Counts the #VMEXITs in a xentrace stream (one HVM domain on the L0: the shim's) and\n"
          "prints \"exits: N in T s, R/s (entries E, lost L records); top: ...; where: ...\"\n"
          "(the exits split by RIP: shim, guest kernel, guest user); on SIGUSR1 a running total\n"
          "\"exits-mark K: total N rdtsc R shim N rdtsc R kernel ... user ...\".\n"
          "--rips N: then the shim's N commonest exit sites, \"exits-rip RIP REASON COUNT\" each.\n"
          "Exit status 0; 3 if Xen lost records (N is then a lower bound); 1 on a bad stream.\n", f);
}

int main(int argc, char **argv)
{
    static struct exits e;
    static uint8_t buf[1 << 16];
    int svm = 1, top_rips = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--vendor") && i + 1 < argc &&
                   (!strcmp(argv[i + 1], "amd") || !strcmp(argv[i + 1], "intel"))) {
            svm = !strcmp(argv[++i], "amd");
        } else if (!strcmp(argv[i], "--rips") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            top_rips = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rips")) {
            fprintf(stderr, "exitcount: --rips takes a positive count (see --help)\n");
            return 2;
        } else if (!strcmp(argv[i], "--vendor")) {
            fprintf(stderr, "exitcount: --vendor takes amd or intel (see --help)\n");
            return 2;
        } else {
            fprintf(stderr, "exitcount: bad option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    /* the exit code of RDTSC, which a TSC-emulating L0 takes on every read of the clock */
    const unsigned rdtsc = svm ? 0x6e : 16;
    static const char *const where_names[] = { "shim", "kernel", "user" };
    struct sigaction sa = { .sa_handler = on_usr1 };   /* no SA_RESTART: a read returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    unsigned marks = 0;
    double t0 = now();
    for (;;) {
        if (mark_wanted) {
            mark_wanted = 0;
            printf("exits-mark %u: total %llu rdtsc %llu", ++marks, (unsigned long long)e.exits,
                   (unsigned long long)e.by_reason[rdtsc]);
            for (int w = WHERE_SHIM; w <= WHERE_USER; w++)
                printf(" %s %llu rdtsc %llu", where_names[w], (unsigned long long)where_all(&e, w),
                       (unsigned long long)where_reason(&e, w, rdtsc));
            printf("\n");
            fflush(stdout);
        }
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "exitcount: read: %s\n", strerror(errno));
            return 1;
        }
        if (n == 0)
            break;
        if (exits_feed(&e, buf, (size_t)n)) {
            fprintf(stderr, "exitcount: not a xentrace stream (after %llu records)\n",
                    (unsigned long long)e.records);
            return 1;
        }
    }
    double t = now() - t0;
    if (exits_end(&e))
        fprintf(stderr, "exitcount: the stream ended inside a record (the last one not counted)\n");

    printf("exits: %llu in %.1f s, %.0f/s (entries %llu, lost %llu records); top:",
           (unsigned long long)e.exits, t, t > 0 ? (double)e.exits / t : 0.0,
           (unsigned long long)e.entries, (unsigned long long)e.lost);
    /* the six commonest reasons, largest first */
    uint8_t shown[EXITS_REASONS] = { 0 };
    for (int k = 0; k < 6; k++) {
        int best = -1;
        for (unsigned r = 0; r < EXITS_REASONS; r++)
            if (!shown[r] && e.by_reason[r] && (best < 0 || e.by_reason[r] > e.by_reason[best]))
                best = (int)r;
        if (best < 0)
            break;
        shown[best] = 1;
        char nb[32];
        printf("%s %s %llu", k ? "," : "", reason_name(svm, best, nb, sizeof(nb)),
               (unsigned long long)e.by_reason[best]);
    }
    if (e.other_reason)
        printf(", other %llu", (unsigned long long)e.other_reason);
    printf("; where:");
    for (int w = WHERE_SHIM; w <= WHERE_USER; w++)
        printf("%s %s %llu (RDTSC %llu)", w ? "," : "", where_names[w],
               (unsigned long long)where_all(&e, w), (unsigned long long)where_reason(&e, w, rdtsc));
    printf("\n");
    /* --rips N: the shim's N commonest exit sites, one line each (the host names them) */
    for (int k = 0; k < top_rips; k++) {
        struct exits_rip *best = NULL;
        for (unsigned i = 0; i < EXITS_RIPS; i++)
            if (e.rips[i].n && (!best || e.rips[i].n > best->n))
                best = &e.rips[i];
        if (!best)
            break;
        char nb[32];
        printf("exits-rip %#llx %s %llu\n", (unsigned long long)best->rip,
               best->reason < EXITS_REASONS ? reason_name(svm, best->reason, nb, sizeof(nb)) : "other",
               (unsigned long long)best->n);
        best->n = 0;
    }
    if (top_rips && e.rips_full)
        printf("exits-rip: %llu of the shim's exits not placed (more sites than the table holds)\n",
               (unsigned long long)e.rips_full);
    return e.lost ? 3 : 0;
}
