/*
 * vcpu.c: __HYPERVISOR_vcpu_op and __HYPERVISOR_set_timer_op. A vCPU number the guest does
 * not have is -ENOENT, as Xen; initialise, up, down and is_up are vcpu.c's.
 * register_vcpu_info moves the vCPU's vcpu_info into a guest frame, which it holds as WRITABLE
 * (pv/mm/pagetype.h) so that it can never become a page table behind the shim's back.
 */
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/pagetype.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define MS 1000000ull
#define STIME_DELTA_MAX (1ull << 62)    /* Xen's bound on a periodic timer's period */

static long register_vcpu_info(struct pv_vcpu *v, uint64_t arg)
{
    struct vcpu_register_vcpu_info info;

    if (copy_from_guest(&info, arg, sizeof(info)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&info, arg, sizeof(info))");
    /* aligned as the guest's ABI aligns it: 4 bytes for a 32-bit guest's (Xen's map_vcpu_info) */
    if (info.offset > PAGE_SIZE - sizeof(struct vcpu_info) || (info.offset & (pv_dom.compat ? 3 : 7)))
        return ERR(-XEN_ENXIO, "straddles a page or is misaligned: the stock shim's answer");
    if (v->vi_mfn)
        return ERR(-XEN_EINVAL, "moved already");
    if (!pv_mfn_is_guest(info.mfn))
        return ERR(-XEN_EINVAL, "!pv_mfn_is_guest(info.mfn)");
    spin_lock(&pv_dom.mmu_lock);
    int rc = pt_get_type(info.mfn, PGT_WRITABLE);
    spin_unlock(&pv_dom.mmu_lock);
    if (rc)
        return ERR(-XEN_EINVAL, "rc");
    struct vcpu_info *nvi = (struct vcpu_info *)((char *)pt_frame(info.mfn) + info.offset);
    uint64_t f = irq_save();
    memcpy(nvi, v->vi, sizeof(*nvi));
    v->vi = nvi;
    v->vi_mfn = info.mfn;
    ev_2l_mark_all(nvi);                /* as Xen: everything looks pending, so nothing is lost */
    irq_restore(f);
    pv_time_update();
    return 0;
}

static long set_singleshot(struct pv_vcpu *v, uint64_t arg)
{
    struct vcpu_set_singleshot_timer s;

    if (v != pv_current())
        return ERR(-XEN_EINVAL, "v != pv_current()");
    if (copy_from_guest(&s, arg, sizeof(s)))
        return ERR(-XEN_EFAULT, "copy_from_guest(&s, arg, sizeof(s))");
    /* VCPU_SSHOTTMR_future is ignored, as Xen 4.18+ and Debian's 4.17 (the stock shim) do: a
     * deadline already past fires at once instead of failing with -ETIME */
    uint64_t now = now_ns();
    if (s.timeout_abs_ns <= now) {
        pv_timer_singleshot(v, 0, 0);
        pv_virq_raise(v, VIRQ_TIMER);
        return 0;
    }
    pv_timer_singleshot(v, s.timeout_abs_ns, now);   /* the one clock read serves both */
    return 0;
}

long hc_vcpu_op(struct cpu_regs *regs, uint64_t cmd, uint64_t vcpuid, uint64_t arg, uint64_t a4, uint64_t a5)
{
    if (vcpuid >= pv_dom.nr_vcpus)
        return ERR(-XEN_ENOENT, "vcpuid >= pv_dom.nr_vcpus");
    struct pv_vcpu *v = &pv_dom.vcpu[vcpuid];

    pr_debug("vcpu_op %lu on vCPU %lu\n", cmd, vcpuid);
    switch (cmd) {
    case VCPUOP_initialise:
        return pv_vcpu_initialise(v, arg);
    case VCPUOP_up:
        return pv_vcpu_up(v);
    case VCPUOP_down:
        return pv_vcpu_down(v);
    case VCPUOP_is_up:
        return pv_vcpu_is_up(v);
    case VCPUOP_get_runstate_info: {
        struct vcpu_runstate_info ri;
        pv_runstate_get(v, &ri);
        return copy_to_guest(arg, &ri, sizeof(ri)) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
    }
    case VCPUOP_register_runstate_memory_area: {
        struct vcpu_register_runstate_memory_area a;
        struct vcpu_runstate_info ri;
        if (copy_from_guest(&a, arg, sizeof(a)) || !guest_range_ok(a.addr.p, 1))
            return ERR(-XEN_EFAULT, "as Xen: the area must start at a guest address");
        v->runstate_area = a.addr.p;
        pv_runstate_get(v, &ri);
        pv_runstate_publish(v, &ri);
        return 0;
    }
    case VCPUOP_register_vcpu_time_memory_area: {
        struct vcpu_register_time_memory_area a;
        if (copy_from_guest(&a, arg, sizeof(a)) || !guest_range_ok(a.addr.p, 1))
            return ERR(-XEN_EFAULT, "copy_from_guest(&a, arg, sizeof(a)) || !guest_range_ok(a.addr.p, 1)");
        v->time_area = a.addr.p;
        if (v == pv_current())
            pv_time_update();
        return 0;
    }
    case VCPUOP_register_vcpu_info:
        return register_vcpu_info(v, arg);
    case VCPUOP_set_periodic_timer: {
        struct vcpu_set_periodic_timer p;
        if (copy_from_guest(&p, arg, sizeof(p)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&p, arg, sizeof(p))");
        if (p.period_ns < MS || p.period_ns > STIME_DELTA_MAX)
            return ERR(-XEN_EINVAL, "p.period_ns < MS || p.period_ns > STIME_DELTA_MAX");
        pv_timer_periodic(v, p.period_ns);
        return 0;
    }
    case VCPUOP_stop_periodic_timer:
        pv_timer_periodic(v, 0);
        return 0;
    case VCPUOP_set_singleshot_timer:
        return set_singleshot(v, arg);
    case VCPUOP_stop_singleshot_timer:
        if (v != pv_current())
            return ERR(-XEN_EINVAL, "v != pv_current()");
        pv_timer_singleshot(v, 0, 0);
        return 0;
    case VCPUOP_send_nmi:
        return pv_nmi_send(v, arg);
    default:
        return hc_subop_refuse(&hc_subops_vcpu_op, cmd);
    }
}

long hc_set_timer_op(struct cpu_regs *regs, uint64_t timeout, uint64_t a2, uint64_t a3, uint64_t a4,
                     uint64_t a5)
{
    struct pv_vcpu *v = pv_current();
    /* how far ahead, from the guest's last clock record: a lower bound of now with no clock
     * read (an L0 exit), which can only make a sane timeout look farther than it is, by the
     * record's age, and the bound below is 13 days */
    int64_t offset = (int64_t)(timeout - v->vi->time.system_time);

    if (!timeout)
        pv_timer_singleshot(v, 0, 0);
    else if ((int64_t)timeout < 0 || (offset > 0 && (offset >> 50)))
        pv_timer_singleshot(v, now_ns() + 100 * MS, 0);   /* Xen's answer to a wrapped Linux jiffy timeout */
    else
        pv_timer_singleshot(v, timeout, 0);
    return 0;
}
