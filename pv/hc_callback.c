/*
 * hc_callback.c: __HYPERVISOR_callback_op: where the guest wants events, failsafe returns,
 * SYSCALL from its user mode and NMIs delivered, per vCPU as in Xen. 64-bit rules, as Xen's pv/callback.c: the event
 * callback always runs with events masked (the flag is ignored); for the others
 * CALLBACKF_mask_events says whether entering them masks events. Only the NMI callback can be
 * unregistered. (set_callbacks is the 32-bit ABI's: refused in the table.)
 */
#include "domain.h"
#include "hypercall.h"
#include "xerrno.h"

static long do_register(const struct callback_register *c)
{
    struct pv_vcpu *v = pv_current();
    bool mask = c->flags & CALLBACKF_mask_events;

    switch (c->type) {
    case CALLBACKTYPE_event:
        v->event_callback = c->address;
        return 0;
    case CALLBACKTYPE_failsafe:
        v->failsafe_callback = c->address;
        v->failsafe_mask_events = mask;
        return 0;
    case CALLBACKTYPE_syscall:
        v->syscall_callback = c->address;
        v->syscall_mask_events = mask;
        return 0;
    case CALLBACKTYPE_syscall32:
        v->syscall32_callback = c->address;
        v->syscall32_mask_events = mask;
        return 0;
    case CALLBACKTYPE_sysenter:
        v->sysenter_callback = c->address;
        v->sysenter_mask_events = mask;
        return 0;
    case CALLBACKTYPE_nmi:
        return pv_nmi_register(c->address);
    default:
        return -XEN_ENOSYS;
    }
}

long hc_callback_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (cmd) {
    case CALLBACKOP_register: {
        struct callback_register c;
        if (copy_from_guest(&c, arg, sizeof(c)))
            return -XEN_EFAULT;
        return do_register(&c);
    }
    case CALLBACKOP_unregister: {
        struct callback_unregister u;
        if (copy_from_guest(&u, arg, sizeof(u)))
            return -XEN_EFAULT;
        switch (u.type) {
        case CALLBACKTYPE_event:
        case CALLBACKTYPE_failsafe:
        case CALLBACKTYPE_syscall:
        case CALLBACKTYPE_syscall32:
        case CALLBACKTYPE_sysenter:
            return -XEN_EINVAL;         /* they stay for good */
        case CALLBACKTYPE_nmi:
            return pv_nmi_unregister();
        default:
            return -XEN_ENOSYS;
        }
    }
    default:
        return -XEN_ENOSYS;
    }
}
