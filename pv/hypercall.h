/* hypercall.h: the guest's hypercall handlers (one per hypercall) and the table that lists them all. */
#ifndef PV_HYPERCALL_H
#define PV_HYPERCALL_H

#include "lib.h"

struct cpu_regs;

typedef long (*hc_fn)(uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

long hc_set_trap_table(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_gdt(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_descriptor(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_va_mapping(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_update_va_mapping_otherdomain(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_console_io(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_xen_version(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_memory_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_vm_assist(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_mmu_update(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_mmuext_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_multicall(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_segment_base(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_stack_switch(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_fpu_taskswitch(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_physdev_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_debugreg(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_get_debugreg(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_sched_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_event_channel_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_callback_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_callbacks(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_sched_op_compat(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_event_channel_op_compat(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_physdev_op_compat(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_vcpu_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_nmi_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_set_timer_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
long hc_grant_table_op(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

/* Dispatch the hypercall in r (rax = number; rdi, rsi, rdx, r10, r8) and return its result. */
long pv_hypercall(struct cpu_regs *r);
/* The same for a call from a multicall list: number and first five arguments. */
long pv_hypercall_call(uint64_t nr, const uint64_t a[5]);
void pv_hypercall_report(void);

#endif
