/*
 * pvshim-stats.h: the shim's counters page, the one interface between a running pvshim and the
 * host (xl-shim stats). Compiles freestanding (the shim) and hosted (the tool): <stdint.h> only.
 *
 * Where it is. The page is part of the shim's image: one page-aligned page in the loaded data
 * segment. A PVH domain is loaded at the image's ELF physical addresses, so the page's guest
 * frame is fixed by the image file. The image says where in an ELF note (in its PT_NOTE
 * segment, beside Xen's notes):
 *     name "pvshim", type PVSHIM_ELFNOTE_STATS, desc struct pvshim_stats_note (16 bytes).
 * A second note, type PVSHIM_ELFNOTE_BUILD, holds the build string (also in the page).
 * A host tool reads the note from the domain's pvshim_path, maps that frame of the domain
 * (libxenforeignmemory) read-only, and checks magic, version and size before trusting anything.
 *
 * Who writes it. Only the shim. magic/version/size/build are set at build time (the page is
 * initialised data, valid before the shim runs); the rest is a snapshot the shim copies from its
 * own counters every publish_interval_ms while it runs, and once more when it shuts down
 * (flags PVSHIM_STATS_FINAL, then never again). Keeping the live counters private lets the shim
 * count per CPU without shared cache lines, and lets a reader get a consistent snapshot:
 *
 * Reading a consistent snapshot (a sequence count, as Linux's seqcount):
 *     do { g = generation;  (odd: being written; wait and retry)
 *          read barrier; copy the page; read barrier;
 *     } while (g is odd || generation != g);
 * The shim makes generation odd, writes the snapshot, makes it even again (write barriers
 * between). generation == 0: never published (the shim has not got that far).
 *
 * Compatibility: version changes only for an incompatible layout. New counters take reserved
 * space (reading as 0 from older shims) and keep the version; size tells how much is defined.
 * Counters are monotonic u64 since the shim started; a counter for something the shim does not
 * do yet stays 0 (marked "not yet" below).
 */
#ifndef PUBLIC_PVSHIM_STATS_H
#define PUBLIC_PVSHIM_STATS_H

#ifndef __ASSEMBLY__
#include <stdint.h>
#endif

#define PVSHIM_STATS_MAGIC        0x5441545348535650ull    /* "PVSHSTAT" in memory order */
#define PVSHIM_STATS_VERSION      1
#define PVSHIM_STATS_SIZE         4096
#define PVSHIM_STATS_NR_HC        64      /* hypercall numbers counted one by one: 0..63 */

/* ELF notes (name "pvshim") in the shim image. */
#define PVSHIM_ELFNOTE_NAME       "pvshim"
#define PVSHIM_ELFNOTE_BUILD      1       /* desc: the build string, NUL-terminated */
#define PVSHIM_ELFNOTE_STATS      2       /* desc: struct pvshim_stats_note */

#ifndef __ASSEMBLY__

struct pvshim_stats_note {
    uint64_t paddr;                       /* guest-physical address of the page (page-aligned) */
    uint32_t size;                        /* PVSHIM_STATS_SIZE */
    uint32_t version;                     /* PVSHIM_STATS_VERSION */
};

/* flags */
#define PVSHIM_STATS_FINAL        (1u << 0)   /* published at shutdown: will not change again */

struct pvshim_stats {
    /* Constant, from the image. */
    uint64_t magic;                       /*   0 PVSHIM_STATS_MAGIC */
    uint32_t version;                     /*   8 PVSHIM_STATS_VERSION */
    uint32_t size;                        /*  12 bytes of this page the shim defines */
    char build[48];                       /*  16 "pvshim <version>", NUL-terminated */

    /* The snapshot, written under generation. */
    uint64_t generation;                  /*  64 sequence count: odd while being written */
    uint64_t nr_snapshots;                /*  72 publishes so far */
    uint64_t uptime_ns;                   /*  80 shim uptime when this snapshot was taken */
    uint32_t flags;                       /*  88 PVSHIM_STATS_* */
    uint32_t shutdown_reason;             /*  92 SHUTDOWN_* (with PVSHIM_STATS_FINAL) */
    uint32_t nr_cpus;                     /*  96 CPUs (vCPUs of the domain) the shim brought up */
    uint32_t publish_interval_ms;         /* 100 how stale a running snapshot can be */
    char l0[16];                          /* 104 what runs the shim: "xen", "none" */
    uint64_t reserved_hdr;                /* 120 */

    /* Counters. */
    uint64_t guest_hypercalls;            /* 128 all hypercalls from the guest, any number */
    uint64_t guest_hypercall[PVSHIM_STATS_NR_HC];     /* 136 by __HYPERVISOR_* number */
    uint64_t bounces;                     /* 648 exceptions reflected to the guest's handlers */
    uint64_t emulated;                    /* 656 guest instructions the shim emulated */
    uint64_t l0_hypercalls;               /* 664 hypercalls the shim made to L0 (each an exit) */
    uint64_t l0_hypercall[PVSHIM_STATS_NR_HC];        /* 672 by __HYPERVISOR_* number */
    uint64_t ipis_sent;                   /* 1184 IPIs the shim sent between its CPUs */
    uint64_t tlb_flush_local;             /* 1192 local TLB flushes (whole or one page) */
    uint64_t tlb_flush_remote_assisted;   /* 1200 remote flushes done by L0 (HVMOP_flush_tlbs) */
    uint64_t tlb_flush_remote_ipi;        /* 1208 remote flushes by IPI shootdown */
    uint64_t flush_wait_ns;               /* 1216 time spent waiting for remote flushes */
    uint64_t cr4_writes;                  /* 1224 CR4 writes by the shim (each traps to L0) */
    uint64_t pt_validations;              /* 1232 guest page tables validated */

    uint64_t reserved[(PVSHIM_STATS_SIZE - 1240) / 8];    /* 1240: room to grow, reads 0 */
};

_Static_assert(sizeof(struct pvshim_stats) == PVSHIM_STATS_SIZE, "the stats page is one page");
_Static_assert(__builtin_offsetof(struct pvshim_stats, guest_hypercall) == 136, "layout");
_Static_assert(__builtin_offsetof(struct pvshim_stats, l0_hypercall) == 672, "layout");
_Static_assert(__builtin_offsetof(struct pvshim_stats, pt_validations) == 1232, "layout");
_Static_assert(sizeof(struct pvshim_stats_note) == 16, "note layout");
#endif /* !__ASSEMBLY__ */

#endif
