/*
 * mode.c: guest kernel mode and guest user mode. Both run in ring 3; what differs is the page
 * table (the kernel's L4, or the user L4 given with MMUEXT_NEW_USER_BASEPTR, which does not map
 * the kernel) and the GS base (swapgs, as the guest kernel cannot do it). Entering the kernel
 * from user mode (an exception, an event, a SYSCALL) moves to the kernel stack given with
 * stack_switch; the iret hypercall with a user CS goes back.
 */
#include "domain.h"
#include "x86.h"

/* While the shim runs, the guest's active GS base sits in MSR_KERNEL_GS_BASE (our swapgs at
 * entry); the inactive one is kept in pv_dom.gs_base_user. Switching modes exchanges them. */
static void swap_gs(void)
{
    uint64_t active = rdmsr(MSR_KERNEL_GS_BASE);

    wrmsr(MSR_KERNEL_GS_BASE, pv_dom.gs_base_user);
    pv_dom.gs_base_user = active;
}

void pv_to_kernel_mode(void)
{
    if (!pv_dom.user_mode)
        return;
    swap_gs();
    write_cr3(pv_dom.cr3);
    pv_dom.user_mode = false;
}

bool pv_to_user_mode(void)
{
    if (!pv_dom.cr3_user_mfn)
        return false;
    if (pv_dom.user_mode)
        return true;
    swap_gs();
    write_cr3(pv_dom.cr3_user_mfn << PAGE_SHIFT);
    pv_dom.user_mode = true;
    return true;
}
