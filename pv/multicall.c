/*
 * multicall.c: __HYPERVISOR_multicall, a list of hypercalls in one trap (Linux batches page-table
 * updates and context-switch work this way). Each entry's result is written back; the list itself
 * returns 0 unless it cannot be read. As in Xen, iret is refused inside a list (-ENOSYS: it would
 * return to the guest in the middle), and so is a nested multicall (-EINVAL).
 */
#include "domain.h"
#include "debug.h"
#include "hypercall.h"
#include "xerrno.h"

static bool in_multicall[PV_MAX_VCPUS]; /* per vCPU, as Xen's mc_state: another vCPU's list is no reentry */

long hc_multicall(uint64_t list, uint64_t count, uint64_t a3, uint64_t a4, uint64_t a5)
{
    bool *in = &in_multicall[pv_current()->id];
    uint32_t nr = (uint32_t)count;      /* Xen's nr_calls is an unsigned int */

    if (*in)
        return ERR(-XEN_EINVAL);
    *in = true;
    for (uint32_t i = 0; i < nr; i++) {
        struct multicall_entry e;
        uint64_t at = list + (uint64_t)i * sizeof(e);
        if (copy_from_guest(&e, at, sizeof(e))) {
            *in = false;
            return ERR(-XEN_EFAULT);
        }
        if (e.op == __HYPERVISOR_iret)
            e.result = (uint64_t)-XEN_ENOSYS;
        else
            e.result = (uint64_t)pv_hypercall_call(e.op, e.args);
        if (copy_to_guest(at + offsetof(struct multicall_entry, result), &e.result, sizeof(e.result))) {
            *in = false;
            return ERR(-XEN_EFAULT);
        }
    }
    *in = false;
    return 0;
}
