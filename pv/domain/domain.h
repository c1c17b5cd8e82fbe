/* domain.h: the one PV guest the shim runs: its memory, special pages, trap table and vCPU state,
 * and the domain-wide acts (crash, suspend, shutdown). Each area's functions are in its own header:
 * loader/loader.h, mm/guest.h, mm/mm.h, vcpu/vcpu.h, vcpu/traps.h, events/events.h,
 * events/vtimer.h, devices/console.h, hypercall/hypercall.h. */
#ifndef PV_DOMAIN_H
#define PV_DOMAIN_H

#include "pv/events/evtchn_port.h"
#include "shim/cpu.h"
#include "shim/lib.h"
#include "shim/spinlock.h"
#include "shim/timer.h"
#include "shim/x86.h"
#include "xen-abi.h"

#define SHIM_XEN_MAJOR 4                /* the interface we implement: Xen 4.17's */
#define SHIM_XEN_MINOR 17

#define PV_M2P_VIRT      0xffff800000000000ull  /* RO_MPT_VIRT_START: the guest's read-only m2p */
#define PV_HOLE_START    0xffff800000000000ull  /* HYPERVISOR_VIRT_START */
#define PV_HOLE_END      0xffff880000000000ull  /* HYPERVISOR_VIRT_END */
#define PV_SLOT_FIRST    256                    /* PML4 slots the shim owns in every guest L4 */
#define PV_SLOT_RO_M2P   256                    /* of them, the guest's read-only m2p (PV_M2P_VIRT) */
#define PV_SLOT_LAST     271
#define M2P_INVALID      (~0ul)
#define PV_RFLAGS_GUEST  0x254fd5ul     /* CF PF AF ZF SF TF DF OF NT RF AC ID: what the guest may set */

struct pv_trap {
    uint64_t address;                   /* 0: no handler */
    uint16_t cs;
    uint8_t flags;                      /* trap_info.flags: DPL in bits 0-1, bit 2 = mask events */
};

/* One guest vCPU: where its vcpu_info lives, its timers, its registered areas. */
struct pv_vcpu {
    unsigned id;
    struct vcpu_info *vi;               /* shared_info's slot, or the guest frame it registered */
    uint64_t vi_mfn;                    /* VCPUOP_register_vcpu_info's frame (0: none) */
    struct timer singleshot;            /* VCPUOP_set_singleshot_timer, set_timer_op */
    struct timer periodic;              /* VCPUOP_set_periodic_timer (10 ms from the start, as Xen) */
    struct timer poll;                  /* SCHEDOP_poll's timeout: only wakes the CPU */
    struct timer halt_watch;            /* a halted vCPU looks again now and then (hypercall/sched.c) */
    /* wakeups: kicks other CPUs sent it and it took, events raised on its own CPU, and
     * halts that ended only because halt_watch looked again (a wakeup that never came) */
    uint64_t kicks_sent, kicks_taken, raised_here, halts_rescued;
    uint64_t period_ns, periodic_last;
    uint64_t time_area;                 /* guest va of a vcpu_time_info copy (0: none) */
    uint64_t runstate_area;             /* guest va of a vcpu_runstate_info copy (0: none) */
    struct vcpu_runstate_info runstate;
    uint64_t stolen_seen;               /* l0->stolen_ns of its CPU, as last accounted */
    uint32_t clock_gen;                 /* l0->clock_gen when its pvclock was last written */
    uint64_t clock_ahead;               /* ns its pvclock runs ahead of its CPU's clock line */

