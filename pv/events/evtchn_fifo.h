/*
 * evtchn_fifo.h: the guest's FIFO event channels (public/event_channel.h, "FIFO ABI"; Xen 4.17's
 * common/event_fifo.c for the semantics). Each port has a 32-bit event word in pages the guest
 * gives (EVTCHNOP_expand_array); each vCPU has a control block (EVTCHNOP_init_control) with a
 * ready bit and a queue head per priority. Raising a port sets PENDING; unless MASKED or already
 * LINKED it is linked at the tail of its vCPU's queue for its priority, and when that queue was
 * empty, the queue's ready bit is set: then the vCPU's upcall must be marked.
 *
 * The guest changes the same words at any time (clears LINKED and PENDING as it consumes, sets
 * and clears MASKED), so every word change here is atomic, and linking behind a tail uses
 * BUSY to hold off the guest's unmasking, as Xen does. The shim's own state (the tails, where a
 * port was last queued) changes only under the caller's lock. Hardware-free: compiled into the
 * shim and the host unit tests.
 */
#ifndef PV_EVTCHN_FIFO_H
#define PV_EVTCHN_FIFO_H

#include "pv/events/evtchn_port.h"

#define EV_FIFO_WORDS_PER_PAGE 1024u    /* 4 KiB of 32-bit event words */
#define EV_FIFO_PAGES (EV_NR_PORTS / EV_FIFO_WORDS_PER_PAGE)
_Static_assert(EV_NR_PORTS % EV_FIFO_WORDS_PER_PAGE == 0, "the event array pages cover whole pages of ports");

struct ev_fifo {
    bool on;                            /* the guest switched to FIFO (its first init_control) */
    unsigned nr_words;                  /* ports [0, nr_words) have event words */
    uint32_t *page[EV_FIFO_PAGES];
    struct evtchn_fifo_control_block *cb[EV_MAX_VCPUS];
    uint32_t tail[EV_MAX_VCPUS][EVTCHN_FIFO_MAX_QUEUES];   /* 0: that queue is empty */
    /* Where each port was last linked: a port that moves queue (bind_vcpu, set_priority) while
     * linked must not leave its old queue's tail pointing at it. Kept across close, as Xen. */
    uint16_t last_vcpu[EV_NR_PORTS];
    uint8_t last_prio[EV_NR_PORTS];
    bool held[EV_NR_PORTS];             /* raised while its word had no page yet */
};

/* Switch to FIFO: every port at the default priority; those pending in the 2-level bitmap are
 * held until their page comes. */
void ev_fifo_start(struct ev_fifo *f, struct ev_table *t, const struct shared_info *s);
/* vCPU's control block (mapped by the caller): 0, or -XEN_EINVAL if it has one already. Its
 * queue heads are the guest's to have cleared. */
int ev_fifo_set_control(struct ev_fifo *f, unsigned vcpu, struct evtchn_fifo_control_block *cb);
/* The next page of event words: the first port it covers, or -XEN_ENOSPC past the port table. */
int ev_fifo_add_page(struct ev_fifo *f, uint32_t *page);

/* Raise a port: true when the vCPU it notifies must have its upcall marked (a ready bit went
 * 0 -> 1). A port with no word yet is held; a vCPU with no control block gets PENDING only. */
bool ev_fifo_set_pending(struct ev_fifo *f, struct ev_table *t, unsigned port);
/* EVTCHNOP_unmask: clear MASKED and link the port if it is pending (the result as above). */
bool ev_fifo_unmask(struct ev_fifo *f, struct ev_table *t, unsigned port);
void ev_fifo_clear_pending(struct ev_fifo *f, unsigned port);
void ev_fifo_mask(struct ev_fifo *f, unsigned port);
bool ev_fifo_is_pending(const struct ev_fifo *f, unsigned port);
bool ev_fifo_is_masked(const struct ev_fifo *f, unsigned port);
/* A held port whose page has come: clears the hold, true if it was held. */
bool ev_fifo_take_held(struct ev_fifo *f, unsigned port);
/* EVTCHNOP_set_priority: 0 or -XEN_EINVAL (a port out of range, a priority past 15). Applies to
 * the port's next linking; one linked now stays where it is. */
int ev_fifo_set_priority(struct ev_table *t, unsigned port, unsigned prio);

#endif
