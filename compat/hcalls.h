/* hcalls.h: the 32-bit guest's translated hypercalls (table.c lists them with the native ones). */
#ifndef COMPAT_HCALLS_H
#define COMPAT_HCALLS_H

#include "shim/lib.h"

struct cpu_regs;

#define COMPAT_HC(name) long name(struct cpu_regs *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t)

/* hcalls.c: traps, callbacks, timers, single mappings, iret, multicall, version, sched, gdt */
COMPAT_HC(compat_set_trap_table);
COMPAT_HC(compat_set_gdt);
COMPAT_HC(compat_stack_switch);
COMPAT_HC(compat_set_callbacks);
COMPAT_HC(compat_callback_op);
COMPAT_HC(compat_update_descriptor);
COMPAT_HC(compat_multicall);
COMPAT_HC(compat_update_va_mapping);
COMPAT_HC(compat_update_va_mapping_otherdomain);
COMPAT_HC(compat_set_timer_op);
COMPAT_HC(compat_xen_version);
COMPAT_HC(compat_iret_hc);
COMPAT_HC(compat_nmi_op);
COMPAT_HC(compat_vm_assist);
COMPAT_HC(compat_physdev_op);
COMPAT_HC(compat_sched_op);

/* hcalls_mm.c: lists and structures of memory, grants, vCPUs */
COMPAT_HC(compat_mmuext_op);
COMPAT_HC(compat_memory_op);
COMPAT_HC(compat_grant_table_op);
COMPAT_HC(compat_vcpu_op);

#endif
