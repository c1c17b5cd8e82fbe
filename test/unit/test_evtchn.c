/* test_evtchn.c: the guest's event-channel bookkeeping (pv/evtchn.c): ports, binds, close,
 * status, and the 2-level pending/mask/selector rules a guest relies on for its upcalls. */
#include <stdlib.h>
#include <string.h>

#include "pv/events/evtchn_port.h"
#include "harness.h"
#include "shim/xerrno.h"

static void test_ports(struct ev_table *t)
{
    struct evtchn_status st;
    struct ev_port was;

    ev_init(t, 2);
    CHECK_EQ(ev_alloc(t, EV_INTERDOMAIN, 0), 1);           /* lowest first, never 0 */
    CHECK_EQ(ev_alloc(t, EV_INTERDOMAIN, 0), 2);
    int ipi = ev_bind_ipi(t, 1, 0);
    CHECK_EQ(ipi, 3);
    CHECK_EQ(ev_bind_ipi(t, 2, 0), -XEN_ENOENT);            /* no such vCPU */
    int tmr = ev_bind_virq(t, VIRQ_TIMER, 0, 0);
    CHECK_EQ(tmr, 4);
    CHECK_EQ(ev_bind_virq(t, VIRQ_TIMER, 0, 0), -XEN_EEXIST);
    CHECK_EQ(ev_bind_virq(t, VIRQ_TIMER, 1, 0), 5);        /* per-vCPU: one each */
    CHECK_EQ(ev_bind_virq(t, VIRQ_TIMER, 7, 0), -XEN_ENOENT);
    CHECK_EQ(ev_bind_virq(t, VIRQ_CONSOLE, 1, 0), -XEN_EINVAL);    /* global: vCPU 0 only */
    CHECK_EQ(ev_bind_virq(t, NR_VIRQS, 0, 0), -XEN_EINVAL);
    int con = ev_bind_virq(t, VIRQ_CONSOLE, 0, 0);
    CHECK_EQ(con, 6);
    CHECK_EQ(ev_virq_port(t, 0, VIRQ_TIMER), 4);
    CHECK_EQ(ev_virq_port(t, 1, VIRQ_TIMER), 5);

    CHECK_EQ(ev_status(t, (unsigned)ipi, &st), 0);
    CHECK_EQ(st.status, EVTCHNSTAT_ipi);
    CHECK_EQ(st.vcpu, 1);
    CHECK_EQ(ev_status(t, (unsigned)tmr, &st), 0);
    CHECK_EQ(st.status, EVTCHNSTAT_virq);
    CHECK_EQ(st.u.virq, VIRQ_TIMER);
    CHECK_EQ(ev_status(t, 100, &st), 0);
    CHECK_EQ(st.status, EVTCHNSTAT_closed);
    CHECK_EQ(ev_status(t, EV_NR_PORTS, &st), -XEN_EINVAL);

    /* bind_vcpu: global VIRQs and interdomain ports move, per-vCPU VIRQs and IPIs do not */
    CHECK_EQ(ev_bind_vcpu(t, (unsigned)con, 1), 0);
    CHECK_EQ(ev_status(t, (unsigned)con, &st), 0);
    CHECK_EQ(st.vcpu, 1);
    CHECK_EQ(ev_virq_port(t, 0, VIRQ_CONSOLE), (unsigned)con);  /* still found from vCPU 0 */
    CHECK_EQ(ev_bind_vcpu(t, (unsigned)tmr, 1), -XEN_EINVAL);
    CHECK_EQ(ev_bind_vcpu(t, (unsigned)ipi, 0), -XEN_EINVAL);
    CHECK_EQ(ev_bind_vcpu(t, 1, 1), 0);
    CHECK_EQ(ev_bind_vcpu(t, 1, 9), -XEN_ENOENT);
    CHECK_EQ(ev_bind_vcpu(t, 200, 0), -XEN_EINVAL);

    /* close frees the port and the VIRQ slot; a second close fails */
    CHECK_EQ(ev_close(t, (unsigned)tmr, &was), 0);
    CHECK_EQ(was.state, EV_VIRQ);
    CHECK_EQ(ev_close(t, (unsigned)tmr, NULL), -XEN_EINVAL);
    CHECK_EQ(ev_close(t, 0, NULL), -XEN_EINVAL);
    CHECK_EQ(ev_close(t, EV_NR_PORTS + 5, NULL), -XEN_EINVAL);
    CHECK_EQ(ev_virq_port(t, 0, VIRQ_TIMER), 0);
    CHECK_EQ(ev_status(t, (unsigned)tmr, &st), 0);
    CHECK_EQ(st.status, EVTCHNSTAT_closed);
    CHECK_EQ(ev_bind_virq(t, VIRQ_TIMER, 0, 0), tmr);      /* the freed port is reused */
    CHECK_EQ(ev_close(t, (unsigned)con, NULL), 0);
    CHECK_EQ(ev_virq_port(t, 0, VIRQ_CONSOLE), 0);

    /* the L0 mapping */
    t->port[2].l0_port = 77;
    CHECK_EQ(ev_port_of_l0(t, 77), 2);
    CHECK_EQ(ev_port_of_l0(t, 78), 0);
    CHECK_EQ(ev_port_of_l0(t, 0), 0);

    /* a chosen number (on Xen, L0's): taken as asked, refused when taken or out of range */
    CHECK_EQ(ev_alloc(t, EV_INTERDOMAIN, 300), 300);
    CHECK_EQ(ev_alloc(t, EV_UNBOUND, 300), -XEN_EBUSY);
    CHECK_EQ(ev_bind_ipi(t, 0, 300), -XEN_EBUSY);
    CHECK_EQ(ev_bind_virq(t, VIRQ_DEBUG, 1, 301), 301);
    CHECK_EQ(ev_virq_port(t, 1, VIRQ_DEBUG), 301);
    CHECK_EQ(ev_alloc(t, EV_UNBOUND, EV_NR_PORTS), -XEN_ENOSPC);
    CHECK_EQ(ev_bind_virq(t, VIRQ_DEBUG, 0, 302), 302);
    CHECK_EQ(ev_bind_virq(t, VIRQ_DEBUG, 0, 303), -XEN_EEXIST);    /* checked before the number */
    CHECK(ev_get(t, 303) == NULL);

    /* exhaustion */
    ev_init(t, 1);
    int n = 0;
    while (ev_alloc(t, EV_IPI, 0) > 0)
        n++;
    CHECK_EQ(n, EV_NR_PORTS - 1);
    CHECK_EQ(ev_bind_ipi(t, 0, 0), -XEN_ENOSPC);
    CHECK(ev_get(t, 0) == NULL);
}

