/*
 * callback.c: __HYPERVISOR_callback_op and __HYPERVISOR_set_callbacks: where the guest wants
 * events, failsafe returns, SYSCALL from its user mode and NMIs delivered, per vCPU as in Xen.
 * 64-bit rules, as Xen's pv/callback.c: a non-canonical address is refused (-EINVAL) for every
 * type (we enter callbacks with iretq, which would fault on one); the event callback always runs
 * with events masked (the flag is ignored); for the others CALLBACKF_mask_events says whether
 * entering them masks events. Only the NMI callback can be unregistered. set_callbacks is the
 * older call the 64-bit ABI keeps: event, failsafe and syscall at once, no flags, each
 * registered on its own and 0 returned whatever they were.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/traps.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

long pv_callback_register(const struct callback_register *c)
{
    struct pv_vcpu *v = pv_current();
    bool mask = c->flags & CALLBACKF_mask_events;

    if (!is_canonical(c->address))
        return ERR(-XEN_EINVAL, "!is_canonical(c->address)");
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
        return ERR(-XEN_ENOSYS);
    }
}

long hc_callback_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (cmd) {
    case CALLBACKOP_register: {
        struct callback_register c;
        if (copy_from_guest(&c, arg, sizeof(c)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&c, arg, sizeof(c))");
        return pv_callback_register(&c);
    }
    case CALLBACKOP_unregister: {
        struct callback_unregister u;
        if (copy_from_guest(&u, arg, sizeof(u)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&u, arg, sizeof(u))");
        switch (u.type) {
        case CALLBACKTYPE_event:
        case CALLBACKTYPE_failsafe:
        case CALLBACKTYPE_syscall:
        case CALLBACKTYPE_syscall32:
        case CALLBACKTYPE_sysenter:
            return ERR(-XEN_EINVAL);         /* they stay for good */
        case CALLBACKTYPE_nmi:
            return pv_nmi_unregister();
        default:
            return ERR(-XEN_ENOSYS);
        }
    }
    default:
        return ERR(-XEN_ENOSYS);
    }
}

long hc_set_callbacks(struct cpu_regs *regs, uint64_t event, uint64_t failsafe, uint64_t syscall,
                      uint64_t a4, uint64_t a5)
{
    const struct callback_register c[3] = {
        { .type = CALLBACKTYPE_event, .address = event },
        { .type = CALLBACKTYPE_failsafe, .address = failsafe },
        { .type = CALLBACKTYPE_syscall, .address = syscall },
    };

    for (unsigned i = 0; i < 3; i++)
        (void)pv_callback_register(&c[i]);
    return 0;
}
