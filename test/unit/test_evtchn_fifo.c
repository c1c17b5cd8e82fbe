/* test_evtchn_fifo.c: FIFO event channels (pv/events/evtchn_fifo.c) against a consumer written
 * as Linux's (drivers/xen/events/events_fifo.c: take the ready word, walk each queue from its head,
 * unlink each word with a cmpxchg, act on it if pending and unmasked): the order events come out
 * in, priorities, masking, queue moves, ports raised before their page, and the rules of the
 * hypercalls' arguments. */
#include <stdlib.h>
#include <string.h>

#include "pv/events/evtchn_fifo.h"
#include "harness.h"
#include "shim/xerrno.h"

#define PENDING (1u << EVTCHN_FIFO_PENDING)
#define MASKED (1u << EVTCHN_FIFO_MASKED)
#define LINKED (1u << EVTCHN_FIFO_LINKED)

static uint32_t page0[EV_FIFO_WORDS_PER_PAGE] __attribute__((aligned(4096)));
static struct evtchn_fifo_control_block cb0, cb1;

/* The guest's side: ports in the order it would handle them (at most n), each once. */
static unsigned consume(struct evtchn_fifo_control_block *cb, uint32_t *words, unsigned *out, unsigned n)
{
    unsigned got = 0;
    uint32_t ready = __atomic_exchange_n(&cb->ready, 0, __ATOMIC_SEQ_CST);

    for (unsigned q = 0; q < EVTCHN_FIFO_MAX_QUEUES; q++) {
        if (!(ready & (1u << q)))
            continue;
        uint32_t port = cb->head[q];
        cb->head[q] = 0;
        while (port) {
            uint32_t *w = &words[port], old = *w, new;
            do
                new = old & ~(LINKED | EVTCHN_FIFO_LINK_MASK);
            while (!__atomic_compare_exchange_n(w, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
            uint32_t next = old & EVTCHN_FIFO_LINK_MASK;
            if ((old & PENDING) && !(old & MASKED)) {
                __atomic_fetch_and(w, ~PENDING, __ATOMIC_SEQ_CST);
                if (got < n)
                    out[got++] = port;
            }
            port = next;
        }
    }
    return got;
}

static void setup(struct ev_table *t, struct ev_fifo *f, struct shared_info *s)
{
    ev_init(t, 2);
    memset(s, 0, sizeof(*s));
    memset(&cb0, 0, sizeof(cb0));
    memset(&cb1, 0, sizeof(cb1));
    for (unsigned i = 0; i < EV_FIFO_WORDS_PER_PAGE; i++)
        page0[i] = MASKED;              /* as Linux prepares a new array page */
}

void test_evtchn_fifo(void)
{
    static struct ev_table t;
    static struct ev_fifo f;
    static struct shared_info s;
    unsigned out[8];

    setup(&t, &f, &s);
    int a = ev_bind_ipi(&t, 0, 0), b = ev_bind_ipi(&t, 0, 0), c = ev_bind_ipi(&t, 0, 0);
    int d = ev_bind_ipi(&t, 1, 0);
    CHECK(a > 0 && b > a && c > b && d > c);
    ev_2l_set_pending(&s, &s.vcpu_info[0], (unsigned)a);   /* pending before the switch */

    ev_fifo_start(&f, &t, &s);
    CHECK(f.on);
    CHECK_EQ(ev_fifo_set_control(&f, 0, &cb0), 0);
    CHECK_EQ(ev_fifo_set_control(&f, 0, &cb1), -XEN_EINVAL);   /* one per vCPU */
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)b));           /* no word yet: held */
    CHECK(!ev_fifo_is_pending(&f, (unsigned)b));
    CHECK_EQ(ev_fifo_add_page(&f, page0), 0);
    CHECK_EQ(ev_fifo_add_page(&f, page0), EV_NR_PORTS > 1024 ? 1024 : -XEN_ENOSPC);
    CHECK(ev_fifo_take_held(&f, (unsigned)a));                  /* carried over from 2-level */
    CHECK(ev_fifo_take_held(&f, (unsigned)b));
    CHECK(!ev_fifo_take_held(&f, (unsigned)c));

    /* masked: pending, not linked, no upcall; unmask links it and reports the upcall */
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)a));
    CHECK_EQ(page0[a], PENDING | MASKED);
    CHECK(ev_fifo_unmask(&f, &t, (unsigned)a));
    CHECK_EQ(page0[a], PENDING | LINKED);
    CHECK_EQ(cb0.head[EVTCHN_FIFO_PRIORITY_DEFAULT], (unsigned)a);
    CHECK_EQ(cb0.ready, 1u << EVTCHN_FIFO_PRIORITY_DEFAULT);

    /* b and c behind a in one queue: no new upcall; raised twice, c is queued once */
    page0[b] &= ~MASKED;
    page0[c] &= ~MASKED;
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)b));
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)c));
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)c));
    CHECK_EQ(page0[a] & EVTCHN_FIFO_LINK_MASK, (unsigned)b);
    CHECK_EQ(page0[b] & EVTCHN_FIFO_LINK_MASK, (unsigned)c);
    CHECK_EQ(consume(&cb0, page0, out, 8), 3);
    CHECK(out[0] == (unsigned)a && out[1] == (unsigned)b && out[2] == (unsigned)c);
    CHECK_EQ(page0[c], 0);

    /* priorities: a higher one comes out first, whatever the order of raising */
    CHECK_EQ(ev_fifo_set_priority(&t, (unsigned)c, 16), -XEN_EINVAL);
    CHECK_EQ(ev_fifo_set_priority(&t, EV_NR_PORTS, 3), -XEN_EINVAL);
    CHECK_EQ(ev_fifo_set_priority(&t, (unsigned)c, 3), 0);
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)b));            /* the queue was empty: upcall */
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)c));            /* its own ready bit: marked too */
    CHECK_EQ(cb0.ready, (1u << 3) | (1u << EVTCHN_FIFO_PRIORITY_DEFAULT));
    CHECK_EQ(consume(&cb0, page0, out, 8), 2);
    CHECK(out[0] == (unsigned)c && out[1] == (unsigned)b);

    /* the guest consumed the tail: the next event starts the queue again at the head */
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)b));
    CHECK_EQ(cb0.head[EVTCHN_FIFO_PRIORITY_DEFAULT], (unsigned)b);
    CHECK_EQ(consume(&cb0, page0, out, 8), 1);

    /* a vCPU without a control block: PENDING only (its guest unmasks nothing yet) */
    page0[d] &= ~MASKED;
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)d));
    CHECK_EQ(page0[d], PENDING);
    ev_fifo_clear_pending(&f, (unsigned)d);
    CHECK_EQ(page0[d], 0);
    CHECK_EQ(ev_fifo_set_control(&f, 1, &cb1), 0);

    /* a port moved to another vCPU while it was the tail: the old queue must not link through it */
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)a));            /* vCPU 0's queue: a (tail) */
    CHECK_EQ(consume(&cb0, page0, out, 8), 1);
    CHECK_EQ(ev_bind_vcpu(&t, (unsigned)a, 1), -XEN_EINVAL);    /* IPIs stay; move an interdomain one */
    int x = ev_alloc(&t, EV_INTERDOMAIN, 0);
    page0[x] &= ~MASKED;
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)x));            /* vCPU 0, tail x */
    CHECK_EQ(ev_bind_vcpu(&t, (unsigned)x, 1), 0);
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)d));            /* vCPU 1: d */
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)x));           /* still linked on vCPU 0: stays */
    CHECK_EQ(consume(&cb0, page0, out, 8), 1);
    CHECK_EQ(out[0], (unsigned)x);
    CHECK(!ev_fifo_set_pending(&f, &t, (unsigned)x));           /* now to vCPU 1, behind d */
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)b));            /* vCPU 0's queue starts afresh */
    CHECK_EQ(cb0.head[EVTCHN_FIFO_PRIORITY_DEFAULT], (unsigned)b);
    CHECK_EQ(page0[b] & EVTCHN_FIFO_LINK_MASK, 0);
    CHECK_EQ(consume(&cb1, page0, out, 8), 2);
    CHECK(out[0] == (unsigned)d && out[1] == (unsigned)x);
    CHECK_EQ(consume(&cb0, page0, out, 8), 1);

    /* masked while linked: the guest skips it; unmask after consumption links it again */
    CHECK(ev_fifo_set_pending(&f, &t, (unsigned)b));
    ev_fifo_mask(&f, (unsigned)b);
    CHECK_EQ(consume(&cb0, page0, out, 8), 0);
    CHECK(ev_fifo_is_pending(&f, (unsigned)b) && ev_fifo_is_masked(&f, (unsigned)b));
    CHECK(ev_fifo_unmask(&f, &t, (unsigned)b));
    CHECK_EQ(consume(&cb0, page0, out, 8), 1);

    /* a new bind starts at the default priority */
    struct ev_port was;
    CHECK_EQ(ev_close(&t, (unsigned)c, &was), 0);
    CHECK_EQ(ev_bind_ipi(&t, 0, (unsigned)c), c);
    CHECK_EQ(t.port[c].priority, EVTCHN_FIFO_PRIORITY_DEFAULT);
}
