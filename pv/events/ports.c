/*
 * ports.c: a guest port's pending and mask state under the ABI the guest chose: the 2-level
 * bitmaps in shared_info until its first EVTCHNOP_init_control, FIFO queues in its own pages
 * after it (evtchn_fifo.c), back to 2-level on EVTCHNOP_reset and in a restored domain, as Xen.
 * Linux tries FIFO first and keeps 2-level if init_control fails; `evtchn-fifo=off` refuses it
 * with -EOPNOTSUPP, as the stock shim does.
 *
 * FIFO state changes under fifo_lock with interrupts off (a timer or an L0 event raises ports in
 * interrupt context). The pages stay typed writable while FIFO uses them, so the guest cannot
 * turn them into page tables under us.
 */
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/evtchn_fifo.h"
#include "pv/mm/guest.h"
#include "pv/mm/pagetype.h"
#include "pv/vcpu/vcpu.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/spinlock.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

bool pv_fifo_offered = true;

static struct ev_fifo fifo;
static spinlock_t fifo_lock = SPINLOCK_INIT;
static uint64_t cb_mfn[EV_MAX_VCPUS], page_mfn[EV_FIFO_PAGES];

static bool fifo_on(void)
{
    return __atomic_load_n(&fifo.on, __ATOMIC_ACQUIRE);
}

/* Xen's vcpu_mark_events_pending: the upcall flag; true when it went up here. */
static bool mark_upcall(struct vcpu_info *vi)
{
    return !__atomic_exchange_n(&vi->evtchn_upcall_pending, 1, __ATOMIC_SEQ_CST);
}

bool pv_port_set_pending(unsigned port, struct pv_vcpu *v)
{
    if (!fifo_on())
        return ev_2l_set_pending(pv_dom.shared, v->vi, port);
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    bool on = fifo.on;                  /* a reset may have ended FIFO meanwhile */
    bool ready = on ? ev_fifo_set_pending(&fifo, &pv_dom.ev, port) : ev_2l_set_pending(pv_dom.shared, v->vi, port);
    spin_unlock_irqrestore(&fifo_lock, f);
    return on ? ready && mark_upcall(v->vi) : ready;
}

bool pv_port_unmask(unsigned port, struct pv_vcpu *v)
{
    if (!fifo_on())
        return ev_2l_unmask(pv_dom.shared, v->vi, port);
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    bool ready = ev_fifo_unmask(&fifo, &pv_dom.ev, port);
    spin_unlock_irqrestore(&fifo_lock, f);
    return ready && mark_upcall(v->vi);
}

bool pv_port_is_pending(unsigned port)
{
    return fifo_on() ? ev_fifo_is_pending(&fifo, port) : ev_2l_is_pending(pv_dom.shared, port);
}

bool pv_port_is_masked(unsigned port)
{
    return fifo_on() ? ev_fifo_is_masked(&fifo, port) : ev_2l_is_masked(pv_dom.shared, port);
}

void pv_port_quiet(unsigned port)
{
    uint64_t f = spin_lock_irqsave(&fifo_lock);

    /* pending cleared, the mask left as the guest set it, as Xen's evtchn_close (the stock
     * shim's guest sees a port it binds again under a closed number unmasked) */
    if (fifo.on)
        ev_fifo_clear_pending(&fifo, port);
    else
        ev_2l_clear_pending(pv_dom.shared, port);
    spin_unlock_irqrestore(&fifo_lock, f);
}

/* A guest frame kept writable for FIFO: its contents, or NULL. */
static void *take_frame(uint64_t mfn)
{
    if (!pv_mfn_is_guest(mfn))
        return NULL;
    spin_lock(&pv_dom.mmu_lock);
    int rc = pt_get_type(mfn, PGT_WRITABLE);
    spin_unlock(&pv_dom.mmu_lock);
    return rc ? NULL : pt_frame(mfn);
}

static void drop_frame(uint64_t mfn)
{
    spin_lock(&pv_dom.mmu_lock);
    pt_put_type(mfn);
    spin_unlock(&pv_dom.mmu_lock);
}

