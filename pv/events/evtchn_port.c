/*
 * evtchn_port.c: event-channel ports and the 2-level bitmaps (see evtchn_port.h). The rules are Xen's
 * (common/event_channel.c, event_2l.c): per-vCPU VIRQs (timer, debug) may be bound on any vCPU,
 * global ones only on vCPU 0 and moved with bind_vcpu; a VIRQ is bound at most once per vCPU;
 * closing a port clears its pending bit so a later bind starts clean.
 */
#include "pv/events/evtchn_port.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define WORD_BITS (sizeof(xen_ulong_t) * 8)

static bool words32;                    /* a 32-bit guest's 2-level words (below) */

/* The ports a guest has: a 32-bit guest's 2-level ABI covers 1024 (kept with FIFO too: under Xen
 * L0's numbers stay below that by default). */
unsigned ev_nr_ports(void)
{
    return words32 ? 1024 : EV_NR_PORTS;
}

static bool virq_is_global(unsigned virq)
{
    return virq != VIRQ_TIMER && virq != VIRQ_DEBUG && virq != VIRQ_XENOPROF && virq != VIRQ_XENPMU;
}

void ev_init(struct ev_table *t, unsigned nr_vcpus)
{
    memset(t, 0, sizeof(*t));
    t->nr_vcpus = MIN(nr_vcpus, EV_MAX_VCPUS);
}

int ev_alloc(struct ev_table *t, enum ev_state state, unsigned at)
{
    unsigned p = at;

    if (at >= ev_nr_ports())
        return ERR(-XEN_ENOSPC, "past the guest's ports");
    if (!at)
        for (p = 1; p < ev_nr_ports() && t->port[p].state != EV_FREE; p++)
            ;
    if (p >= ev_nr_ports())
        return ERR(-XEN_ENOSPC, "no free port");
    if (t->port[p].state != EV_FREE)
        return ERR(-XEN_EBUSY, "t->port[p].state != EV_FREE");
    t->port[p] = (struct ev_port){ .state = (uint8_t)state, .priority = EVTCHN_FIFO_PRIORITY_DEFAULT };
    return (int)p;
}

int ev_bind_virq(struct ev_table *t, unsigned virq, unsigned vcpu, unsigned at)
{
    if (virq >= NR_VIRQS || (virq_is_global(virq) && vcpu != 0))
        return ERR(-XEN_EINVAL, "virq >= NR_VIRQS || (virq_is_global(virq) && vcpu != 0)");
    if (vcpu >= t->nr_vcpus)
        return ERR(-XEN_ENOENT, "vcpu >= t->nr_vcpus");
    if (t->virq_port[vcpu][virq])
        return ERR(-XEN_EEXIST, "t->virq_port[vcpu][virq]");
    int p = ev_alloc(t, EV_VIRQ, at);
    if (p < 0)
        return p;
    t->port[p].virq = (uint16_t)virq;
    t->port[p].vcpu = (uint16_t)vcpu;
    t->virq_port[vcpu][virq] = (uint16_t)p;
    return p;
}

int ev_bind_ipi(struct ev_table *t, unsigned vcpu, unsigned at)
{
    if (vcpu >= t->nr_vcpus)
        return ERR(-XEN_ENOENT, "vcpu >= t->nr_vcpus");
    int p = ev_alloc(t, EV_IPI, at);
    if (p > 0)
        t->port[p].vcpu = (uint16_t)vcpu;
    return p;
}

int ev_close(struct ev_table *t, unsigned port, struct ev_port *was)
{
    if (!ev_get(t, port))
        return ERR(-XEN_EINVAL, "!ev_get(t, port)");
    struct ev_port *e = &t->port[port];
    unsigned owner = e->state == EV_VIRQ && virq_is_global(e->virq) ? 0 : e->vcpu;
    if (e->state == EV_VIRQ && t->virq_port[owner][e->virq] == port)
        t->virq_port[owner][e->virq] = 0;
    if (was)
        *was = *e;
    memset(e, 0, sizeof(*e));
    return 0;
}

int ev_status(const struct ev_table *t, unsigned port, struct evtchn_status *st)
{
    if (port >= ev_nr_ports())
        return ERR(-XEN_EINVAL, "past the guest's ports");
    const struct ev_port *e = &t->port[port];
    st->vcpu = e->vcpu;
    switch (e->state) {
    case EV_UNBOUND:
        st->status = EVTCHNSTAT_unbound;
        st->u.unbound.dom = e->remote_dom;
        break;
    case EV_INTERDOMAIN:
        st->status = EVTCHNSTAT_interdomain;
        st->u.interdomain.dom = e->remote_dom;
        st->u.interdomain.port = e->remote_port;
        break;
    case EV_VIRQ:
        st->status = EVTCHNSTAT_virq;
        st->u.virq = e->virq;
        break;
    case EV_IPI:
        st->status = EVTCHNSTAT_ipi;
        break;
    default:
        st->status = EVTCHNSTAT_closed;
        st->vcpu = 0;
        break;
    }
    return 0;
}

int ev_bind_vcpu(struct ev_table *t, unsigned port, unsigned vcpu)
{
    if (vcpu >= t->nr_vcpus)
        return ERR(-XEN_ENOENT, "vcpu >= t->nr_vcpus");
    if (!ev_get(t, port))
        return ERR(-XEN_EINVAL, "!ev_get(t, port)");
    struct ev_port *e = &t->port[port];
    switch (e->state) {
    case EV_VIRQ:
        if (!virq_is_global(e->virq))
            return ERR(-XEN_EINVAL, "a per-vCPU VIRQ belongs to its vCPU");
        break;                          /* a global one stays in vCPU 0's table, as Xen's */
    case EV_UNBOUND:
    case EV_INTERDOMAIN:
        break;
    default:
        return ERR(-XEN_EINVAL);             /* an IPI port is bound to its vCPU for good */
    }
    e->vcpu = (uint16_t)vcpu;
    return 0;
}