    /* Its CPU state, as Xen keeps per vCPU (the hardware holds the rest: vCPU n owns shim CPU n) */
    uint64_t cr3;                       /* machine address of the current (kernel) L4; of a 32-bit
                                         * guest: its vCPU's L4 of ours, holding compat_l3 in slot 0 */
    uint64_t compat_l3;                 /* a 32-bit guest's current L3 (its CR3's frame), 0: none */
    uint64_t cr3_user_mfn;              /* NEW_USER_BASEPTR's L4 (0: none) */
    uint64_t gs_base_user;              /* the guest's other GS base (user mode's, while in kernel) */
    uint64_t kernel_ss, kernel_sp;      /* stack_switch: the stack for entries from user mode */
    bool fpu_ts;                        /* fpu_taskswitch: the guest's virtual CR0.TS */
    bool cpuid_faulting;                /* MSR_MISC_FEATURES_ENABLES bit 0: its user mode's CPUID faults */
    unsigned iopl;                      /* physdev set_iopl: the virtual IOPL */
    bool user_mode;                     /* guest user mode (mode.c) */
    uint64_t guest_cr4;                 /* the CR4 the guest last wrote (emulate.c: what it reads back) */
    uint16_t kernel_cs;                 /* the guest kernel's code selector (its trap table's) */
    uint64_t iobmp, iobmp_ports;        /* physdev set_iobitmap */
    uint64_t dr[8];                     /* set_debugreg's values */
    struct pv_trap traps[256];

    /* CALLBACKOP_register: the guest's entry points (0: none) */
    uint64_t event_callback, failsafe_callback;     /* the NMI handler is traps[2] (nmi.c) */
    uint64_t syscall_callback, syscall32_callback, sysenter_callback;
    bool failsafe_mask_events, syscall_mask_events, syscall32_mask_events, sysenter_mask_events;
    uint16_t event_cs, syscall32_cs;    /* a 32-bit guest's callback selectors (0: the flat one) */

    /* Life cycle (smp.c): initialised by the builder (vCPU 0) or VCPUOP_initialise; started on
     * its CPU by the first VCPUOP_up; down parks it where it stands until the next up. */
    bool initialised, started;
    volatile bool down;                 /* VCPUOP_down: parked on its way back to the guest */
    volatile bool blocked;              /* halted in SCHEDOP_block or poll: an event needs a kick */
    volatile bool nmi_pending;          /* VCPUOP_send_nmi, until delivered (nmi.c) */
    bool nmi_masked;                    /* in its NMI handler: until the next iret */
    bool iret_path;                     /* this hypercall returns as Xen's IRET path, not SYSRET (iret.c) */
    volatile bool timers_changed;       /* another vCPU changed its timers: its CPU re-arms them */
    volatile bool held;                 /* stopped on its way to the guest while a suspend is on */
    uint32_t l0_gen;                    /* pv_dom.l0_gen when its CPU last registered with L0 */
    struct pv_vcpu_start {              /* VCPUOP_initialise's state for the CPU, until it starts */
        struct cpu_user_regs regs;
        uint64_t gdt_frames[16], gdt_ents, ldt_base, ldt_ents;
        uint64_t fs_base, gs_base_kernel, dr[8];
    } start;
};

#define PV_MAX_VCPUS EV_MAX_VCPUS
#define PV_DEFAULT_PERIOD_NS 10000000ull    /* a vCPU's periodic timer, as Xen starts it: 10 ms */

/* How often a halted vCPU looks again whether its wakeup came (hypercall/sched.c, vcpu.c): 10 timer
 * exits a second per idle vCPU. */
#define HALT_WATCH_NS 100000000ull

struct pv_domain {
    uint64_t nr_pages;                  /* frames the guest has now (Xen's tot_pages) */
    uint64_t max_pages;                 /* and may have: what it was built with (balloon.c) */
    uint64_t max_mfn;                   /* m2p covers [0, max_mfn) */
    uint64_t *m2p;                      /* the shim's writable view */
    uint64_t m2p_pa;
    uint64_t *p2m;                      /* the guest's p2m, through the direct map */
    uint64_t pt_pfn, nr_pt;             /* bootstrap page-table frames (guest pfns) */
    unsigned nr_vcpus;
    spinlock_t mmu_lock;                /* serialises page-table changes (pagetype.c) */
    uint64_t vm_assist;
    uint32_t features;                  /* XENFEAT_ submap 0 we offer */
    bool hypercall_page;
    bool compat;                        /* a 32-bit PAE guest (compat/): ring 1, int $0x82 */
    uint32_t *m2p32;                    /* and its compat m2p, the shim's writable view (compat/build.c) */

