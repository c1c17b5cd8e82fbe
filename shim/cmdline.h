/* cmdline.h: the shim's command-line options (stock Xen ones honoured where meaningful, plus ours). */
#ifndef SHIM_CMDLINE_H
#define SHIM_CMDLINE_H

#include "shim/lib.h"

enum log_level { LOG_NONE, LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

enum console_sink_bits {
    CONS_COM1 = 1u << 0,   /* 16550 at 0x3f8 */
    CONS_XEN  = 1u << 1,   /* L0 CONSOLEIO_write (dropped by a release-build L0 for a domU) */
    CONS_PV   = 1u << 2,   /* L0 console ring (CONSOLE_PFN / CONSOLE_EVTCHN) */
    CONS_NONE = 1u << 3,   /* explicitly nothing */
};

enum selftest_mode { SELFTEST_OFF, SELFTEST_ON, SELFTEST_FAULT };

#define CMDLINE_MAX      1024
#define CMDLINE_MAX_NOTES 8

struct shim_opts {
    bool pv_shim;                    /* "pv-shim": accepted, we are always one */
    unsigned console;                /* CONS_* bits; 0 when console= was not given */
    int loglvl, loglvl_rl;           /* enum log_level, -1 = default */
    int guest_loglvl, guest_loglvl_rl;
    uint64_t shim_mem, shim_mem_min, shim_mem_max;   /* bytes; 0 = not given */
    int global_pages;                /* -1 = default (off), else 0/1 */
    int tlb_clock;                   /* -1 = default (auto) */
    int assisted_flush;              /* -1 = default (auto) */
    int l0_steal;                    /* -1 = default (off), else 0/1 */
    int xsave;                       /* -1 = default (offered where the CPU has it), else 0/1 */
    int cpuid_faulting;              /* -1 = default (on where offered), else 0/1 */
    int evtchn_fifo;                 /* -1 = default (on), else 0/1 */
    int xpti;                        /* -1 = default (on where the CPU is affected), else 0/1 */
    unsigned test_drop_kicks;        /* test-drop-kicks=N: drop every Nth cross-CPU kick (0 = none) */
    enum selftest_mode selftest;
    char guest_cmdline[CMDLINE_MAX]; /* what followed " -- " */
    bool has_guest_cmdline;
    unsigned nr_notes;               /* problems to warn about (never fatal) */
    char notes[CMDLINE_MAX_NOTES][64];
};

void cmdline_defaults(struct shim_opts *o);
void cmdline_parse(const char *line, struct shim_opts *o);
/* A multiboot loader may put the image's file name first: skip it if it is not an option. */
const char *cmdline_skip_image_name(const char *line);

bool parse_bool(const char *s, size_t len, bool *val);
bool parse_size(const char *s, size_t len, uint64_t *bytes);
const char *log_level_name(int lvl);

#endif
