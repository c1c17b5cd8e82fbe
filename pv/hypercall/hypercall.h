/* hypercall.h: the guest's hypercall handlers (one per hypercall) and the table that lists them all. */
#ifndef PV_HYPERCALL_H
#define PV_HYPERCALL_H

#include "shim/lib.h"

struct cpu_regs;

/* A handler gets the vCPU's saved registers (its SYSCALL frame; for a multicall entry, the
 * multicall's) and the five arguments (from those registers, or from the entry). What it returns
 * goes to the guest's rax; iret, which replaces the frame, returns the frame's new rax. */
/* What the shim does with a hypercall, or a sub-op of one (table.c, subops.c). */
enum hc_kind { HANDLED, FORWARDED, REFUSED };

struct hc_subop {
    const char *name;
    enum hc_kind kind;
    int err;                            /* REFUSED: what the guest gets, and why */
    const char *why;
};
struct hc_subops {
    const char *family;
    const struct hc_subop *op;          /* indexed by the sub-op's number */
    unsigned nr;
    int unlisted;                       /* the answer to a number not listed */
    const char *unlisted_why;
};
extern const struct hc_subops hc_subops_memory_op, hc_subops_grant_table_op, hc_subops_event_channel_op,
    hc_subops_vcpu_op;
/* subops.c: a family's answer to a sub-op its handler has no case for (REFUSED or not listed) */
long hc_subop_refuse(const struct hc_subops *t, uint64_t cmd);
const struct hc_subop *hc_subop_find(const struct hc_subops *t, uint64_t cmd);   /* NULL: not listed */

typedef long (*hc_fn)(struct cpu_regs *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

long hc_set_trap_table(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_gdt(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_descriptor(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_va_mapping(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_va_mapping_otherdomain(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_console_io(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_xen_version(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_memory_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_vm_assist(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_mmu_update(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_mmuext_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_multicall(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_segment_base(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_stack_switch(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_fpu_taskswitch(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_physdev_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_debugreg(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_get_debugreg(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_sched_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_event_channel_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_callback_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_callbacks(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_sched_op_compat(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_event_channel_op_compat(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_physdev_op_compat(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_vcpu_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_nmi_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_timer_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_grant_table_op(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_iret(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);   /* vcpu/iret.c */

/* Dispatch the hypercall in r (rax = number; rdi, rsi, rdx, r10, r8) and return its result. */
long pv_hypercall(struct cpu_regs *r);
/* The same for a call from a multicall list, on the multicall's frame r: number and arguments. */
long pv_hypercall_call(struct cpu_regs *r, uint64_t nr, const uint64_t a[5]);
bool pv_hypercall_ends_frame(uint64_t nr);     /* iret: the frame is replaced, nothing follows it */
void pv_hypercall_report(void);

/* The parts of handlers a 32-bit guest's translations (compat/) call with their arguments read. */
struct sched_poll;
struct callback_register;
struct mmuext_op;
long pv_sched_poll(const struct sched_poll *sp);                    /* sched.c */
long pv_memory_map_put(uint64_t buffer, uint32_t nr);   /* memory.c: entries written, or an error */
long pv_callback_register(const struct callback_register *c);      /* callback.c */
long pv_set_gdt_frames(const uint64_t *frames, unsigned entries);  /* mm/desc.c */
struct gnttab_setup_table;
long pv_gnttab_setup(struct gnttab_setup_table *s, unsigned width);    /* grant.c */
struct gnttab_get_status_frames;
long pv_gnttab_status_frames(struct gnttab_get_status_frames *g);      /* grant.c */
/* mmu.c: mmuext_op's loop over a list whose entries fetch() reads (0, or -EFAULT); *pdone gets
 * done_before plus the ops done */
long pv_mmuext_list(uint64_t uops, uint64_t count, uint64_t pdone, uint64_t foreigndom, uint64_t op_size,
                    int (*fetch)(struct mmuext_op *op, uint64_t at), uint32_t done_before);

void pv_grant_resume(void);             /* grant.c: the grant frames at L0 again (a new domain) */
/* watchdog.c: SCHEDOP_watchdog, and re-arming its timer on vCPU 0's CPU */
long pv_sched_watchdog(uint64_t arg);
void pv_watchdog_rearm(void);
void pv_watchdog_reset(void);           /* a new domain after a restore: none in use */

/* balloon.c: memory_op's reservation sub-ops (increase, decrease, populate) and exchange */
long memop_reservation(unsigned op, uint64_t start, uint64_t arg);
long memop_exchange(uint64_t arg);
/* the same with the structure read (a 32-bit guest's, translated: its lists have 4-byte entries);
 * memop_exchange_x leaves nr_exchanged in *x for the caller to write back */
struct xen_memory_reservation;
struct xen_memory_exchange;
long memop_reservation_r(unsigned op, uint64_t start, const struct xen_memory_reservation *r);
long memop_exchange_x(struct xen_memory_exchange *x);

#endif
