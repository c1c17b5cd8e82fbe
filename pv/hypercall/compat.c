/*
 * compat.c: the pre-3.0.2 hypercalls the 64-bit PV ABI still has (Xen's arch/x86/compat.c,
 * in the 64-bit table of Xen 4.17 and answered by the stock shim): sched_op_compat takes its
 * argument by value (shutdown's is the reason itself), event_channel_op_compat and
 * physdev_op_compat one struct { cmd, the modern call's argument }. Each is the modern call on
 * the same terms; the struct must be readable whole (-EFAULT), and the event-channel one knows
 * only the commands that existed then (-ENOSYS for the others).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

long hc_sched_op_compat(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4,
                        uint64_t a5)
{
    int c = (int)cmd;                   /* an int in Xen's prototype */

    if (c == SCHEDOP_shutdown)
        return pv_sched_shutdown((uint8_t)arg, a3);     /* Xen takes the low byte */
    return c == SCHEDOP_yield || c == SCHEDOP_block ? hc_sched_op(regs, (uint64_t)c, 0, 0, 0, 0)
                                                  : ERR(-XEN_ENOSYS, "sched_op_compat: yield and block only");
}

long hc_event_channel_op_compat(struct cpu_regs *regs, uint64_t uop, uint64_t a2, uint64_t a3,
                                uint64_t a4, uint64_t a5)
{
    struct evtchn_op op;

    if (copy_from_guest(&op, uop, sizeof(op)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&op, uop, sizeof(op))");
    if (op.cmd > EVTCHNOP_unmask)       /* the compat call's commands are 0 (bind_interdomain) to 9 */
        return ERR(-XEN_ENOSYS);
    return hc_event_channel_op(regs, op.cmd, uop + offsetof(struct evtchn_op, u), 0, 0, 0);
}

long hc_physdev_op_compat(struct cpu_regs *regs, uint64_t uop, uint64_t a2, uint64_t a3, uint64_t a4,
                          uint64_t a5)
{
    struct physdev_op op;

    if (copy_from_guest(&op, uop, sizeof(op)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&op, uop, sizeof(op))");
    return hc_physdev_op(regs, op.cmd, uop + offsetof(struct physdev_op, u), 0, 0, 0);
}
