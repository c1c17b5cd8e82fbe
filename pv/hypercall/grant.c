/*
 * grant.c: __HYPERVISOR_grant_table_op: the guest's grant table, v1, as the stock shim sets it up
 * (pv/shim.c pv_shim_grant_table_op). Only the boot-time ops exist: query_size and setup_table
 * (Linux's gnttab_init, PV GRUB), and version 2's set_version, get_version and
 * get_status_frames, which the stock shim lacks (-EOPNOTSUPP there: test/guests/gnttab-v2); map,
 * copy, transfer and the rest belong to backends and are -EOPNOTSUPP. Every op wants count 1,
 * else -EINVAL, and setup_table ignores dom (the frames are always the guest's own): the stock
 * shim's answers, checked by test/guests/gnttab.
 *
 * On Xen the table is L0's, so that real backends in dom0 see the guest's grants: query_size is
 * passed to L0, and setup_table puts L0's grant frame i at a frame of the shim's physical space
 * (XENMEM_add_to_physmap, XENMAPSPACE_grant_table; the frame that was there goes back to L0, as
 * with the store ring) and hands out that frame number. Standalone there is nobody to grant to:
 * the frames are zeroed frames of the shim's pool, at most GNT_LOCAL_MAX.
 *
 * Either way a grant frame is a shim page the guest maps writable by its number, never a page
 * table and never guest RAM (pt_fix_writable: pv_mfn_is_special). It stays the guest's table for
 * the shim's life: a second setup_table gets the same frames. Version 2's status frames come the
 * same way (L0's through XENMAPIDX_grant_table_status), but the guest may only read them
 * (pt_fix_readonly); the version itself is L0's to set (it refuses while grants are in use), or
 * ours standalone, where, as Xen, the reserved entries (0-7, the toolstack's) are converted.
 */
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/pagetype.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/spinlock.h"
#include "shim/xerrno.h"

/* Standalone: 4 frames (2048 v1 entries) is what Linux assumes when query_size fails ("legacy
 * max"); it boots with 1 and grows only when a frontend runs out of references, and there are no
 * backends here to have frontends for. Each frame comes out of the shim's 4 MiB budget. */
#define GNT_LOCAL_MAX 4
/* On Xen: L0's maximum (xl's max_grant_frames, 64 by default) up to this many. */
#define GNT_MAX_FRAMES 256

/* v2: a status entry (2 bytes) per v2 entry (16 bytes, 256 per frame) */
#define V2_PER_FRAME (PAGE_SIZE / sizeof(grant_entry_v2_t))
#define STATUS_PER_FRAME (PAGE_SIZE / sizeof(grant_status_t))
#define GNT_MAX_STATUS ((GNT_MAX_FRAMES * V2_PER_FRAME + STATUS_PER_FRAME - 1) / STATUS_PER_FRAME)

static spinlock_t lock = SPINLOCK_INIT;
static uint64_t frames[GNT_MAX_FRAMES];         /* our frame numbers; 0: not set up */
static unsigned nr_set_up, max_frames;          /* max_frames 0: not asked yet */
static uint64_t status_frames[GNT_MAX_STATUS];  /* v2's, ours; 0: not set up */
static uint32_t version = 1;

/* Our answer, or L0's, with L0's maximum capped at what we keep. */
static int query(struct gnttab_query_size *q)
{
    if (l0->grant_query_size) {
        int rc = l0->grant_query_size(q->dom, &q->nr_frames, &q->max_nr_frames, &q->status);
        if (rc == 0 && q->status == GNTST_okay)
            q->max_nr_frames = MIN(q->max_nr_frames, (uint32_t)GNT_MAX_FRAMES);
        return rc;
    }
    if (q->dom != DOMID_SELF) {
        q->status = GNTST_bad_domain;   /* no other domain here */
        return 0;
    }
    q->nr_frames = MAX(nr_set_up, 1u);  /* Xen's table starts with one frame */
    q->max_nr_frames = GNT_LOCAL_MAX;
    q->status = GNTST_okay;
    return 0;
}

/* Frame i of the table (status: v2's status frame i) at a frame of ours, zeroed or L0's, into
 * *slot; a status frame only ever readable by the guest. Under the lock. */
