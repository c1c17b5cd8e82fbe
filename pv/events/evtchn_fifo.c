/*
 * evtchn_fifo.c: FIFO event channels (see evtchn_fifo.h). The linking rules are Xen's
 * (common/event_fifo.c): a port is linked at most once (LINKED); the shim links it behind its
 * queue's tail only while that tail is still LINKED (the guest may have consumed it meanwhile,
 * then the queue is empty and the head is written instead); a port queued elsewhere last time
 * invalidates that queue's tail if it was the tail, so a later event there cannot link through a
 * word now in another queue.
 */
#include "pv/events/evtchn_fifo.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define BIT(n) (1u << (n))
#define W_PENDING BIT(EVTCHN_FIFO_PENDING)
#define W_MASKED BIT(EVTCHN_FIFO_MASKED)
#define W_LINKED BIT(EVTCHN_FIFO_LINKED)
#define W_BUSY BIT(EVTCHN_FIFO_BUSY)

static uint32_t *word(const struct ev_fifo *f, unsigned port)
{
    if (port >= f->nr_words)
        return NULL;
    return &f->page[port / EV_FIFO_WORDS_PER_PAGE][port % EV_FIFO_WORDS_PER_PAGE];
}

static bool test_and_set(uint32_t *w, uint32_t bit)
{
    return __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST) & bit;
}

static void clear(uint32_t *w, uint32_t bit)
{
    __atomic_fetch_and(w, ~bit, __ATOMIC_SEQ_CST);
}

static bool test(const uint32_t *w, uint32_t bit)
{
    return __atomic_load_n(w, __ATOMIC_SEQ_CST) & bit;
}

void ev_fifo_start(struct ev_fifo *f, struct ev_table *t, const struct shared_info *s)
{
    memset(f, 0, sizeof(*f));
    f->on = true;
    for (unsigned p = 1; p < EV_NR_PORTS; p++) {
        if (t->port[p].state == EV_FREE)
            continue;
        t->port[p].priority = EVTCHN_FIFO_PRIORITY_DEFAULT;
        if (ev_2l_is_pending(s, p))
            f->held[p] = true;
    }
}

int ev_fifo_set_control(struct ev_fifo *f, unsigned vcpu, struct evtchn_fifo_control_block *cb)
{
    ASSERT(vcpu < EV_MAX_VCPUS);
    if (f->cb[vcpu])
        return ERR(-XEN_EINVAL, "this vCPU has a control block already");
    f->cb[vcpu] = cb;
    return 0;
}

int ev_fifo_add_page(struct ev_fifo *f, uint32_t *page)
{
    unsigned slot = f->nr_words / EV_FIFO_WORDS_PER_PAGE;

    if (slot >= EV_FIFO_PAGES)
        return ERR(-XEN_ENOSPC, "the port table is covered already");
    f->page[slot] = page;
    __atomic_store_n(&f->nr_words, f->nr_words + EV_FIFO_WORDS_PER_PAGE, __ATOMIC_RELEASE);
    return (int)(slot * EV_FIFO_WORDS_PER_PAGE);
}

/* Point a linked tail word at port; false if the guest unlinked it first (its queue is empty).
 * The guest may meanwhile set or clear MASKED, clear PENDING or unlink: BUSY stops its unmask
 * (Linux's clear_masked_unless_busy), so after at most a few retries only unlinking is left. */
static bool set_link(uint32_t *tail, unsigned port)
{
    uint32_t old = __atomic_load_n(tail, __ATOMIC_SEQ_CST);
    bool busy = false;

    for (unsigned tries = 0;; tries++) {
        if (!(old & W_LINKED))
            break;
        uint32_t new = (old & ~(W_BUSY | EVTCHN_FIFO_LINK_MASK)) | port;
        if (__atomic_compare_exchange_n(tail, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return true;                /* BUSY, if we set it, went with the exchange */
        if (tries == 0) {
            test_and_set(tail, W_BUSY);
            busy = true;
            old = __atomic_load_n(tail, __ATOMIC_SEQ_CST);
        } else if (tries == 5) {
            /* a guest rewriting its word in a loop: treat the tail as linked (Xen does the same);
             * that guest loses this event, nobody else does */
            clear(tail, W_BUSY);
            return true;
        }
    }
    if (busy)
        clear(tail, W_BUSY);
    return false;
}

bool ev_fifo_set_pending(struct ev_fifo *f, struct ev_table *t, unsigned port)
{
    const struct ev_port *e = &t->port[port];
    uint32_t *w = word(f, port);

    if (!w) {
        f->held[port] = true;
        return false;
    }
    test_and_set(w, W_PENDING);
    unsigned v = e->vcpu, prio = e->priority;
    struct evtchn_fifo_control_block *cb = f->cb[v];
    if (!cb)
        return false;                   /* the guest unmasks nothing before its control block */
    if (test(w, W_MASKED) || test_and_set(w, W_LINKED))
        return false;
    uint32_t *old_tail = &f->tail[f->last_vcpu[port]][f->last_prio[port]];
    if (*old_tail == port)
        *old_tail = 0;                  /* it was that queue's last: that queue is empty now */
    f->last_vcpu[port] = (uint16_t)v;
    f->last_prio[port] = (uint8_t)prio;
    uint32_t *tail = &f->tail[v][prio];
    bool linked = false;
    if (*tail) {
        uint32_t *tw = word(f, *tail);
        linked = tw && set_link(tw, port);
    }
    if (!linked)
        __atomic_store_n(&cb->head[prio], port, __ATOMIC_SEQ_CST);
    *tail = port;
    return !linked && !test_and_set(&cb->ready, BIT(prio));
}

bool ev_fifo_unmask(struct ev_fifo *f, struct ev_table *t, unsigned port)
{
    uint32_t *w = word(f, port);

    if (!w)
        return false;
    clear(w, W_MASKED);
    return test(w, W_PENDING) && ev_fifo_set_pending(f, t, port);
}

void ev_fifo_clear_pending(struct ev_fifo *f, unsigned port)
{
    uint32_t *w = word(f, port);

    f->held[port] = false;
    if (w)
        clear(w, W_PENDING);            /* still linked, maybe: the guest skips a word not pending */
}

void ev_fifo_mask(struct ev_fifo *f, unsigned port)
{
    uint32_t *w = word(f, port);

    if (w)
        test_and_set(w, W_MASKED);
}

bool ev_fifo_is_pending(const struct ev_fifo *f, unsigned port)
{
    const uint32_t *w = word(f, port);

    return w && test(w, W_PENDING);     /* a held port is not pending yet, as Xen */
}

bool ev_fifo_is_masked(const struct ev_fifo *f, unsigned port)
{
    const uint32_t *w = word(f, port);

    return !w || test(w, W_MASKED);
}

bool ev_fifo_take_held(struct ev_fifo *f, unsigned port)
{
    bool was = f->held[port];

    f->held[port] = false;
    return was;
}

int ev_fifo_set_priority(struct ev_table *t, unsigned port, unsigned prio)
{
    if (port >= EV_NR_PORTS)
        return ERR(-XEN_EINVAL, "no such port");
    if (prio > EVTCHN_FIFO_PRIORITY_MIN)
        return ERR(-XEN_EINVAL, "priorities are 0 to 15");
    t->port[port].priority = (uint8_t)prio;
    return 0;
}
