/*
 * table.c: the hypercall table of a 32-bit guest. Every number of the x86_32 PV ABI appears once:
 * NATIVE (the 64-bit handler takes the zero-extended arguments as they are: the structures it
 * reads are the same in both ABIs), TRANSLATED (a handler here reads the 32-bit structures and
 * calls into the 64-bit code), or REFUSED with the errno given. A number not listed is -ENOSYS,
 * as in Xen.
 */
#include "compat/compat.h"
#include "compat/hcalls.h"
#include "pv/hypercall/hypercall.h"
#include "shim/debug.h"
#include "shim/stats.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

enum kind { NATIVE, TRANSLATED, REFUSED_ };

struct entry {
    const char *name;
    enum kind kind;
    hc_fn fn;
    int err;
};

#define N(nr, f)    [__HYPERVISOR_##nr] = { #nr, NATIVE, f, 0 }
#define T(nr, f)    [__HYPERVISOR_##nr] = { #nr, TRANSLATED, f, 0 }
#define R(nr, e)    [__HYPERVISOR_##nr] = { #nr, REFUSED_, NULL, e }

static const struct entry table[64] = {
    T(set_trap_table, compat_set_trap_table),       /* 8-byte trap_info */
    N(mmu_update, hc_mmu_update),                   /* struct mmu_update is two uint64_t in both */
    T(set_gdt, compat_set_gdt),                     /* 4-byte frame numbers */
    T(stack_switch, compat_stack_switch),           /* ring-1 stack selectors */
    T(set_callbacks, compat_set_callbacks),         /* cs:eip pairs for event and failsafe */
    N(fpu_taskswitch, hc_fpu_taskswitch),
    N(sched_op_compat, hc_sched_op_compat),         /* scalar arguments */
    R(platform_op, -XEN_EPERM),                     /* dom0 only */
    N(set_debugreg, hc_set_debugreg),
    N(get_debugreg, hc_get_debugreg),
    T(update_descriptor, compat_update_descriptor), /* address and descriptor split in halves */
    T(memory_op, compat_memory_op),                 /* reservations, maps, exchange: 32-bit handles */
    T(multicall, compat_multicall),                 /* 32-byte entries of 32-bit arguments */
    T(update_va_mapping, compat_update_va_mapping), /* the new entry split in halves */
    T(set_timer_op, compat_set_timer_op),           /* the deadline split in halves */
    N(event_channel_op_compat, hc_event_channel_op_compat), /* evtchn_op: the same in both */
    T(xen_version, compat_xen_version),             /* platform_parameters: a 4-byte virt_start */
    N(console_io, hc_console_io),
    N(physdev_op_compat, hc_physdev_op_compat),
    T(grant_table_op, compat_grant_table_op),       /* setup_table's frame list, copy's frames */
    T(vm_assist, compat_vm_assist),                 /* m2p_strict is not a 32-bit assist */
    T(update_va_mapping_otherdomain, compat_update_va_mapping_otherdomain),
    T(iret, compat_iret_hc),                        /* the compat frame; ends a multicall */
    T(vcpu_op, compat_vcpu_op),                     /* contexts, runstate: their 32-bit layouts */
    R(set_segment_base, -XEN_ENOSYS),               /* 64-bit only: Xen's compat table has none */
    T(mmuext_op, compat_mmuext_op),                 /* 12-byte mmuext_op */
    R(xsm_op, -XEN_ENOSYS),
    T(nmi_op, compat_nmi_op),                       /* 4-byte handler address */
    T(sched_op, compat_sched_op),                   /* sched_poll's 4-byte port list handle */
    T(callback_op, compat_callback_op),             /* cs:eip callbacks */
    R(xenoprof_op, -XEN_ENOSYS),
    N(event_channel_op, hc_event_channel_op),       /* every evtchn structure is the same in both */
    T(physdev_op, compat_physdev_op),               /* set_iobitmap's 4-byte handle */
    R(hvm_op, -XEN_ENOSYS),
    R(sysctl, -XEN_ENOSYS),
    R(domctl, -XEN_ENOSYS),
    R(kexec_op, -XEN_EPERM),
    R(tmem_op, -XEN_ENOSYS),
    R(argo_op, -XEN_ENOSYS),
    R(xenpmu_op, -XEN_EOPNOTSUPP),
    R(dm_op, -XEN_EPERM),
    R(hypfs_op, -XEN_ENOSYS),
    [__HYPERVISOR_arch_0] = { "mca", REFUSED_, NULL, -XEN_EPERM },
};

long compat_hypercall_call(struct cpu_regs *r, uint32_t nr, const uint32_t a[6])
{
    STAT_INC(guest_hypercalls);
    if (nr >= ARRAY_SIZE(table) || !table[nr].name)
        return ERR(-XEN_ENOSYS);
    STAT_INC_IDX(guest_hypercall, nr);
    if (table[nr].kind == REFUSED_)
        return ERR(table[nr].err);
    return table[nr].fn(r, a[0], a[1], a[2], a[3], a[4]);
}