int pv_fifo_init_control(struct evtchn_init_control *ic)
{
    if (!pv_fifo_offered)
        return ERR(-XEN_EOPNOTSUPP, "evtchn-fifo=off: the 2-level ABI only");
    ic->link_bits = EVTCHN_FIFO_LINK_BITS;
    if (ic->vcpu >= pv_dom.nr_vcpus)
        return ERR(-XEN_ENOENT, "no such vCPU");
    if (ic->offset > PAGE_SIZE - sizeof(struct evtchn_fifo_control_block) || (ic->offset & 7))
        return ERR(-XEN_EINVAL, "the control block straddles a page or is misaligned");
    char *page = take_frame(ic->control_gfn);
    if (!page)
        return ERR(-XEN_EINVAL, "not a writable frame of the guest's");
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    bool first = !fifo.on;
    if (first)
        ev_fifo_start(&fifo, &pv_dom.ev, pv_dom.shared);
    int rc = ev_fifo_set_control(&fifo, ic->vcpu, (struct evtchn_fifo_control_block *)(page + ic->offset));
    if (!rc)
        cb_mfn[ic->vcpu] = ic->control_gfn;
    spin_unlock_irqrestore(&fifo_lock, f);
    if (rc)
        drop_frame(ic->control_gfn);
    else if (first)
        pr_info("events: the guest uses FIFO event channels\n");
    return rc;
}

int pv_fifo_expand_array(uint64_t gfn)
{
    if (!fifo_on())
        return ERR(-XEN_EOPNOTSUPP, "no FIFO control block yet");
    uint32_t *page = take_frame(gfn);
    if (!page)
        return ERR(-XEN_EINVAL, "not a writable frame of the guest's");
    uint64_t held[EV_FIFO_WORDS_PER_PAGE / 64] = { 0 };
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    int first = ev_fifo_add_page(&fifo, page);
    if (first >= 0) {
        page_mfn[first / EV_FIFO_WORDS_PER_PAGE] = gfn;
        for (unsigned i = 0; i < EV_FIFO_WORDS_PER_PAGE; i++)
            if (ev_fifo_take_held(&fifo, (unsigned)first + i))
                held[i / 64] |= 1ull << (i % 64);
    }
    spin_unlock_irqrestore(&fifo_lock, f);
    if (first < 0) {
        drop_frame(gfn);
        return first;
    }
    /* ports raised before their word existed: raised now, as Xen's add_page_to_event_array */
    for (unsigned i = 0; i < EV_FIFO_WORDS_PER_PAGE; i++)
        if (held[i / 64] >> (i % 64) & 1)
            pv_evtchn_raise((unsigned)first + i);
    return 0;
}

int pv_fifo_set_priority(unsigned port, unsigned prio)
{
    if (!pv_fifo_offered)
        return ERR(-XEN_EOPNOTSUPP, "evtchn-fifo=off: the 2-level ABI only");
    if (!fifo_on())
        return ERR(-XEN_ENOSYS, "the 2-level ABI has no priorities (Xen's answer)");
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    int rc = ev_fifo_set_priority(&pv_dom.ev, port, prio);
    spin_unlock_irqrestore(&fifo_lock, f);
    return rc;
}

void pv_fifo_stop(void)
{
    uint64_t f = spin_lock_irqsave(&fifo_lock);
    bool was = fifo.on;
    uint64_t cbs[EV_MAX_VCPUS], pages[EV_FIFO_PAGES];

    memcpy(cbs, cb_mfn, sizeof(cbs));
    memcpy(pages, page_mfn, sizeof(pages));
    memset(cb_mfn, 0, sizeof(cb_mfn));
    memset(page_mfn, 0, sizeof(page_mfn));
    memset(&fifo, 0, sizeof(fifo));
    spin_unlock_irqrestore(&fifo_lock, f);
    if (!was)
        return;
    for (unsigned i = 0; i < EV_MAX_VCPUS; i++)
        if (cbs[i])
            drop_frame(cbs[i]);
    for (unsigned i = 0; i < EV_FIFO_PAGES; i++)
        if (pages[i])
            drop_frame(pages[i]);
}
