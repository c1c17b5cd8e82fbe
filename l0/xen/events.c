/* events.c: events on a Xen L0: the upcall that dispatches pending ports, and the event-channel
 * operations the shim asks of L0. */
#include "l0/evtchn.h"
#include "l0/l0.h"
#include "l0/xen/xen.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

void xen_upcall(struct cpu_regs *r)
{
    struct cpu *c = this_cpu();
    struct vcpu_info *vi = c->l0_vcpu_info;

    c->nr_upcalls++;
    while (READ_ONCE(vi->evtchn_upcall_pending)) {
        WRITE_ONCE(vi->evtchn_upcall_pending, 0);
        xen_ulong_t sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        while (sel) {
            unsigned l1 = (unsigned)__builtin_ctzl(sel);
            sel &= sel - 1;
            xen_ulong_t pend = READ_ONCE(xen_shared->evtchn_pending[l1]) & ~READ_ONCE(xen_shared->evtchn_mask[l1]);
            while (pend) {
                unsigned bit = (unsigned)__builtin_ctzl(pend);
                pend &= pend - 1;
                __atomic_fetch_and(&xen_shared->evtchn_pending[l1], ~(1ul << bit), __ATOMIC_SEQ_CST);
                evtchn_dispatch(l1 * 64 + bit);
            }
        }
    }
}

int xen_evtchn_bind_ipi(uint32_t vcpu, uint32_t *port)
{
    struct evtchn_bind_ipi b = { .vcpu = vcpu };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_bind_ipi, &b);

    *port = b.port;
    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_send(uint32_t port)
{
    struct evtchn_send s = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_send, &s);

    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_unmask(uint32_t port)
{
    struct evtchn_unmask u = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_unmask, &u);

    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_close(uint32_t port)
{
    struct evtchn_close cl = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_close, &cl);

    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_alloc_unbound(uint16_t remote_dom, uint32_t *port)
{
    struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = remote_dom };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_alloc_unbound, &a);

    *port = a.port;
    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_bind_interdomain(uint16_t remote_dom, uint32_t remote_port, uint32_t *port)
{
    struct evtchn_bind_interdomain b = { .remote_dom = remote_dom, .remote_port = remote_port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_bind_interdomain, &b);

    *port = b.local_port;
    return rc ? ERR((int)rc) : 0;
}

int xen_evtchn_status(uint32_t port, uint32_t *status, uint16_t *rdom, uint32_t *rport)
{
    struct evtchn_status st = { .dom = DOMID_SELF, .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_status, &st);

    if (rc)
        return ERR((int)rc);
    *status = st.status;
    *rdom = st.status == EVTCHNSTAT_unbound ? st.u.unbound.dom : st.u.interdomain.dom;
    *rport = st.status == EVTCHNSTAT_interdomain ? st.u.interdomain.port : 0;
    return 0;
}
