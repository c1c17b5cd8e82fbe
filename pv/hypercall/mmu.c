/*
 * mmu.c: __HYPERVISOR_mmu_update and __HYPERVISOR_mmuext_op, the guest's batched page-table
 * operations, on top of pagetype.c. Both stop at the first failing request, return its error and
 * report how many succeeded through `pdone`, as Xen does. Only DOMID_SELF is accepted as the
 * foreign domain: the guest has no one else's memory to touch (check_args).
 *
 * mmuext_op commands:
 *   PIN_L1..L4_TABLE, UNPIN_TABLE, NEW_BASEPTR, NEW_USER_BASEPTR   handled (pagetype.c)
 *   TLB_FLUSH_LOCAL/MULTI/ALL, INVLPG_LOCAL/MULTI/ALL              handled (flush_tlb)
 *   CLEAR_PAGE, COPY_PAGE                                          handled
 *   SET_LDT                                                        handled (desc.c: mapped lazily)
 *   FLUSH_CACHE                                                    refused -EACCES (as Xen, for a
 *                                                                   domain without devices)
 *   FLUSH_CACHE_GLOBAL                                             refused -EINVAL (as Xen)
 *   MARK_SUPER, UNMARK_SUPER                                       refused -EOPNOTSUPP (gone from Xen)
 *   anything else                                                  refused -ENOSYS
 */
#include "compat/compat.h"
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

#define COUNT_PREEMPTED (1ull << 31)     /* Xen's continuation marker in `count` (internal to Xen) */

/*
 * Before any request, as Xen's do_mmu_update and do_mmuext_op for a domU: the list must start at
 * a guest address, even for no entries (-EFAULT); then only DOMID_SELF may own the pages.
 * DOMID_IO and DOMID_XEN are -EPERM, any other domain -ESRCH: there is none here, and a guest
 * may not name itself by number (get_pg_owner). For mmu_update, tables_too, foreigndom's high
 * half names the tables' owner + 1 (0: the caller): the guest's own number is taken as itself
 * (do_mmu_update's pt_owner == d), once we know it (l0->domid: the Xen L0's CPUID leaf, as the
 * stock shim's domain has its L0 domain's number); any other -ESRCH, DOMID_SELF too.
 */
static int check_args(uint64_t list, uint64_t foreigndom, bool tables_too)
{
    uint16_t d = (uint16_t)foreigndom;
    uint32_t pfd = (uint32_t)foreigndom >> 16;
    uint16_t me = l0->domid ? l0->domid() : DOMID_SELF;

    if (!guest_range_ok(list, 1))
        return ERR(-XEN_EFAULT);
    if (tables_too && pfd && (me == DOMID_SELF || pfd - 1 != me))
        return ERR(-XEN_ESRCH);
    if (d == DOMID_SELF)
        return 0;
    return ERR(d == DOMID_IO || d == DOMID_XEN ? -XEN_EPERM : -XEN_ESRCH);
}

/* The shim CPUs running the guest vCPUs in a guest bitmap (vCPU n runs on shim CPU n). */
int pv_vcpumask_cpus(uint64_t ptr, uint64_t *cpus)
{
    uint64_t mask;

    if (copy_from_guest(&mask, ptr, sizeof(mask)))
        return ERR(-XEN_EFAULT);
    *cpus = mask & ((1ull << pv_dom.nr_vcpus) - 1);
    return 0;
}

/* A write to a frame that is no page table in use: allowed if it may be writable (Xen's
 * "writable_mmu_updates"). */
static int plain_write(uint64_t mfn, unsigned slot, uint64_t val)
{
    int rc = pt_get_type(mfn, PGT_WRITABLE);

    if (rc || pv_mfn_is_special(mfn))
        return rc ? rc : ERR(-XEN_EINVAL);
    __atomic_store_n(&pt_frame(mfn)[slot], val, __ATOMIC_RELAXED);
    pt_put_type(mfn);
    return 0;
}

static int pt_update(uint64_t ptr, uint64_t val, bool preserve_ad)
{
    uint64_t mfn = ptr >> PAGE_SHIFT;
    unsigned slot = (ptr & (PAGE_SIZE - 1)) >> 3;

    if (!pv_mfn_is_guest(mfn) || mfn >= pv_mm.nr)
        return ERR(-XEN_EINVAL);
    uint32_t x = pv_mm.info[mfn];
    if (pgi_count(x) && (x & PGI_VALIDATED))
        return pt_mod_entry(mfn, slot, val, preserve_ad);
    return plain_write(mfn, slot, val);
}

