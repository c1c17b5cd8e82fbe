/* domain.h: the one PV guest the shim runs: its memory, special pages, trap table and vCPU state. */
#ifndef PV_DOMAIN_H
#define PV_DOMAIN_H

#include "cpu.h"
#include "lib.h"
#include "spinlock.h"
#include "xen-abi.h"

struct boot_info;

#define SHIM_XEN_MAJOR 4                /* the interface we implement: Xen 4.17's */
#define SHIM_XEN_MINOR 17

#define PV_M2P_VIRT      0xffff800000000000ull  /* RO_MPT_VIRT_START: the guest's read-only m2p */
#define PV_HOLE_START    0xffff800000000000ull  /* HYPERVISOR_VIRT_START */
#define PV_HOLE_END      0xffff880000000000ull  /* HYPERVISOR_VIRT_END */
#define PV_SLOT_FIRST    256                    /* PML4 slots the shim owns in every guest L4 */
#define PV_SLOT_LAST     271
#define M2P_INVALID      (~0ul)

/* Local event-channel ports (the guest's own namespace). */
#define PV_PORT_CONSOLE  1
#define PV_PORT_STORE    2

struct pv_trap {
    uint64_t address;                   /* 0: no handler */
    uint16_t cs;
    uint8_t flags;                      /* trap_info.flags: DPL in bits 0-1, bit 2 = mask events */
};

struct pv_domain {
    uint64_t nr_pages;                  /* frames the guest has now (Xen's tot_pages) */
    uint64_t max_pages;                 /* and may have: what it was built with (balloon.c) */
    uint64_t max_mfn;                   /* m2p covers [0, max_mfn) */
    uint64_t *m2p;                      /* the shim's writable view */
    uint64_t m2p_pa;
    uint64_t *p2m;                      /* the guest's p2m, through the direct map */
    uint64_t pt_pfn, nr_pt;             /* bootstrap page-table frames (guest pfns) */
    uint64_t cr3;                       /* machine address of the current (kernel) L4 */
    uint64_t cr3_user_mfn;              /* NEW_USER_BASEPTR's L4 (0: none) */
    uint64_t gs_base_user;              /* the guest's other GS base (user mode's, while in kernel) */
    uint64_t kernel_ss, kernel_sp;      /* stack_switch: the stack for entries from user mode */
    bool fpu_ts;                        /* fpu_taskswitch: the guest's virtual CR0.TS */
    unsigned iopl;                      /* physdev set_iopl: the virtual IOPL */
    bool user_mode;                     /* guest user mode (mode.c) */
    uint64_t syscall_callback;          /* CALLBACKTYPE_syscall (0: none) */
    bool syscall_mask_events;
    uint64_t iobmp, iobmp_ports;        /* physdev set_iobitmap */
    unsigned nr_vcpus;
    spinlock_t mmu_lock;                /* serialises page-table changes (pagetype.c) */
    uint64_t vm_assist;
    uint32_t features;                  /* XENFEAT_ submap 0 we offer */
    bool hypercall_page;

    struct shared_info *shared;
    uint64_t shared_mfn;
    struct xencons_interface *cons;     /* the guest's console ring (ours: we drain it) */
    uint64_t cons_mfn;
    uint64_t store_mfn;
    uint32_t store_l0_port;             /* 0: none (standalone) */

    struct pv_trap traps[256];
    uint64_t nr_hypercalls, nr_bounces, nr_emulated, nr_ptwr;
};

extern struct pv_domain pv_dom;

/* build.c: build the domain from boot module 0 (and 1, the initrd), then enter it. */
int pv_build(const struct boot_info *bi);
const char *pv_build_error(void);       /* the one-line reason pv_build failed */
void pv_enter(void) __noreturn;

/* guest.c: the guest's memory from the shim (fault-safe; -XEN_EFAULT on a bad pointer). */
int copy_from_guest(void *dst, uint64_t src, size_t n);
int copy_to_guest(uint64_t dst, const void *src, size_t n);
bool guest_range_ok(uint64_t va, size_t n);    /* Xen's guest_handle_okay: may be guest memory */
bool pv_mfn_is_guest(uint64_t mfn);     /* a frame of the guest's RAM */
bool pv_mfn_is_special(uint64_t mfn);   /* shared_info, console or store page: mappable */

/* mmu_env.c: the page-type words for nr_frames frames. */
int pv_mmu_init(uint64_t nr_frames);

/* crash.c: end the guest (and so the shim) with a one-line reason and its registers. */
void pv_crash(const struct cpu_regs *r, const char *fmt, ...) __printf(2, 3) __noreturn;

/* traps.c / syscall entry */
bool pv_trap(struct cpu_regs *r, uint64_t cr2);     /* an exception from the guest */
bool pv_emulate(struct cpu_regs *r);                /* emulate.c: #GP/#UD it could answer */
void pv_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d);
bool pv_ptwr_fault(struct cpu_regs *r, uint64_t cr2);  /* ptwr.c: a write to an L1 it emulated */
/* desc.c: the LDT. A #PF on this CPU's LDT window: true if a page was mapped (retry), else *cr2
 * becomes the guest's LDT address. */
bool pv_ldt_fault(struct cpu_regs *r, uint64_t *cr2);
void pv_set_ldt(uint64_t base, uint64_t ents);     /* MMUEXT_SET_LDT, arguments checked */
bool pv_selector_ok(uint16_t sel, bool code);       /* desc.c: loadable for the guest */
void pv_ldt_drop(void);                             /* the page tables changed: unmap the LDT's pages */
void pv_syscall(struct cpu_regs *r);                /* SYSCALL from the guest */
void pv_iret(struct cpu_regs *r);                   /* iret.c: __HYPERVISOR_iret */
void pv_syscall_from_user(struct cpu_regs *r);      /* traps.c */
void pv_to_kernel_mode(void);                       /* mode.c */
bool pv_to_user_mode(void);                         /* false: no user page tables */
void pv_time_update(void);

/* console.c */
void pv_console_kick(void);             /* the guest sent on PV_PORT_CONSOLE: drain its ring */

#endif