static void test_bitmaps(void)
{
    struct shared_info *s = calloc(1, sizeof(*s));
    struct vcpu_info *vi = &s->vcpu_info[0];
    const unsigned w = sizeof(xen_ulong_t) * 8;

    /* unmasked: pending, selector, upcall flag; only the first event tells the vCPU */
    CHECK(ev_2l_set_pending(s, vi, 3));
    CHECK(ev_2l_is_pending(s, 3));
    CHECK_EQ(vi->evtchn_pending_sel, 1);
    CHECK_EQ(vi->evtchn_upcall_pending, 1);
    CHECK(!ev_2l_set_pending(s, vi, 3));
    CHECK(!ev_2l_set_pending(s, vi, 5));                /* same word: the selector is set */
    CHECK(!ev_2l_set_pending(s, vi, w + 1));            /* new word, but the flag is already up */
    CHECK_EQ(vi->evtchn_pending_sel, 3);

    /* the guest consumed everything: a new event tells it again */
    vi->evtchn_upcall_pending = 0;
    vi->evtchn_pending_sel = 0;
    memset(s->evtchn_pending, 0, sizeof(s->evtchn_pending));
    CHECK(ev_2l_set_pending(s, vi, 2 * w + 7));
    CHECK_EQ(vi->evtchn_pending_sel, 4);

    /* masked: pending only; unmask then sets the selector and tells the vCPU */
    vi->evtchn_upcall_pending = 0;
    vi->evtchn_pending_sel = 0;
    memset(s->evtchn_pending, 0, sizeof(s->evtchn_pending));
    s->evtchn_mask[0] = 1ul << 9;
    CHECK(!ev_2l_set_pending(s, vi, 9));
    CHECK(ev_2l_is_pending(s, 9));
    CHECK_EQ(vi->evtchn_pending_sel, 0);
    CHECK_EQ(vi->evtchn_upcall_pending, 0);
    CHECK(ev_2l_is_masked(s, 9));
    CHECK(ev_2l_unmask(s, vi, 9));
    CHECK(!ev_2l_is_masked(s, 9));
    CHECK_EQ(vi->evtchn_pending_sel, 1);
    CHECK_EQ(vi->evtchn_upcall_pending, 1);
    CHECK(!ev_2l_unmask(s, vi, 9));                      /* not masked any more: nothing */

    /* unmasking a port that is not pending tells nobody */
    vi->evtchn_upcall_pending = 0;
    vi->evtchn_pending_sel = 0;
    s->evtchn_mask[0] = 1ul << 10;
    CHECK(!ev_2l_unmask(s, vi, 10));
    CHECK_EQ(vi->evtchn_upcall_pending, 0);

    ev_2l_mask(s, 11);
    CHECK(ev_2l_is_masked(s, 11));
    CHECK(!ev_2l_set_pending(s, vi, 11));
    ev_2l_clear_pending(s, 9);
    CHECK(!ev_2l_is_pending(s, 9));
    CHECK(!ev_2l_set_pending(s, vi, EV_NR_PORTS));       /* out of range: ignored */
    CHECK(ev_2l_is_masked(s, EV_NR_PORTS));
    ev_2l_mark_all(vi);
    CHECK_EQ(vi->evtchn_pending_sel, ~(xen_ulong_t)0);
    CHECK_EQ(vi->evtchn_upcall_pending, 1);
    free(s);
}

void test_evtchn(void)
{
    struct ev_table *t = malloc(sizeof(*t));

    test_ports(t);
    test_bitmaps();
    free(t);
}