long hc_mmu_update(struct cpu_regs *regs, uint64_t ureqs, uint64_t count, uint64_t pdone,
                   uint64_t foreigndom, uint64_t a5)
{
    uint32_t done = 0;
    int rc = check_args(ureqs, foreigndom, true);

    if (!rc && (count & COUNT_PREEMPTED))
        rc = ERR(-XEN_EINVAL);              /* we never preempt, so never hand out a continuation */
    spin_lock(&pv_dom.mmu_lock);
    for (; !rc && done < count; done++) {
        struct mmu_update req;
        if (copy_from_guest(&req, ureqs + (uint64_t)done * sizeof(req), sizeof(req))) {
            rc = ERR(-XEN_EFAULT);
            break;
        }
        uint64_t ptr = req.ptr & ~7ull;
        switch (req.ptr & 7) {
        case MMU_NORMAL_PT_UPDATE:
        case MMU_PT_UPDATE_NO_TRANSLATE:
            rc = pt_update(ptr, req.val, false);
            break;
        case MMU_PT_UPDATE_PRESERVE_AD:
            rc = pt_update(ptr, req.val, true);
            break;
        case MMU_MACHPHYS_UPDATE: {
            /* the guest's frames, and the pages it owns in Xen: shared_info and the rings (PV GRUB
             * moves the rings' pfns); not grant frames (the stock shim's are L0's, not the guest's) */
            uint64_t m = ptr >> PAGE_SHIFT;
            bool owned = m == pv_dom.shared_mfn || m == pv_dom.cons_mfn || m == pv_dom.store_mfn;
            if (!(pv_mfn_is_guest(m) || owned) || m >= pv_dom.max_mfn)
                rc = ERR(-XEN_EINVAL);
            else
                pv_m2p_set(ptr >> PAGE_SHIFT, req.val);
            break;
        }
        default:
            rc = ERR(-XEN_ENOSYS);
            break;
        }
        if (rc) {
            pr_debug("mmu_update: request %u (ptr %#lx val %#lx) refused: %d\n", done, req.ptr, req.val, rc);
            break;
        }
    }
    spin_unlock(&pv_dom.mmu_lock);
    if (pdone)
        copy_to_guest(pdone, &done, sizeof(done));      /* as Xen: a bad pdone is not an error */
    return rc;
}

/* Install a new (kernel or user) base table: take the new reference before dropping the old. */
static int set_baseptr(uint64_t mfn, uint64_t *slot, bool may_clear)
{
    int rc;

    if (mfn == 0 && may_clear) {
        if (*slot)
            pt_put_type(*slot);
        *slot = 0;
        return 0;
    }
    if ((rc = pt_get_type(mfn, pv_dom.compat ? PGT_L3 : PGT_L4)))
        return rc;
    if (*slot)
        pt_put_type(*slot);
    *slot = mfn;
    return 0;
}

/* The guest kernel's new L4 (MMUEXT_NEW_BASEPTR, or a CR3 write): loaded at once. */
int pv_new_baseptr(uint64_t mfn)
{
    if (pv_dom.compat) {
        /* a 32-bit guest's L3, under its vCPU's own L4 (compat/cr3.c) */
        uint64_t cur = pv_current()->compat_l3;
        int rc = set_baseptr(mfn, &cur, false);
        if (rc)
            return rc;
        compat_set_l3(pv_current(), cur);
        flush_load_cr3(pv_current()->cr3);
        pv_ldt_drop();
        return 0;
    }
    uint64_t old = pv_current()->cr3 >> PAGE_SHIFT, cur = old;
    int rc = set_baseptr(mfn, &cur, false);

    if (rc)
        return rc;
    if (cur != old && !pv_m2p_strict())
        pv_l4_ro_m2p(cur, true);        /* a kernel base shows the m2p (m2p_strict: as it was made) */
    pv_current()->cr3 = cur << PAGE_SHIFT;
    if (!pv_current()->user_mode)
        flush_load_cr3(pv_current()->cr3);
    pv_ldt_drop();                      /* the LDT is a virtual range: remapped from the new tables */
    return 0;
}

