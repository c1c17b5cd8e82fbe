/*
 * table.c: the hypercall table. Every hypercall number of the 64-bit PV ABI appears here once:
 * HANDLED by the shim, FORWARDED to L0 (through l0_ops, from its handler), or REFUSED with the
 * errno given. A number not listed is refused with -ENOSYS, as Xen does. The four hypercalls that
 * are families of operations have a table of their sub-ops too (subops.c).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/stats.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

struct hc_entry {
    const char *name;
    enum hc_kind kind;
    hc_fn fn;                           /* HANDLED, FORWARDED */
    int err;                            /* REFUSED: what the guest gets */
};

#define H(nr, f)     [__HYPERVISOR_##nr] = { #nr, HANDLED, f, 0 }
#define F(nr, f)     [__HYPERVISOR_##nr] = { #nr, FORWARDED, f, 0 }
#define R(nr, e)     [__HYPERVISOR_##nr] = { #nr, REFUSED, NULL, e }

static const struct hc_entry table[64] = {
    H(set_trap_table, hc_set_trap_table),
    H(mmu_update, hc_mmu_update),
    H(set_gdt, hc_set_gdt),
    H(stack_switch, hc_stack_switch),
    H(set_callbacks, hc_set_callbacks),     /* the 64-bit ABI keeps it (Xen's do_set_callbacks) */
    H(fpu_taskswitch, hc_fpu_taskswitch),
    H(sched_op_compat, hc_sched_op_compat), /* the pre-3.0.2 calls, still in the 64-bit ABI: hypercall/compat.c */
    R(platform_op, -XEN_EPERM),             /* dom0 only */
    H(set_debugreg, hc_set_debugreg),       /* the vCPU's CPU's own registers */
    H(get_debugreg, hc_get_debugreg),
    H(update_descriptor, hc_update_descriptor),
    H(memory_op, hc_memory_op),             /* sub-ops: subops.c */
    H(multicall, hc_multicall),
    H(update_va_mapping, hc_update_va_mapping),
    H(set_timer_op, hc_set_timer_op),
    H(event_channel_op_compat, hc_event_channel_op_compat),
    H(xen_version, hc_xen_version),
    H(console_io, hc_console_io),           /* -EPERM as a release Xen gives a domU; guest_loglvl=all: writes */
    H(physdev_op_compat, hc_physdev_op_compat),
    F(grant_table_op, hc_grant_table_op),   /* sub-ops: subops.c */
    H(vm_assist, hc_vm_assist),
    H(update_va_mapping_otherdomain, hc_update_va_mapping_otherdomain),     /* DOMID_SELF only */
    H(iret, hc_iret),                       /* replaces the frame it came in on: ends a multicall */
    H(vcpu_op, hc_vcpu_op),                 /* sub-ops: subops.c */
    H(set_segment_base, hc_set_segment_base),
    H(mmuext_op, hc_mmuext_op),
    R(xsm_op, -XEN_ENOSYS),
    H(nmi_op, hc_nmi_op),                   /* register/unregister: trap vector 2 */
    H(sched_op, hc_sched_op),               /* remote_shutdown -EPERM; suspend: L0 saves us (pv/domain/suspend.c; -EINVAL standalone) */
    H(callback_op, hc_callback_op),
    R(xenoprof_op, -XEN_ENOSYS),
    F(event_channel_op, hc_event_channel_op),   /* sub-ops: subops.c */
    H(physdev_op, hc_physdev_op),
    R(hvm_op, -XEN_ENOSYS),                 /* not for PV guests */
    R(sysctl, -XEN_ENOSYS),                 /* the toolstack's: a shim has none (the stock shim's answer) */
    R(domctl, -XEN_ENOSYS),
    R(kexec_op, -XEN_EPERM),
    R(tmem_op, -XEN_ENOSYS),
    R(argo_op, -XEN_ENOSYS),
    R(xenpmu_op, -XEN_EOPNOTSUPP),          /* Linux: "VPMU disabled by hypervisor" */
    R(dm_op, -XEN_EPERM),
    R(hypfs_op, -XEN_ENOSYS),
    [__HYPERVISOR_arch_0] = { "mca", REFUSED, NULL, -XEN_EPERM },   /* dom0 only */
};

_Static_assert(ARRAY_SIZE(table) == ARRAY_SIZE(stats_live.guest_hypercall), "one counter per number");

/* The counters are the stats page's (relaxed atomics: every vCPU counts into them). */
long pv_hypercall_call(struct cpu_regs *r, uint64_t nr, const uint64_t a[5])
{
    STAT_INC(guest_hypercalls);
    if (nr >= ARRAY_SIZE(table) || !table[nr].name)
        return ERR(-XEN_ENOSYS);
    STAT_INC_IDX(guest_hypercall, nr);
    if (table[nr].kind == REFUSED)
        return ERR(table[nr].err);
    return table[nr].fn(r, a[0], a[1], a[2], a[3], a[4]);
}

long pv_hypercall(struct cpu_regs *r)
{
    const uint64_t a[5] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8 };

    return pv_hypercall_call(r, r->rax, a);
}

bool pv_hypercall_ends_frame(uint64_t nr)
{
    return nr == __HYPERVISOR_iret;
}

/* The counts by name, wrapped into console lines (printk cuts a line at about 300 characters);
 * numbers the table does not name count as "other". */
void pv_hypercall_report(void)
{
    char buf[160];
    size_t n = 0;
    uint64_t named = 0;
    bool more = false;

    for (unsigned i = 0; i <= ARRAY_SIZE(table); i++) {
        char item[48];
        int k;
        if (i < ARRAY_SIZE(table)) {
            uint64_t c = __atomic_load_n(&stats_live.guest_hypercall[i], __ATOMIC_RELAXED);
            if (!c)
                continue;
            named += c;
            k = snprintf_(item, sizeof(item), " %s %lu", table[i].name, c);
        } else {
            uint64_t all = __atomic_load_n(&stats_live.guest_hypercalls, __ATOMIC_RELAXED);
            if (all <= named)
                break;
            k = snprintf_(item, sizeof(item), " other %lu", all - named);
        }
        if (n + (size_t)k >= sizeof(buf)) {
            pr_info("guest hypercalls%s:%s\n", more ? " (more)" : "", buf);
            more = true;
            n = 0;
        }
        memcpy(buf + n, item, (size_t)k + 1);
        n += (size_t)k;
    }
    pr_info("guest hypercalls%s:%s\n", more ? " (more)" : "", n ? buf : " none");
}