unsigned ev_virq_port(const struct ev_table *t, unsigned vcpu, unsigned virq)
{
    return vcpu < t->nr_vcpus && virq < NR_VIRQS ? t->virq_port[vcpu][virq] : 0;
}

unsigned ev_port_of_l0(const struct ev_table *t, uint32_t l0_port)
{
    for (unsigned p = 1; l0_port && p < EV_NR_PORTS; p++)
        if (t->port[p].state != EV_FREE && t->port[p].l0_port == l0_port)
            return p;
    return 0;
}

static bool test_and_set(xen_ulong_t *w, unsigned bit)
{
    xen_ulong_t m = (xen_ulong_t)1 << bit;
    return __atomic_fetch_or(w, m, __ATOMIC_SEQ_CST) & m;
}

static bool test_and_clear(xen_ulong_t *w, unsigned bit)
{
    xen_ulong_t m = (xen_ulong_t)1 << bit;
    return __atomic_fetch_and(w, ~m, __ATOMIC_SEQ_CST) & m;
}

static bool test(const xen_ulong_t *w, unsigned bit)
{
    return (__atomic_load_n(w, __ATOMIC_SEQ_CST) >> bit) & 1;
}

/*
 * A 32-bit guest's shared_info (ev_2l_compat) has 32-bit words: its selector is the 32 bits at
 * offset 4 of the vcpu_info, its mask bitmap follows 32 words of pending bits, and it has 1024
 * ports. Both bitmaps are little-endian from a fixed byte, so 64-bit words over them name the
 * same bits (the pending one starts where the native one does).
 */
void ev_2l_compat(bool on)
{
    words32 = on;
}

static unsigned nr_2l(void)
{
    return ev_nr_ports();
}

static xen_ulong_t *mask_of(const struct shared_info *s)
{
    /* 32-bit: right after 32 pending words of 4 bytes */
    return words32 ? (xen_ulong_t *)((uintptr_t)s->evtchn_pending + 32 * 4) : (xen_ulong_t *)s->evtchn_mask;
}

/* The selector bit for the port's word, then the vCPU-wide flag: true if that went 0 -> 1. */
static bool mark_word(struct vcpu_info *vi, unsigned port)
{
    if (words32) {
        uint32_t *sel = (uint32_t *)((uintptr_t)vi + 4), m = 1u << (port / 32);
        if (__atomic_fetch_or(sel, m, __ATOMIC_SEQ_CST) & m)
            return false;
    } else if (test_and_set(&vi->evtchn_pending_sel, port / WORD_BITS)) {
        return false;
    }
    return !__atomic_exchange_n(&vi->evtchn_upcall_pending, 1, __ATOMIC_SEQ_CST);
}

bool ev_2l_set_pending(struct shared_info *s, struct vcpu_info *vi, unsigned port)
{
    if (port >= nr_2l() || test_and_set(&s->evtchn_pending[port / WORD_BITS], port % WORD_BITS))
        return false;                   /* already pending: the guest was told then */
    if (test(&mask_of(s)[port / WORD_BITS], port % WORD_BITS))
        return false;                   /* masked: unmask will tell it */
    return mark_word(vi, port);
}

bool ev_2l_unmask(struct shared_info *s, struct vcpu_info *vi, unsigned port)
{
    if (port >= nr_2l() || !test_and_clear(&mask_of(s)[port / WORD_BITS], port % WORD_BITS))
        return false;
    return test(&s->evtchn_pending[port / WORD_BITS], port % WORD_BITS) && mark_word(vi, port);
}

void ev_2l_clear_pending(struct shared_info *s, unsigned port)
{
    if (port < nr_2l())
        test_and_clear(&s->evtchn_pending[port / WORD_BITS], port % WORD_BITS);
}

void ev_2l_mask(struct shared_info *s, unsigned port)
{
    if (port < nr_2l())
        test_and_set(&mask_of(s)[port / WORD_BITS], port % WORD_BITS);
}

bool ev_2l_is_pending(const struct shared_info *s, unsigned port)
{
    return port < nr_2l() && test(&s->evtchn_pending[port / WORD_BITS], port % WORD_BITS);
}

bool ev_2l_is_masked(const struct shared_info *s, unsigned port)
{
    return port >= nr_2l() || test(&mask_of(s)[port / WORD_BITS], port % WORD_BITS);
}

/* A new domain's 2-level state (a restore): nothing pending, every port masked, no selector bits. */
void ev_2l_reset(struct shared_info *s, unsigned nr_vcpus)
{
    memset(s->evtchn_pending, 0, nr_2l() / 8);
    memset(mask_of(s), 0xff, nr_2l() / 8);
    for (unsigned i = 0; i < nr_vcpus; i++) {
        struct vcpu_info *vi = &s->vcpu_info[i];
        if (words32)
            __atomic_store_n((uint32_t *)((uintptr_t)vi + 4), 0, __ATOMIC_RELAXED);
        else
            __atomic_store_n(&vi->evtchn_pending_sel, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&vi->evtchn_upcall_pending, 0, __ATOMIC_RELAXED);
    }
}

void ev_2l_mark_all(struct vcpu_info *vi)
{
    if (words32)
        __atomic_store_n((uint32_t *)((uintptr_t)vi + 4), ~0u, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(&vi->evtchn_pending_sel, ~(xen_ulong_t)0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&vi->evtchn_upcall_pending, 1, __ATOMIC_SEQ_CST);
}