static int mmuext_one(const struct mmuext_op *op)
{
    uint64_t cpus = FLUSH_CPUS_ALL;
    int rc;

    switch (op->cmd) {
    case MMUEXT_PIN_L1_TABLE:
    case MMUEXT_PIN_L2_TABLE:
    case MMUEXT_PIN_L3_TABLE:
    case MMUEXT_PIN_L4_TABLE:
        if (op->cmd == MMUEXT_PIN_L4_TABLE && pv_dom.compat)
            return 0;                   /* as Xen: a no-op for a 32-bit guest */
        return pt_pin(op->arg1.mfn, op->cmd - MMUEXT_PIN_L1_TABLE + 1);
    case MMUEXT_UNPIN_TABLE:
        return pt_unpin(op->arg1.mfn);
    case MMUEXT_NEW_BASEPTR:
        return pv_new_baseptr(op->arg1.mfn);
    case MMUEXT_NEW_USER_BASEPTR:
        if (pv_dom.compat)
            return ERR(-XEN_EINVAL, "as Xen: no user base for a 32-bit guest");
        if ((rc = set_baseptr(op->arg1.mfn, &pv_current()->cr3_user_mfn, true)))
            return rc;
        if (op->arg1.mfn && pv_m2p_strict())
            pv_l4_ro_m2p(op->arg1.mfn, false);  /* m2p_strict: user mode never sees the m2p */
        return 0;
    case MMUEXT_TLB_FLUSH_LOCAL:
        flush_tlb(FLUSH_CPU(this_cpu()->id), 0, FLUSH_ALL);
        return 0;
    case MMUEXT_INVLPG_LOCAL:
        flush_tlb(FLUSH_CPU(this_cpu()->id), op->arg1.linear_addr, FLUSH_VA);
        return 0;
    case MMUEXT_TLB_FLUSH_MULTI:
    case MMUEXT_INVLPG_MULTI:
        if ((rc = pv_vcpumask_cpus((uint64_t)op->arg2.vcpumask.p, &cpus)))
            return rc;
        /* fall through */
    case MMUEXT_TLB_FLUSH_ALL:
    case MMUEXT_INVLPG_ALL:
        if (op->cmd == MMUEXT_TLB_FLUSH_MULTI || op->cmd == MMUEXT_TLB_FLUSH_ALL)
            flush_tlb(cpus, 0, FLUSH_ALL);
        else
            flush_tlb(cpus, op->arg1.linear_addr, FLUSH_VA);
        return 0;
    case MMUEXT_FLUSH_CACHE:
        return ERR(-XEN_EACCES);
    case MMUEXT_FLUSH_CACHE_GLOBAL:
        return ERR(-XEN_EINVAL);
    case MMUEXT_SET_LDT: {
        /* as Xen: the base counts only with entries; page-aligned, outside the hypervisor's range */
        uint64_t ents = op->arg2.nr_ents, base = ents ? op->arg1.linear_addr : 0;
        if ((base & (PAGE_SIZE - 1)) || ents > 8192 || (base >= (1ull << 47) && base < PV_HOLE_END))
            return ERR(-XEN_EINVAL);
        pv_set_ldt(base, ents);
        return 0;
    }
    case MMUEXT_CLEAR_PAGE:
    case MMUEXT_COPY_PAGE: {
        uint64_t dst = op->arg1.mfn, src = op->arg2.src_mfn;
        if (op->cmd == MMUEXT_COPY_PAGE && !pv_mfn_is_guest(src))
            return ERR(-XEN_EINVAL);
        if (!pv_mfn_is_guest(dst) || (rc = pt_get_type(dst, PGT_WRITABLE)))
            return ERR(-XEN_EINVAL);
        if (op->cmd == MMUEXT_COPY_PAGE)
            memcpy(pt_frame(dst), pt_frame(src), PAGE_SIZE);
        else
            memset(pt_frame(dst), 0, PAGE_SIZE);
        pt_put_type(dst);
        return 0;
    }
    case MMUEXT_MARK_SUPER:
    case MMUEXT_UNMARK_SUPER:
        return ERR(-XEN_EOPNOTSUPP);
    default:
        return ERR(-XEN_ENOSYS);
    }
}

static int fetch_native(struct mmuext_op *op, uint64_t at)
{
    return copy_from_guest(op, at, sizeof(*op)) ? ERR(-XEN_EFAULT) : 0;
}

long hc_mmuext_op(struct cpu_regs *regs, uint64_t uops, uint64_t count, uint64_t pdone,
                  uint64_t foreigndom, uint64_t a5)
{
    return pv_mmuext_list(uops, count, pdone, foreigndom, sizeof(struct mmuext_op), fetch_native, 0);
}

long pv_mmuext_list(uint64_t uops, uint64_t count, uint64_t pdone, uint64_t foreigndom, uint64_t op_size,
                    int (*fetch)(struct mmuext_op *op, uint64_t at), uint32_t done_before)
{
    uint32_t done = 0;
    int rc = check_args(uops, foreigndom, false);

    if (!rc && (count & COUNT_PREEMPTED))
        rc = ERR(-XEN_EINVAL);
    spin_lock(&pv_dom.mmu_lock);
    for (; !rc && done < count; done++) {
        struct mmuext_op op;
        if (!(rc = fetch(&op, uops + (uint64_t)done * op_size)))
            rc = mmuext_one(&op);
        if (rc) {
            pr_debug("mmuext_op: command %u (arg %#lx) refused: %d\n", op.cmd, op.arg1.mfn, rc);
            break;
        }
    }
    spin_unlock(&pv_dom.mmu_lock);
    done += done_before;
    if (pdone)
        copy_to_guest(pdone, &done, sizeof(done));
    return rc;
}
