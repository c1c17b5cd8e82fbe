/*
 * store.c: the guest's store port when no xenstored is behind it. On Xen the ring is L0's and a
 * send on the port goes on to L0 (hypercall/evtchn.c); standalone (no L0 store port) the guest's kick
 * runs the local answerer (xenstore.c) on the ring page, and when it moved an index the guest's
 * store port fires, as xenstored's notification would.
 */
#include "pv/devices/xenstore.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "shim/console.h"
#include "shim/paging.h"
#include "shim/spinlock.h"

static struct xs_srv srv;
static struct xenstore_domain_interface *ring;
static spinlock_t lock = SPINLOCK_INIT;

void pv_store_init(void)
{
    if (pv_dom.store_l0_port)
        return;                         /* dom0's xenstored answers */
    ring = phys_to_virt(pv_dom.store_mfn << PAGE_SHIFT);
    xs_init(&srv, ring);
}

void pv_store_kick(void)
{
    if (!ring)
        return;
    spin_lock(&lock);
    unsigned did = xs_run(&srv, ring);
    spin_unlock(&lock);
    if (did & XS_BROKE)
        pr_warn("xenstore: the guest broke its ring (%s: %u); it gets no more answers\n", srv.why, srv.bad_value);
    if (did & XS_MOVED)
        pv_evtchn_raise(pv_dom.store_port);
}
