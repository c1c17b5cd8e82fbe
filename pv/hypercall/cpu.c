/*
 * cpu.c: the guest vCPU's own state: __HYPERVISOR_set_segment_base (FS, the two GS bases and
 * the user %gs selector), __HYPERVISOR_stack_switch (the kernel stack for entries from user mode)
 * and __HYPERVISOR_fpu_taskswitch (the virtual CR0.TS).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/mm.h"
#include "pv/vcpu/traps.h"
#include "shim/config.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"


/* A data selector the guest may load into %gs without faulting us: null, or one desc.c checks. */
static bool gs_selector_ok(uint16_t sel)
{
    return (sel & ~3u) == 0 || pv_selector_ok(sel | 3, false);
}

long hc_set_segment_base(struct cpu_regs *regs, uint64_t which, uint64_t base, uint64_t a3, uint64_t a4,
                         uint64_t a5)
{
    switch ((uint32_t)which) {          /* an unsigned int in Xen's prototype */
    case SEGBASE_FS:
        if (!is_canonical(base))
            return ERR(-XEN_EINVAL);
        wrmsr(MSR_FS_BASE, base);
        return 0;
    case SEGBASE_GS_USER:
        if (!is_canonical(base))
            return ERR(-XEN_EINVAL);
        pv_current()->gs_base_user = base;
        return 0;
    case SEGBASE_GS_KERNEL:
        if (!is_canonical(base))
            return ERR(-XEN_EINVAL);
        wrmsr(MSR_KERNEL_GS_BASE, base);    /* the guest's active GS base while we run */
        return 0;
    case SEGBASE_GS_USER_SEL: {
        /* As Xen, this never fails: a selector that cannot be loaded loads NUL (Linux BUG()s if
         * the call fails, and its user space chooses the selectors it context-switches). */
        uint16_t sel = (uint16_t)base | ((uint16_t)base & ~3u ? 3 : 0);
        if (!gs_selector_ok(sel))
            sel = 0;
        /* Loading %gs also loads GS_BASE (the shim's per-CPU pointer now) from the descriptor,
         * base 0 for these: put ours back at once, with interrupts off. The user base becomes 0. */
        uint64_t f = irq_save(), mine = rdmsr(MSR_GS_BASE);
        __asm__ volatile("movl %k0, %%gs" :: "r"((uint32_t)sel) : "memory");
        wrmsr(MSR_GS_BASE, mine);
        irq_restore(f);
        pv_current()->gs_base_user = 0;
        return 0;
    }
    default:
        return ERR(-XEN_EINVAL);
    }
}

long hc_stack_switch(struct cpu_regs *regs, uint64_t ss, uint64_t sp, uint64_t a3, uint64_t a4, uint64_t a5)
{
    pv_current()->kernel_ss = ss | 3;
    pv_current()->kernel_sp = sp;
    return 0;
}

/* The guest's virtual CR0.TS, on this CPU's real one: with it set, the next FPU use raises #NM,
 * which the guest gets (traps.c clears it as it delivers, as Xen). */
void pv_set_fpu_ts(bool ts)
{
    pv_current()->fpu_ts = ts;
    write_cr0(ts ? read_cr0() | CR0_TS : read_cr0() & ~CR0_TS);
}

long hc_fpu_taskswitch(struct cpu_regs *regs, uint64_t set, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5)
{
    pv_set_fpu_ts(set != 0);
    return 0;
}
