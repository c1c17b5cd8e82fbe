/*
 * evtchn.c: __HYPERVISOR_event_channel_op, the 2-level ABI. Ports live in the guest's own
 * namespace (pv/events/evtchn_port.c): VIRQs and IPIs are the shim's alone; interdomain ports
 * (alloc_unbound, bind_interdomain) are forwarded to L0 and the table maps guest port <-> L0 port,
 * so that an event from L0 raises the right guest port (upcall.c). The console port is the shim's
 * end (send drains the ring); the store port forwards to L0's store port when there is one, else
 * the shim answers the ring itself (store.c).
 * On Xen every guest port number is one of our L0 ports, as in the stock shim: a frontend writes
 * its port into xenstore and dom0's backend binds to that number at L0. A forwarded port is L0's
 * number; a local one (VIRQ, IPI, the console) holds its number at L0 as a port left unbound to
 * ourselves, so that L0 never hands it out for anything else. Standalone the numbers are ours,
 * and an interdomain channel can only be a loopback, kept in our table alone.
 * Table changes hold ev_lock with interrupts off: another vCPU may bind or close meanwhile, and a
 * timer or L0 event may raise a port on this CPU.
 */
#include "l0/l0.h"
#include "pv/devices/console.h"
#include "pv/devices/xenstore.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/vcpu.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

static spinlock_t ev_lock = SPINLOCK_INIT;

/* DOMID_SELF as L0 knows us (Xen's status answers show the real id). */
static uint16_t self_id(uint16_t dom)
{
    uint16_t me = l0->domid ? l0->domid() : DOMID_SELF;

    return dom == DOMID_SELF ? me : dom;
}

/*
 * A loopback (an interdomain channel to ourselves): its two ends name each other in guest
 * numbers, as Xen's status shows them. Closing one leaves the other unbound for us again (Xen's
 * evtchn_close), so that a new bind_interdomain finds it so in our table. Under ev_lock.
 */
static void loop_join(unsigned a, unsigned b)
{
    struct ev_port *x = &pv_dom.ev.port[a], *y = &pv_dom.ev.port[b];

    x->state = y->state = EV_INTERDOMAIN;
    x->remote_dom = y->remote_dom = self_id(DOMID_SELF);
    x->remote_port = b;
    y->remote_port = a;
}

static void loop_part(unsigned closed, const struct ev_port *was)
{
    if (was->state != EV_INTERDOMAIN || was->special != EV_NONE || was->remote_dom != self_id(DOMID_SELF) ||
        was->remote_port == closed || !ev_get(&pv_dom.ev, was->remote_port))
        return;
    struct ev_port *o = &pv_dom.ev.port[was->remote_port];
    if (o->state == EV_INTERDOMAIN && o->remote_port == closed) {
        o->state = EV_UNBOUND;
        o->remote_port = 0;
    }
}

/* The number for a new local port: one held at L0 (Xen), or 0 (standalone: the lowest free). */
int pv_evtchn_hold_number(uint32_t *at)
{
    *at = 0;
    return l0->evtchn_alloc_unbound ? l0->evtchn_alloc_unbound(DOMID_SELF, at) : 0;
}

static void release_number(uint32_t at)
{
    if (at && l0->evtchn_close)
        l0->evtchn_close(at);
}

/* Bind a VIRQ or an IPI at a number held for it (ipi: virq unused). */
static int bind_local(bool ipi, unsigned virq, unsigned vcpu)
{
    uint32_t at;
    int rc = pv_evtchn_hold_number(&at);

    if (rc)
        return rc;
    uint64_t f = spin_lock_irqsave(&ev_lock);
    rc = ipi ? ev_bind_ipi(&pv_dom.ev, vcpu, at) : ev_bind_virq(&pv_dom.ev, virq, vcpu, at);
    if (rc > 0)
        pv_dom.ev.port[rc].held = at != 0;
    spin_unlock_irqrestore(&ev_lock, f);
    if (rc < 0)
        release_number(at);
    return rc;
}