static int new_frame(unsigned i, bool status, uint64_t *slot)
{
    int64_t f = alloc_frame();
    int rc;

    if (f < 0)
        return ERR(-XEN_ENOMEM);
    if (l0->grant_frame && (rc = l0->grant_frame(i, (uint64_t)f, status))) {
        free_frame((uint64_t)f);
        return rc;
    }
    if (status)
        pt_fix_readonly((uint64_t)f);
    else
        pt_fix_writable((uint64_t)f);
    *slot = (uint64_t)f;
    pr_debug("gnttab: %s frame %u at %#lx%s\n", status ? "status" : "grant", i, (uint64_t)f,
             l0->grant_frame ? " (L0's)" : "");
    return 0;
}

/* A new domain after a restore: the frames the guest has are plain copies now; L0's new table
 * goes back under them (its entries are the toolstack's seeds; frontends grant again). */
void pv_grant_resume(void)
{
    uint32_t v = version;

    spin_lock(&lock);
    if (v != 1 && l0->grant_set_version && l0->grant_set_version(&v))
        pr_err("gnttab: L0's new table cannot be version %u again after the restore\n", version);
    for (unsigned i = 0; i < nr_set_up && l0->grant_frame; i++) {
        int rc = frames[i] ? l0->grant_frame(i, frames[i], false) : 0;
        if (rc)
            pr_err("gnttab: frame %u cannot go back at %#lx after the restore (%d)\n", i, frames[i], rc);
    }
    for (unsigned i = 0; i < GNT_MAX_STATUS && version == 2 && l0->grant_frame; i++)
        if (status_frames[i] && l0->grant_frame(i, status_frames[i], true))
            pr_err("gnttab: status frame %u cannot go back after the restore\n", i);
    spin_unlock(&lock);
}

