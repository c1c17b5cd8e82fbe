/*
 * mode.c: guest kernel mode and guest user mode. Both run in ring 3; what differs is the page
 * table (the kernel's L4, or the user L4 given with MMUEXT_NEW_USER_BASEPTR, which does not map
 * the kernel) and the GS base (swapgs, as the guest kernel cannot do it). Entering the kernel
 * from user mode (an exception, an event, a SYSCALL) moves to the kernel stack given with
 * stack_switch; the iret hypercall with a user CS goes back.
 */
#include "pv/domain/domain.h"
#include "pv/vcpu/traps.h"
#include "shim/flush.h"
#include "pv/mm/pagetype.h"
#include "shim/cpu.h"
#include "shim/x86.h"
#include "shim/xpti.h"

/* While the shim runs, the guest's active GS base sits in MSR_KERNEL_GS_BASE (our swapgs at
 * entry); the inactive one is kept in pv_current()->gs_base_user. Switching modes exchanges them. */
static void swap_gs(struct pv_vcpu *v)
{
    uint64_t active = rdmsr(MSR_KERNEL_GS_BASE);

    wrmsr(MSR_KERNEL_GS_BASE, v->gs_base_user);
    v->gs_base_user = active;
}

void pv_to_kernel_mode(void)
{
    struct pv_vcpu *v = pv_current();

    if (!v->user_mode)
        return;
    swap_gs(v);
    flush_load_cr3(v->cr3);
    xpti_to_kernel(this_cpu());
    v->user_mode = false;
}

bool pv_to_user_mode(void)
{
    struct pv_vcpu *v = pv_current();

    if (!v->cr3_user_mfn)
        return false;
    if (v->user_mode)
        return true;
    swap_gs(v);
    flush_load_cr3(v->cr3_user_mfn << PAGE_SHIFT);
    xpti_to_user(this_cpu(), pt_frame(v->cr3_user_mfn), v->cr3_user_mfn);
    v->user_mode = true;
    return true;
}
