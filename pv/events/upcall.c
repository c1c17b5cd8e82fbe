/*
 * upcall.c: delivering the guest's events. A port that fires sets its pending bit in shared_info
 * and, unless masked, the selector bit and evtchn_upcall_pending of the vCPU it notifies
 * (pv/evtchn.c). On every return to the guest (end of a hypercall, an exception bounce, an
 * interrupt that came from the guest) pv_upcall_check looks at that flag: pending and not
 * masked in vcpu_info, the guest enters its event callback on a bounce frame with events masked,
 * as Xen's test_guest_events does. Its iret unmasks them, and the next return re-checks.
 *
 * Ports forwarded to L0 (the store today, interdomain ports later) come in through the shim's
 * own L0 event dispatcher, which raises the guest port here.
 */
#include "l0/l0.h"
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

void pv_upcall_check(struct cpu_regs *r)
{
    struct pv_vcpu *v = pv_current();
    struct vcpu_info *vi = v->vi;

    if (!(r->cs & 3))
        return;                         /* not back to the guest */
    pv_vcpu_park(v);                    /* VCPUOP_down: not until the next up */
    pv_nmi_deliver(r);                  /* NMIs first, as Xen; a masked event callback then waits */
    if (vi && l0->clock_gen && l0->clock_gen() != v->clock_gen)
        pv_time_update();               /* L0 gave this CPU a new clock line: the guest's follows */
    if (!vi || !v->event_callback)
        return;                         /* nowhere to deliver */
    if (!READ_ONCE(vi->evtchn_upcall_pending) || READ_ONCE(vi->evtchn_upcall_mask))
        return;
    pv_time_update();                   /* a timer event: the guest reads the clock next */
    pv_bounce(r, v->event_callback, true, -1);
    pv_dom.nr_upcalls++;
}

bool pv_events_pending(const struct pv_vcpu *v)
{
    return READ_ONCE(v->vi->evtchn_upcall_pending);
}

void pv_evtchn_raise(unsigned port)
{
    const struct ev_port *e = ev_get(&pv_dom.ev, port);

    if (!e)
        return;
    struct pv_vcpu *v = &pv_dom.vcpu[e->vcpu];
    bool upcall = pv_port_set_pending(port, v);
    /* The vCPU's own CPU sees the flag on its way back to the guest. Another CPU needs a kick if
     * this made an upcall pending, or if its vCPU waits in block or poll (poll also ends on a
     * masked port); the set_pending above is a locked operation, ordered before this read. */
    if (v == pv_current())
        v->raised_here++;               /* interrupts are off: no other writer on this CPU */
    else if (upcall || __atomic_load_n(&v->blocked, __ATOMIC_SEQ_CST))
        pv_vcpu_kick(v);
}

void pv_virq_raise(struct pv_vcpu *v, unsigned virq)
{
    unsigned port = ev_virq_port(&pv_dom.ev, v->id, virq);

    if (port)
        pv_evtchn_raise(port);
}

/* An L0 port the guest has a port for fired (shim interrupt context). */
static void from_l0(uint32_t l0_port, void *arg)
{
    pv_evtchn_raise((unsigned)(uintptr_t)arg);
}

void pv_evtchn_init(void)
{
    struct ev_table *t = &pv_dom.ev;

    ev_init(t, pv_dom.nr_vcpus);
    /* start_info's ports: interdomain to dom0 as the guest sees them, the shim's end in fact. On
     * Xen the console's number is held at L0 and the store's is L0's (hypercall/evtchn.c). */
    uint32_t held;
    int rc = pv_evtchn_hold_number(&held);

    if (rc) {
        /* a local number may later clash with a port L0 gives a frontend: that bind then fails */
        pr_warn("events: L0 gave no port number for the guest's console (%d); using a local one\n", rc);
        held = 0;
    }
    int con = ev_alloc(t, EV_INTERDOMAIN, held);
    int st = ev_alloc(t, EV_INTERDOMAIN, pv_dom.store_l0_port);

    ASSERT(con > 0 && st > 0);
    pv_dom.console_port = (unsigned)con;
    pv_dom.store_port = (unsigned)st;
    t->port[con].special = EV_CONSOLE;
    t->port[con].held = held != 0;
    pv_console_init();
    t->port[st].special = EV_STORE;
    t->port[st].l0_port = pv_dom.store_l0_port;
    if (pv_dom.store_l0_port)
        (void)l0_port_bind(pv_dom.store_l0_port, from_l0, (void *)(uintptr_t)pv_dom.store_port);
}

/* hypercall/evtchn.c forwards interdomain ports; their L0 end is routed here. */
int pv_evtchn_route_l0(unsigned port, uint32_t l0_port)
{
    return l0_port_bind(l0_port, from_l0, (void *)(uintptr_t)port);
}