static long setup_table(uint64_t arg)
{
    struct gnttab_setup_table s;

    if (copy_from_guest(&s, arg, sizeof(s)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&s, arg, sizeof(s))");
    if (!guest_range_ok((uint64_t)(uintptr_t)s.frame_list.p, (size_t)s.nr_frames * sizeof(xen_pfn_t)))
        return ERR(-XEN_EFAULT);
    long rc = pv_gnttab_setup(&s, sizeof(xen_pfn_t));
    if (copy_to_guest(arg, &s, sizeof(s)))
        return ERR(-XEN_EFAULT, "copy_to_guest(arg, &s, sizeof(s))");
    return rc;
}

/* setup_table with its argument read and its list checked to be guest memory; the list's
 * entries are `width` bytes (4 in a 32-bit guest's). s->status gets the guest's answer. */
long pv_gnttab_setup(struct gnttab_setup_table *sp, unsigned width)
{
    struct gnttab_setup_table s = *sp;
    uint64_t list = (uint64_t)(uintptr_t)s.frame_list.p;
    long rc = 0;

    s.status = GNTST_okay;
    spin_lock(&lock);
    if (!max_frames) {
        struct gnttab_query_size q = { .dom = DOMID_SELF };
        if ((rc = query(&q)) || q.status != GNTST_okay) {
            spin_unlock(&lock);
            return rc ? rc : ERR(-XEN_EINVAL);
        }
        max_frames = q.max_nr_frames;
    }
    if (s.nr_frames > max_frames) {
        spin_unlock(&lock);
        return ERR(-XEN_EINVAL);        /* (Xen itself would say GNTST_general_error) */
    }
    for (unsigned i = 0; i < s.nr_frames; i++) {
        if (!frames[i] && (rc = new_frame(i, false, &frames[i])))
            break;
        nr_set_up = MAX(nr_set_up, i + 1);
        if (copy_to_guest(list + i * width, &frames[i], width)) {
            s.status = GNTST_bad_virt_addr;
            rc = -XEN_EFAULT;
            break;
        }
    }
    spin_unlock(&lock);
    *sp = s;
    return rc;
}

static long query_size(uint64_t arg)
{
    struct gnttab_query_size q;
    int rc;

    if (copy_from_guest(&q, arg, sizeof(q)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&q, arg, sizeof(q))");
    if ((rc = query(&q)))
        return rc;
    return copy_to_guest(arg, &q, sizeof(q)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

/* Standalone, as Xen's gnttab_set_version: the reserved entries keep their grants across the
 * change (v1 {flags, domid, frame} <-> v2 {hdr, full_page.frame}). Under the lock. */
static void convert_reserved(uint32_t to)
{
    if (!frames[0])
        return;
    grant_entry_v1_t *v1 = phys_to_virt(frames[0] << PAGE_SHIFT);
    grant_entry_v2_t *v2 = phys_to_virt(frames[0] << PAGE_SHIFT);
    grant_entry_v1_t e1[GNTTAB_NR_RESERVED_ENTRIES];
    grant_entry_v2_t e2[GNTTAB_NR_RESERVED_ENTRIES];

    if (to == 2) {
        memcpy(e1, v1, sizeof(e1));
        for (unsigned i = 0; i < GNTTAB_NR_RESERVED_ENTRIES; i++)
            v2[i] = (grant_entry_v2_t){ .full_page = { .hdr = { .flags = e1[i].flags, .domid = e1[i].domid },
                                                       .frame = e1[i].frame } };
    } else {
        memcpy(e2, v2, sizeof(e2));
        memset(v2, 0, sizeof(e2));
        for (unsigned i = 0; i < GNTTAB_NR_RESERVED_ENTRIES; i++)
            v1[i] = (grant_entry_v1_t){ .flags = e2[i].hdr.flags, .domid = e2[i].hdr.domid,
                                        .frame = (uint32_t)e2[i].full_page.frame };
    }
}

static long set_version(uint64_t arg)
{
    struct gnttab_set_version s;
    long rc = 0;

    if (copy_from_guest(&s, arg, sizeof(s)))
        return ERR(-XEN_EFAULT);
    if (s.version != 1 && s.version != 2)
        return ERR(-XEN_EINVAL, "grant table version is neither 1 nor 2");
    spin_lock(&lock);
    if (s.version != version) {
        uint32_t v = s.version;
        if (l0->grant_set_version)
            rc = l0->grant_set_version(&v);
        else
            convert_reserved(v);
        if (!rc)
            version = v;
    }
    s.version = version;
    spin_unlock(&lock);
    if (rc)
        return rc;
    return copy_to_guest(arg, &s, sizeof(s)) ? ERR(-XEN_EFAULT) : 0;
}

static long get_version(uint64_t arg)
{
    struct gnttab_get_version g;

    if (copy_from_guest(&g, arg, sizeof(g)))
        return ERR(-XEN_EFAULT);
    if (g.dom != DOMID_SELF)
        return ERR(-XEN_ESRCH, "no other domain here");
    g.version = version;
    return copy_to_guest(arg, &g, sizeof(g)) ? ERR(-XEN_EFAULT) : 0;
}

/* As Xen: GNTST_general_error before version 2 or for more frames than the table's entries
 * need; GNTST_bad_virt_addr if the list cannot be written. */
static long get_status_frames(uint64_t arg)
{
    struct gnttab_get_status_frames g;

    if (copy_from_guest(&g, arg, sizeof(g)))
        return ERR(-XEN_EFAULT);
    long rc = pv_gnttab_status_frames(&g);
    if (rc)
        return rc;
    return copy_to_guest(arg, &g, sizeof(g)) ? ERR(-XEN_EFAULT) : 0;
}

/* get_status_frames with its argument read (the list's entries are uint64_t in both ABIs):
 * g->status gets the guest's answer; an error is returned with nothing to write back. */
long pv_gnttab_status_frames(struct gnttab_get_status_frames *gp)
{
    struct gnttab_get_status_frames g = *gp;
    long rc = 0;

    uint64_t list = (uint64_t)(uintptr_t)g.frame_list.p;
    g.status = GNTST_okay;
    spin_lock(&lock);
    unsigned have = (MAX(nr_set_up, 1u) * V2_PER_FRAME + STATUS_PER_FRAME - 1) / STATUS_PER_FRAME;
    if (g.dom != DOMID_SELF)
        g.status = GNTST_bad_domain;
    else if (version != 2 || g.nr_frames > have)
        g.status = GNTST_general_error;
    for (unsigned i = 0; g.status == GNTST_okay && i < g.nr_frames; i++) {
        if (!status_frames[i] && (rc = new_frame(i, true, &status_frames[i])))
            break;
        if (copy_to_guest(list + i * sizeof(uint64_t), &status_frames[i], sizeof(uint64_t)))
            g.status = GNTST_bad_virt_addr;
    }
    spin_unlock(&lock);
    *gp = g;
    return rc;
}

long hc_grant_table_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t count, uint64_t a4,
                       uint64_t a5)
{
    if (count != 1)
        return ERR(-XEN_EINVAL, "count != 1");
    switch (cmd) {
    case GNTTABOP_setup_table:
        return setup_table(arg);
    case GNTTABOP_query_size:
        return query_size(arg);
    case GNTTABOP_set_version:
        return set_version(arg);
    case GNTTABOP_get_version:
        return get_version(arg);
    case GNTTABOP_get_status_frames:
        return get_status_frames(arg);
    default:
        return hc_subop_refuse(&hc_subops_grant_table_op, cmd);
    }
}
