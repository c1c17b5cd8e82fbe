/* hcall.h: hypercalls to a Xen L0 from a 64-bit HVM/PVH guest: vmcall or vmmcall by CPU vendor. */
#ifndef L0_XEN_HCALL_H
#define L0_XEN_HCALL_H

#include "shim/lib.h"
#include "xen-abi.h"

extern bool xen_vmmcall;                /* AMD/Hygon */
extern uint64_t xen_hcall_count[64];    /* per hypercall number: the L0 exits we cause */

static inline long xen_hcall(unsigned long op, unsigned long a1, unsigned long a2, unsigned long a3)
{
    register unsigned long r10 __asm__("r10") = 0;
    register unsigned long r8 __asm__("r8") = 0;
    long ret;

    __atomic_fetch_add(&xen_hcall_count[op & 63], 1, __ATOMIC_RELAXED);
    /* Xen may clobber the argument registers (debug builds do), so they are outputs too. */
    if (xen_vmmcall)
        __asm__ volatile("vmmcall"
                         : "=a"(ret), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8)
                         : "0"(op) : "memory");
    else
        __asm__ volatile("vmcall"
                         : "=a"(ret), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8)
                         : "0"(op) : "memory");
    return ret;
}

#define HYPERVISOR_memory_op(cmd, arg)  xen_hcall(__HYPERVISOR_memory_op, (cmd), (unsigned long)(arg), 0)
#define HYPERVISOR_hvm_op(cmd, arg)     xen_hcall(__HYPERVISOR_hvm_op, (cmd), (unsigned long)(arg), 0)
#define HYPERVISOR_vcpu_op(cmd, v, arg) xen_hcall(__HYPERVISOR_vcpu_op, (cmd), (v), (unsigned long)(arg))
#define HYPERVISOR_evtchn_op(cmd, arg)  xen_hcall(__HYPERVISOR_event_channel_op, (cmd), (unsigned long)(arg), 0)
#define HYPERVISOR_sched_op(cmd, arg)   xen_hcall(__HYPERVISOR_sched_op, (cmd), (unsigned long)(arg), 0)
#define HYPERVISOR_xen_version(cmd, a)  xen_hcall(__HYPERVISOR_xen_version, (cmd), (unsigned long)(a), 0)
#define HYPERVISOR_grant_table_op(cmd, arg, n) \
    xen_hcall(__HYPERVISOR_grant_table_op, (cmd), (unsigned long)(arg), (n))
#define HYPERVISOR_console_io(cmd, n, buf) \
    xen_hcall(__HYPERVISOR_console_io, (cmd), (n), (unsigned long)(buf))

#endif