/*
 * Standalone there is no L0 to hold interdomain ports and no other domain: alloc_unbound gives a
 * port of our own table, which only we can bind (a loopback, as Xen allows one), and the two
 * ends of a loopback raise each other. Under Xen every such port is L0's (l0_port set).
 */
static bool local_loop(const struct ev_port *e)
{
    return !l0->evtchn_bind_interdomain && e->state == EV_INTERDOMAIN && e->special == EV_NONE &&
           !e->l0_port;
}

static long send(unsigned port)
{
    const struct ev_port *e = ev_get(&pv_dom.ev, port);

    if (!e)
        return ERR(-XEN_EINVAL, "!e");
    switch (e->state) {
    case EV_IPI:
        pv_evtchn_raise(port);
        return 0;
    case EV_INTERDOMAIN:
        if (e->special == EV_CONSOLE) {
            pv_console_kick();
            return 0;
        }
        if (e->special == EV_STORE && !e->l0_port) {
            pv_store_kick();            /* standalone: our own answerer (store.c) */
            return 0;
        }
        if (local_loop(e)) {
            pv_evtchn_raise(e->remote_port);
            return 0;
        }
        return e->l0_port && l0->evtchn_send ? l0->evtchn_send(e->l0_port) : 0;
    case EV_UNBOUND:
        /* Another domain binds to it at L0 without telling us (a frontend's port, bound by dom0's
         * backend): L0 knows whether anybody is there, and drops the event if nobody is, as Xen */
        return e->l0_port && l0->evtchn_send ? l0->evtchn_send(e->l0_port) : 0;
    default:
        return ERR(-XEN_EINVAL);             /* a VIRQ port cannot be sent on */
    }
}

static long close_port(unsigned port)
{
    struct ev_port was;
    uint64_t f = spin_lock_irqsave(&ev_lock);
    int rc = ev_close(&pv_dom.ev, port, &was);

    if (rc == 0) {
        /* not pending: a port bound later under this number starts without a stale event
         * (Xen's evtchn_close clears it; the mask is the guest's, and stays as it was) */
        pv_port_quiet(port);
        loop_part(port, &was);
        if (was.l0_port)
            l0_port_unbind(was.l0_port);
    }
    spin_unlock_irqrestore(&ev_lock, f);
    if (rc == 0 && was.l0_port && was.special != EV_STORE)
        release_number(was.l0_port);    /* the store's L0 port is the shim's to keep */
    if (rc == 0 && was.held)
        release_number(port);
    return rc;
}

/* A port bound at L0: take a guest port for it and route its events; undo at L0 if that fails. */
static long bind_l0(enum ev_state state, uint16_t rdom, uint32_t rport, uint32_t l0_port)
{
    uint64_t f = spin_lock_irqsave(&ev_lock);
    int p = ev_alloc(&pv_dom.ev, state, l0_port);   /* L0's number: free, since we hold ours there */

    if (p > 0) {
        struct ev_port *e = &pv_dom.ev.port[p];
        e->remote_dom = rdom;
        e->remote_port = rport;
        e->l0_port = l0_port;
        if (pv_evtchn_route_l0((unsigned)p, l0_port)) {
            ev_close(&pv_dom.ev, (unsigned)p, NULL);
            p = -XEN_EBUSY;
        }
    }
    spin_unlock_irqrestore(&ev_lock, f);
    if (p < 0 && l0->evtchn_close)
        l0->evtchn_close(l0_port);
    return p;
}

static long local_unbound(uint16_t rdom)
{
    uint64_t f = spin_lock_irqsave(&ev_lock);
    int p = ev_alloc(&pv_dom.ev, EV_UNBOUND, 0);

    if (p > 0) {
        pv_dom.ev.port[p].remote_dom = rdom;
        pv_dom.ev.port[p].remote_port = 0;
    }
    spin_unlock_irqrestore(&ev_lock, f);
    return p;
}