    struct shared_info *shared;
    uint64_t shared_mfn;
    struct xencons_interface *cons;     /* the guest's console ring (ours: we drain it) */
    uint64_t cons_mfn;
    uint64_t store_mfn;
    uint32_t store_l0_port;             /* 0: none (standalone) */
    unsigned console_port, store_port;  /* the guest's ports for them (start_info; upcall.c) */

    uint32_t shutdown_code;             /* SCHEDOP_shutdown_code: ~0 none */
    volatile bool suspending;           /* a vCPU's SHUTDOWN_suspend is on: the others hold */
    volatile uint32_t l0_gen;           /* the L0 domain we run in: +1 at each restore (suspend.c) */
    uint64_t nr_suspends, nr_restores;

    struct ev_table ev;                 /* the guest's event channels */
    struct pv_vcpu vcpu[PV_MAX_VCPUS];
    uint64_t nr_bounces, nr_emulated, nr_ptwr, nr_upcalls;
    uint64_t nr_iret_faults;            /* faults at our iretq to the guest, made its (pv_iret_fault) */
    uint64_t halts_rescued;             /* all vCPUs' halts_rescued */
    uint64_t clock_held_back;           /* pvclock updates that would have stepped a guest clock back (> 1 us) */
    uint64_t clock_ahead_max;           /* the most any vCPU's pvclock ran ahead of its clock line, ns */
};

extern struct pv_domain pv_dom;

/* The m2p entry of mfn, and the compat m2p's of a 32-bit guest with it, as Xen's set_gpfn_from_mfn. */
static inline void pv_m2p_set(uint64_t mfn, uint64_t pfn)
{
    pv_dom.m2p[mfn] = pfn;
    if (pv_dom.m2p32)
        pv_dom.m2p32[mfn] = (uint32_t)pfn;
}

/* An address the guest may use: canonical, outside the hypervisor's hole. */
static inline bool pv_guest_va(uint64_t va)
{
    return is_canonical(va) && !(va >= PV_HOLE_START && va < PV_HOLE_END);
}

/* The vCPU running on this CPU (vCPU n on shim CPU n). */
static inline struct pv_vcpu *pv_current(void)
{
    return &pv_dom.vcpu[this_cpu()->id < PV_MAX_VCPUS ? this_cpu()->id : 0];
}

/* Whether the guest context r (what trapped) is its user mode: a 64-bit guest's kernel runs in
 * ring 3 as its processes do, so the vCPU keeps the mode; a 32-bit guest's kernel is ring 1, so
 * the ring says (Xen's guest_kernel_mode: ring_1 for a compat vCPU). */
static inline bool pv_user_ctx(const struct cpu_regs *r)
{
    return pv_dom.compat ? (r->cs & 3) == 3 : pv_current()->user_mode;
}

/* crash.c: end the guest (and so the shim) with a one-line reason and its registers. */
void pv_crash(const struct cpu_regs *r, const char *fmt, ...) __printf(2, 3) __noreturn;

/* report.c: each vCPU's state and counters, in the shim's crash report */
void pv_vcpu_report(void);

/* suspend.c: SHUTDOWN_suspend (0 resumed in a new domain, 1 cancelled, or an error); the others
 * hold on their way to the guest, and each CPU's L0 registrations after a restore. */
long pv_suspend(struct pv_vcpu *me, uint64_t srec);
void pv_suspend_hold(struct pv_vcpu *v);
void pv_suspend_cpu_check(void);

/* hypercall/sched.c: the guest's SCHEDOP_shutdown (and its compat form), and the end of it. */
long pv_sched_shutdown(unsigned reason, uint64_t srec);
void pv_shutdown(unsigned reason) __noreturn;

#endif
