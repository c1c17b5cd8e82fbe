/*
 * multicall.c: __HYPERVISOR_multicall, a list of hypercalls in one trap (Linux batches page-table
 * updates and context-switch work this way). Each entry's result is written back; the list itself
 * returns 0 unless it cannot be read or written (-EFAULT, after the entries before). As in Xen
 * (common/multicall.c, pv_do_multicall_call): the count is 32 bits; a nested multicall is refused
 * (-EINVAL); an iret entry is done, through the iret frame on the guest's stack as the multicall
 * found it, and ends the list: the guest resumes where that frame says, and the frame's rax is
 * the entry's result and what the multicall returns.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

static bool in_multicall[PV_MAX_VCPUS]; /* per vCPU, as Xen's mc_state: another vCPU's list is no reentry */

long hc_multicall(struct cpu_regs *regs, uint64_t list, uint64_t count, uint64_t a3, uint64_t a4, uint64_t a5)
{
    bool *in = &in_multicall[pv_current()->id];
    uint32_t nr = (uint32_t)count;      /* Xen's nr_calls is an unsigned int */
    long rc = 0;

    if (*in)
        return ERR(-XEN_EINVAL);
    *in = true;
    for (uint32_t i = 0; i < nr; i++) {
        struct multicall_entry e;
        uint64_t at = list + (uint64_t)i * sizeof(e), result = at + offsetof(struct multicall_entry, result);
        if (copy_from_guest(&e, at, sizeof(e))) {
            rc = ERR(-XEN_EFAULT);
            break;
        }
        e.result = (uint64_t)pv_hypercall_call(regs, e.op, e.args);
        if (pv_hypercall_ends_frame(e.op)) {
            /* iret replaced the multicall's own frame, as a direct iret does */
            copy_to_guest(result, &e.result, sizeof(e.result));    /* best effort, as Xen */
            rc = (long)e.result;
            break;
        }
        if (copy_to_guest(result, &e.result, sizeof(e.result))) {
            rc = ERR(-XEN_EFAULT);
            break;
        }
    }
    *in = false;
    return rc;
}