/* Xen's evtchn_bind_interdomain: the remote port must be unbound and kept for us. */
static long local_bind_interdomain(uint16_t rdom, unsigned rport)
{
    const uint16_t me = self_id(DOMID_SELF);

    if (rdom != me)
        return ERR(-XEN_ESRCH, "standalone: no domain but ourselves");
    uint64_t f = spin_lock_irqsave(&ev_lock);
    const struct ev_port *r = ev_get(&pv_dom.ev, rport);
    int p;

    if (!r || r->state != EV_UNBOUND || r->remote_dom != me || r->l0_port)
        p = ERR(-XEN_EINVAL, "the remote port is not one left unbound for us");
    else
        p = ev_alloc(&pv_dom.ev, EV_INTERDOMAIN, 0);
    if (p > 0)
        loop_join((unsigned)p, rport);
    spin_unlock_irqrestore(&ev_lock, f);
    return p;
}

/*
 * The remote port is in the remote domain's namespace, except for a loopback to ourselves: then
 * it is one of the guest's ports, an unbound one L0 knows by its own number (loop_join).
 */
static int bind_interdomain(struct evtchn_bind_interdomain *b)
{
    uint16_t rdom = self_id(b->remote_dom);
    bool loop = rdom == self_id(DOMID_SELF);
    uint32_t rport = b->remote_port, l0_port;
    int rc;

    if (loop) {
        const struct ev_port *r = ev_get(&pv_dom.ev, b->remote_port);
        if (!r || r->state != EV_UNBOUND || !r->l0_port)
            return ERR(-XEN_EINVAL, "!r || r->state != EV_UNBOUND || !r->l0_port");
        rport = r->l0_port;
    }
    if ((rc = l0->evtchn_bind_interdomain(b->remote_dom, rport, &l0_port)))
        return rc;
    if ((rc = (int)bind_l0(EV_INTERDOMAIN, rdom, b->remote_port, l0_port)) < 0)
        return rc;
    if (loop) {
        uint64_t f = spin_lock_irqsave(&ev_lock);
        loop_join((unsigned)rc, b->remote_port);
        spin_unlock_irqrestore(&ev_lock, f);
    }
    b->local_port = (evtchn_port_t)rc;
    return 0;
}

/* Forwarded ports: L0 knows whether the other end has bound meanwhile. */
static int status(struct evtchn_status *st)
{
    const struct ev_port *e = ev_get(&pv_dom.ev, st->port);
    uint32_t s, rport;
    uint16_t rdom;
    int rc = ev_status(&pv_dom.ev, st->port, st);

    if (rc || !e || !e->l0_port || !l0->evtchn_status || l0->evtchn_status(e->l0_port, &s, &rdom, &rport))
        return rc;
    if (s == EVTCHNSTAT_unbound) {
        st->status = s;
        st->u.unbound.dom = rdom;
    } else if (s == EVTCHNSTAT_interdomain) {
        st->status = s;
        st->u.interdomain.dom = rdom;
        /* a loopback's other end is ours: its guest number */
        st->u.interdomain.port = rdom == self_id(DOMID_SELF) ? ev_port_of_l0(&pv_dom.ev, rport) : rport;
    }
    return 0;
}

static long reset(void)
{
    for (unsigned p = 1; p < EV_NR_PORTS; p++) {
        const struct ev_port *e = ev_get(&pv_dom.ev, p);
        if (e && e->special == EV_NONE)
            close_port(p);              /* the console and store ports stay: nobody could rebind them */
    }
    pv_fifo_stop();                     /* as Xen: a reset domain is back on the 2-level ABI */
    return 0;
}

#define ARG(type, name) \
    type name; \
    if (copy_from_guest(&name, arg, sizeof(name))) \
        return ERR(-XEN_EFAULT, "the argument cannot be read")
#define PUT(name) (copy_to_guest(arg, &name, sizeof(name)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0)

