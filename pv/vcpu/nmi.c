/*
 * nmi.c: virtual NMIs for the guest, as Xen 4.17 gives them to PV vCPUs. There are no hardware
 * NMIs for a PV domU: the only source is VCPUOP_send_nmi (Linux's NMI IPIs, for backtraces and
 * the crash path). The handler is trap-table vector 2, which set_trap_table, VCPUOP_initialise,
 * CALLBACKOP_register(nmi) and nmi_op(XENNMI_register_callback) all write; a registered NMI
 * callback is an interrupt gate (events masked on entry). One pending NMI per vCPU: sends before
 * its delivery coalesce. Delivery masks further NMIs until the guest's next iret hypercall (any
 * iret, as Xen's async_exception_cleanup). An NMI with no handler is dropped when it would be
 * delivered, and not re-raised by a later registration (that is dom0's hardware NMI only).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define TRAP_NMI 2
#define TI_MASK_EVENTS 4

long pv_nmi_register(uint64_t address)
{
    struct pv_trap *t = &pv_current()->traps[TRAP_NMI];

    if (!is_canonical(address))
        return ERR(-XEN_EINVAL, "!is_canonical(address)");
    t->address = address;
    t->cs = FLAT_KERNEL_CS;
    t->flags = TI_MASK_EVENTS;
    return 0;
}

long pv_nmi_unregister(void)
{
    pv_current()->traps[TRAP_NMI] = (struct pv_trap){ 0 };
    return 0;
}

long hc_nmi_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct xennmi_callback cb;

    switch (cmd) {
    case XENNMI_register_callback:
        if (copy_from_guest(&cb, arg, sizeof(cb)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&cb, arg, sizeof(cb))");
        return pv_nmi_register(cb.handler_address);
    case XENNMI_unregister_callback:
        return pv_nmi_unregister();
    default:
        return ERR(-XEN_ENOSYS);
    }
}

/* VCPUOP_send_nmi: its argument must be NULL, as Xen's. */
long pv_nmi_send(struct pv_vcpu *v, uint64_t arg)
{
    if (arg)
        return ERR(-XEN_EINVAL, "arg");
    if (!__atomic_exchange_n(&v->nmi_pending, true, __ATOMIC_SEQ_CST))
        pv_vcpu_kick(v);
    return 0;
}

/* On the way back to the guest, before events (Xen's order); interrupts are off. */
void pv_nmi_deliver(struct cpu_regs *r)
{
    struct pv_vcpu *v = pv_current();

    if (v->nmi_masked || !READ_ONCE(v->nmi_pending))
        return;
    __atomic_store_n(&v->nmi_pending, false, __ATOMIC_SEQ_CST);
    const struct pv_trap *t = &v->traps[TRAP_NMI];
    if (!t->address)
        return;                         /* no handler: the NMI is lost, as on Xen */
    v->nmi_masked = true;
    pv_bounce(r, t->address, t->flags & TI_MASK_EVENTS, -1);
}
