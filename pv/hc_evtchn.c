/*
 * hc_evtchn.c: __HYPERVISOR_event_channel_op. For now the guest has two ports of its own: the
 * console (drained by the shim) and the store (forwarded to L0's store port when L0 has one).
 * Guest event delivery (upcalls) comes with the event-channel work.
 */
#include "domain.h"
#include "hypercall.h"
#include "l0.h"
#include "xerrno.h"

long hc_event_channel_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct evtchn_send s;

    switch (cmd) {
    case EVTCHNOP_send:
        if (copy_from_guest(&s, arg, sizeof(s)))
            return -XEN_EFAULT;
        if (s.port == PV_PORT_CONSOLE) {
            pv_console_kick();
            return 0;
        }
        if (s.port == PV_PORT_STORE)
            return pv_dom.store_l0_port && l0->evtchn_send ? l0->evtchn_send(pv_dom.store_l0_port) : 0;
        return -XEN_EINVAL;
    case EVTCHNOP_init_control:
        return -XEN_EOPNOTSUPP;         /* no FIFO ABI: the guest uses 2-level */
    default:
        return -XEN_ENOSYS;
    }
}
