/* l0.h: the L0 operations table: everything the shim asks of whatever runs it (Xen, or nothing). */
#ifndef L0_L0_H
#define L0_L0_H

#include "shim/lib.h"

struct boot_info;
struct clock_line;
struct cpu;

struct l0_ops {
    const char *name;
    /* BSP, head.S's page tables: memory map, early console sinks. */
    void (*early_init)(struct boot_info *bi);
    /* BSP, own page tables, before interrupts: shared pages, clock, event delivery. */
    int (*init)(void);
    /* Every CPU, on itself, after its LAPIC is up. */
    int (*cpu_init)(struct cpu *c);
    uint32_t (*vcpu_id)(void);          /* this CPU's vCPU number as L0 knows it */
    unsigned default_console;           /* CONS_* when console= is absent */

    const char *clock_name;
    uint64_t (*now_ns)(void);
    uint64_t (*tsc_hz)(void);
    /* This CPU's now_ns() as a line in its TSC (time.h), and a number that changes whenever
     * that line does (clock_gen NULL: it never does). */
    void (*clock_line)(struct clock_line *l);
    uint32_t (*clock_gen)(void);

    /* Event channels to L0 (NULL: none to forward to). Errors are -XEN_E*. */
    int (*evtchn_bind_ipi)(uint32_t vcpu, uint32_t *port);
    int (*evtchn_send)(uint32_t port);
    int (*evtchn_unmask)(uint32_t port);
    int (*evtchn_close)(uint32_t port);
    int (*evtchn_alloc_unbound)(uint16_t remote_dom, uint32_t *port);
    int (*evtchn_bind_interdomain)(uint16_t remote_dom, uint32_t remote_port, uint32_t *port);
    /* EVTCHNOP_status of one of our L0 ports: status, and the remote end (dom, port) if any. */
    int (*evtchn_status)(uint32_t port, uint32_t *status, uint16_t *rdom, uint32_t *rport);
    uint16_t (*domid)(void);            /* our domain id at L0 (DOMID_SELF: unknown) */

    /* UTC at clock time 0 (now_ns() == 0), in ns since the epoch; 0: unknown. */
    uint64_t (*wallclock_base)(void);

    /* The guest's grant table at L0 (NULL: none, the shim keeps the table itself). query_size
     * for dom as the guest gave it (DOMID_SELF: our domain at L0): L0's frames in use and its
     * maximum, and L0's GNTST_* status; grant_frame puts L0's grant-table frame idx at our gfn
     * (the frame there goes back to L0; status: v2's status frame idx instead); set_version asks
     * L0 for table version *version (1 or 2) and says the one in force. */
    int (*grant_query_size)(uint16_t dom, uint32_t *nr_frames, uint32_t *max_frames, int16_t *status);
    int (*grant_frame)(unsigned idx, uint64_t gfn, bool status);
    int (*grant_set_version)(uint32_t *version);

    /* The L0's xenstore ring for the guest: its frame and L0 port (NULL or an error: none). */
    int (*store_ring)(uint64_t move_to, uint64_t *pfn, uint32_t *port);   /* moved to that gfn if not 0 */
    int (*store_ring_home)(uint64_t from);      /* back where L0 put it, from our gfn (a suspend) */

    /* The guest's balloon: give these frames (our guest-physical gfns) back to L0, or have L0
     * back them again. Both return how many, from the first, were done (L0 stops at a failure). */
    unsigned (*release_frames)(const uint64_t *gfns, unsigned n);
    unsigned (*populate_frames)(const uint64_t *gfns, unsigned n);

    /* Flush every TLB of every one of our vCPUs, all translations, and return when that is done
     * (Xen's HVMOP_flush_tlbs pauses the others, drops their ASIDs, resumes them). 0 or an error;
     * NULL: the L0 offers no such help. */
    int (*flush_tlb)(void);
    void (*yield)(void);                /* let L0 run another of our vCPUs on this pCPU (NULL: none) */
    /* ns our CPU cpu has spent, since it came up, wanting to run while L0 ran something else
     * (or held it down): the guest's steal time (NULL: the L0 does not say). */
    uint64_t (*stolen_ns)(unsigned cpu);

    void (*report)(void);               /* boot-report lines about the L0 */
    void (*report_counters)(void);      /* what we cost the L0 (hypercalls by op), at shutdown */
    const uint64_t *hcall_count;        /* hypercalls to L0 by number, [64] (NULL: none) */
    void (*shutdown)(unsigned reason) __noreturn;  /* reason: SHUTDOWN_* */
    /* Save and restore (NULL: the L0 cannot). suspend asks L0 to save us: 0 when we run again in
     * a new domain, 1 when it was cancelled, or an error. In a new domain the BSP calls resume
     * first (shared pages, its own registrations, the console), then every CPU cpu_resume on
     * itself. */
    long (*suspend)(void);
    int (*resume)(void);
    int (*cpu_resume)(struct cpu *c);
};

extern const struct l0_ops *l0;
/* l0-steal=on: CPUs register a runstate area with L0 so stolen_ns works. Off by default: under
 * the Xen L0 here it cost Linux's 64 MiB anonymous-memory check 44 s against 30 s (2 runs each). */
extern bool l0_steal;
extern const struct l0_ops l0_xen, l0_none;

/* Select l0 from CPUID; no hypercall is made. */
void l0_probe(void);

/* The one way an L0 port's events reach the rest of the shim (pv/ among them): h(port, arg) runs
 * in the upcall, on any CPU, interrupts off. bind also unmasks the port at L0; unbind only stops
 * the calls (closing the port is the caller's, through l0->evtchn_close). */
typedef void (*l0_port_handler_t)(uint32_t port, void *arg);
int l0_port_bind(uint32_t port, l0_port_handler_t h, void *arg);
void l0_port_unbind(uint32_t port);

/* Xen's CPUID leaves, if found (xen.c also uses them). */
extern uint32_t xen_cpuid_base;

#endif