long hc_event_channel_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4,
                         uint64_t a5)
{
    int rc;

    switch (cmd) {
    case EVTCHNOP_send: {
        ARG(struct evtchn_send, s);
        return send(s.port);
    }
    case EVTCHNOP_bind_virq: {
        ARG(struct evtchn_bind_virq, b);
        if ((rc = bind_local(false, b.virq, b.vcpu)) < 0)
            return rc;
        if (b.virq == VIRQ_TIMER)
            pv_timer_virq_bound(&pv_dom.vcpu[b.vcpu]);
        b.port = (evtchn_port_t)rc;
        return PUT(b);
    }
    case EVTCHNOP_bind_ipi: {
        ARG(struct evtchn_bind_ipi, b);
        if ((rc = bind_local(true, 0, b.vcpu)) < 0)
            return rc;
        b.port = (evtchn_port_t)rc;
        return PUT(b);
    }
    case EVTCHNOP_alloc_unbound: {
        ARG(struct evtchn_alloc_unbound, a);
        uint32_t l0_port;
        if (a.dom != DOMID_SELF)
            return ERR(-XEN_EPERM, "only for itself, as a domU");
        if (!l0->evtchn_alloc_unbound)
            rc = (int)local_unbound(self_id(a.remote_dom));
        else if ((rc = l0->evtchn_alloc_unbound(a.remote_dom, &l0_port)) == 0)
            rc = (int)bind_l0(EV_UNBOUND, self_id(a.remote_dom), 0, l0_port);
        if (rc < 0)
            return rc;
        a.port = (evtchn_port_t)rc;
        return PUT(a);
    }
    case EVTCHNOP_bind_interdomain: {
        ARG(struct evtchn_bind_interdomain, b);
        if (!l0->evtchn_bind_interdomain) {
            if ((rc = (int)local_bind_interdomain(self_id(b.remote_dom), b.remote_port)) < 0)
                return rc;
            b.local_port = (evtchn_port_t)rc;
        } else if ((rc = bind_interdomain(&b)) < 0) {
            return rc;
        }
        return PUT(b);
    }
    case EVTCHNOP_close: {
        ARG(struct evtchn_close, c);
        return close_port(c.port);
    }
    case EVTCHNOP_status: {
        ARG(struct evtchn_status, st);
        if (st.dom != DOMID_SELF && st.dom != self_id(DOMID_SELF))
            return ERR(-XEN_EPERM, "st.dom != DOMID_SELF && st.dom != self_id(DOMID_SELF)");
        if ((rc = status(&st)))
            return rc;
        return PUT(st);
    }
    case EVTCHNOP_bind_vcpu: {
        ARG(struct evtchn_bind_vcpu, b);
        uint64_t f = spin_lock_irqsave(&ev_lock);
        rc = ev_bind_vcpu(&pv_dom.ev, b.port, b.vcpu);
        spin_unlock_irqrestore(&ev_lock, f);
        return rc;
    }
    case EVTCHNOP_unmask: {
        ARG(struct evtchn_unmask, u);
        const struct ev_port *e = ev_get(&pv_dom.ev, u.port);
        if (u.port >= EV_NR_PORTS)
            return ERR(-XEN_EINVAL, "u.port >= EV_NR_PORTS");
        /* a free port is unmasked too (Xen checks only the range); its notify vCPU is 0 */
        struct pv_vcpu *v = &pv_dom.vcpu[e ? e->vcpu : 0];
        if (pv_port_unmask(u.port, v))
            pv_vcpu_kick(v);            /* another vCPU's; ours takes it on the way back */
        return 0;
    }
    case EVTCHNOP_init_control: {
        ARG(struct evtchn_init_control, ic);
        if ((rc = pv_fifo_init_control(&ic)))
            return rc;
        return PUT(ic);                 /* link_bits */
    }
    case EVTCHNOP_expand_array: {
        ARG(struct evtchn_expand_array, e);
        return pv_fifo_expand_array(e.array_gfn);
    }
    case EVTCHNOP_set_priority: {
        ARG(struct evtchn_set_priority, sp);
        return pv_fifo_set_priority(sp.port, sp.priority);
    }
    case EVTCHNOP_reset: {
        ARG(struct evtchn_reset, r);
        return r.dom == DOMID_SELF ? reset() : ERR(-XEN_EPERM, "reset of another domain");
    }
    default:
        return hc_subop_refuse(&hc_subops_event_channel_op, cmd);
    }
}
