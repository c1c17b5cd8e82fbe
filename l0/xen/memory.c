/* memory.c: memory at a Xen L0: frames back to L0 and from it, the store ring's frame, grant frames. */
#include "l0/l0.h"
#include "l0/xen/xen.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

/* XENMEM_decrease_reservation / populate_physmap on our own domain, order 0, in batches of at
 * most a page of gfns (what L0 handles without a continuation). */
#define L0_BATCH 512

static unsigned reservation_op(unsigned op, const uint64_t *gfns, unsigned n)
{
    unsigned done = 0;

    while (done < n) {
        unsigned k = MIN(n - done, L0_BATCH);
        struct xen_memory_reservation r = { .nr_extents = k, .extent_order = 0, .domid = DOMID_SELF };
        set_xen_guest_handle(r.extent_start, (xen_pfn_t *)(uintptr_t)(gfns + done));
        long rc = HYPERVISOR_memory_op(op, &r);
        if (rc > 0)
            done += (unsigned)MIN((unsigned long)rc, k);
        if (rc != (long)k)
            break;
    }
    return done;
}

int xen_store_ring(uint64_t move_to, uint64_t *pfn, uint32_t *port)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = HVM_PARAM_STORE_PFN };
    long rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p);

    if (rc)
        return ERR((int)rc);
    *pfn = p.value;
    if (move_to && move_to != p.value) {
        /* the ring's frame goes to gfn move_to (the frame there goes back to L0) */
        struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_gmfn, .idx = p.value,
                                           .gpfn = move_to };
        if ((rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp)))
            return ERR((int)rc);
        *pfn = move_to;
        /* and L0's gfn gets a plain page in its place (the one move_to gave back): a live
         * migration sends what is there before the ring comes home at the suspend, and the
         * toolstack must find a page there at the other end */
        uint64_t gfn = p.value;
        if (reservation_op(XENMEM_populate_physmap, &gfn, 1) != 1)
            pr_warn("no page for the store ring's gfn %#lx: a live migration may lose the ring\n", p.value);
    }
    p.index = HVM_PARAM_STORE_EVTCHN;
    if ((rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p)))
        return ERR((int)rc);
    *port = (uint32_t)p.value;
    return 0;
}

/* The guest's query_size, asked of L0 with count 1, as the stock shim does (but from a copy of
 * ours: L0 never writes where the guest pointed). */
int xen_grant_query_size(uint16_t dom, uint32_t *nr_frames, uint32_t *max_frames, int16_t *status)
{
    /* in and out, as the guest's own struct: what L0 does not write keeps the guest's values */
    struct gnttab_query_size q = { .dom = dom, .nr_frames = *nr_frames, .max_nr_frames = *max_frames,
                                   .status = *status };
    long rc = HYPERVISOR_grant_table_op(GNTTABOP_query_size, &q, 1);

    if (rc)
        return ERR((int)rc, "GNTTABOP_query_size at L0");
    *nr_frames = q.nr_frames;
    *max_frames = q.max_nr_frames;
    *status = q.status;
    return 0;
}

/* L0's grant-table frame idx (or v2 status frame idx) at our gfn: the stock shim's way to hand
 * the guest its frames. */
int xen_grant_frame(unsigned idx, uint64_t gfn, bool status)
{
    struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_grant_table,
                                       .idx = idx | (status ? XENMAPIDX_grant_table_status : 0), .gpfn = gfn };
    long rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp);

    return rc ? ERR((int)rc) : 0;
}

/* The table's version at L0, which owns it (it refuses a change while grants are in use). */
int xen_grant_set_version(uint32_t *version)
{
    struct gnttab_set_version v = { .version = *version };
    long rc = HYPERVISOR_grant_table_op(GNTTABOP_set_version, &v, 1);

    if (rc)
        return ERR((int)rc, "GNTTABOP_set_version at L0");
    *version = v.version;
    return 0;
}

unsigned xen_release_frames(const uint64_t *gfns, unsigned n)
{
    return reservation_op(XENMEM_decrease_reservation, gfns, n);
}

unsigned xen_populate_frames(const uint64_t *gfns, unsigned n)
{
    return reservation_op(XENMEM_populate_physmap, gfns, n);
}

/* Before a suspend: the store ring's frame back at the gfn L0's HVM_PARAM_STORE_PFN names (the
 * toolstack saves, clears and reintroduces the ring there), from our gfn `from`; the page that
 * held its place there goes back to L0. */
int xen_store_ring_home(uint64_t from)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = HVM_PARAM_STORE_PFN };
    long rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p);

    if (rc)
        return ERR((int)rc);
    if (p.value == from)
        return 0;
    struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_gmfn, .idx = from,
                                       .gpfn = p.value };
    rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp);
    return rc ? ERR((int)rc) : 0;
}
