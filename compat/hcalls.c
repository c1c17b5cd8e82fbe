/*
 * hcalls.c: the 32-bit guest's hypercalls whose arguments differ from the 64-bit ABI's, read in
 * their 32-bit form and handed to the 64-bit code. Selectors a 32-bit guest gives with RPL 0 mean
 * its kernel's ring, 1 (Xen's fixup_guest_code_selector and _stack_selector).
 */
#include "compat/compat.h"
#include "compat/hcalls.h"
#include "compat/layout.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/traps.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define ARGS struct cpu_regs *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5

static uint16_t ring1(uint32_t sel)
{
    return (uint16_t)((sel & 3) ? sel : sel | 1);
}

long compat_set_trap_table(ARGS)
{
    struct pv_trap *traps = pv_current()->traps;
    struct trap_info_x86_32 t;

    if (!a1) {
        memset(traps, 0, 256 * sizeof(*traps));
        return 0;
    }
    for (unsigned i = 0; i <= 256; i++, a1 += sizeof(t)) {
        if (copy_from_guest(&t, a1, sizeof(t)))
            return ERR(-XEN_EFAULT, "a trap_info cannot be read");
        if (!t.address)
            return 0;
        traps[t.vector] = (struct pv_trap){ t.address, ring1(t.cs), t.flags };
    }
    return ERR(-XEN_E2BIG, "no terminating entry within 256");
}

long compat_set_gdt(ARGS)
{
    uint32_t f32[16];
    uint64_t frames[16];
    unsigned entries = (unsigned)a2, nr = (entries + 511) / 512;

    if (nr > ARRAY_SIZE(f32))
        return ERR(-XEN_EINVAL, "more entries than a GDT holds");
    if (copy_from_guest(f32, a1, nr * sizeof(f32[0])))
        return ERR(-XEN_EFAULT, "the frame list cannot be read");
    for (unsigned i = 0; i < nr; i++)
        frames[i] = f32[i];
    return pv_set_gdt_frames(frames, entries);
}

long compat_stack_switch(ARGS)
{
    pv_current()->kernel_ss = ring1((uint32_t)a1);
    pv_current()->kernel_sp = (uint32_t)a2;
    return 0;
}

/* set_callbacks(event cs, event eip, failsafe cs, failsafe eip): the event callback's selector
 * is kept for its bounces (the failsafe one never runs here: a bad frame crashes the guest). */
long compat_set_callbacks(ARGS)
{
    const struct callback_register c[2] = {
        { .type = CALLBACKTYPE_event, .address = (uint32_t)a2 },
        { .type = CALLBACKTYPE_failsafe, .address = (uint32_t)a4 },
    };

    for (unsigned i = 0; i < 2; i++)
        (void)pv_callback_register(&c[i]);
    pv_current()->event_cs = ring1((uint32_t)a1);
    return 0;
}

long compat_callback_op(ARGS)
{
    struct __packed { uint16_t type, flags; uint32_t cs, eip; } c32;

    if (a1 != CALLBACKOP_register)
        return hc_callback_op(regs, a1, a2, a3, a4, a5);        /* unregister: the same struct */
    if (copy_from_guest(&c32, a2, sizeof(c32)))
        return ERR(-XEN_EFAULT, "the callback_register cannot be read");
    if (c32.type == CALLBACKTYPE_syscall)
        return ERR(-XEN_ENOSYS, "as Xen's compat: 64-bit SYSCALL has no 32-bit callback");
    const struct callback_register c = { .type = c32.type, .flags = c32.flags, .address = c32.eip };
    long rc = pv_callback_register(&c);
    if (!rc && c32.type == CALLBACKTYPE_event)
        pv_current()->event_cs = ring1(c32.cs);
    else if (!rc && c32.type == CALLBACKTYPE_syscall32)
        pv_current()->syscall32_cs = ring1(c32.cs);
    return rc;
}

long compat_update_descriptor(ARGS)
{
    return hc_update_descriptor(regs, (uint32_t)a1 | a2 << 32, (uint32_t)a3 | a4 << 32, 0, 0, 0);
}

long compat_update_va_mapping(ARGS)
{
    return hc_update_va_mapping(regs, (uint32_t)a1, (uint32_t)a2 | a3 << 32, a4, 0, 0);
}

long compat_update_va_mapping_otherdomain(ARGS)
{
    return hc_update_va_mapping_otherdomain(regs, (uint32_t)a1, (uint32_t)a2 | a3 << 32, a4, a5, 0);
}

long compat_set_timer_op(ARGS)
{
    return hc_set_timer_op(regs, (uint32_t)a1 | a2 << 32, 0, 0, 0, 0);
}

long compat_iret_hc(ARGS)
{
    compat_iret(regs);
    return (long)regs->rax;
}

/* 32-byte entries: op, result, six 32-bit arguments. As the native multicall: no nesting, each
 * result written back, an iret entry ends the list. */
long compat_multicall(ARGS)
{
    static bool in[PV_MAX_VCPUS];
    bool *me = &in[pv_current()->id];
    struct { uint32_t op, result, args[6]; } e;
    long rc = 0;

    if (*me)
        return ERR(-XEN_EINVAL, "a multicall inside a multicall");
    *me = true;
    for (uint32_t i = 0; i < (uint32_t)a2; i++) {
        uint64_t at = (uint32_t)a1 + (uint64_t)i * sizeof(e);
        if (copy_from_guest(&e, at, sizeof(e))) {
            rc = ERR(-XEN_EFAULT, "an entry cannot be read");
            break;
        }
        e.result = (uint32_t)compat_hypercall_call(regs, e.op, e.args);
        bool ends = pv_hypercall_ends_frame(e.op);
        if (copy_to_guest(at + 4, &e.result, sizeof(e.result)) && !ends) {
            rc = ERR(-XEN_EFAULT, "a result cannot be written");
            break;
        }
        if (ends) {
            rc = (int32_t)e.result;
            break;
        }
    }
    *me = false;
    return rc;
}

long compat_xen_version(ARGS)
{
    if (a1 == XENVER_platform_parameters) {
        uint32_t virt_start = COMPAT_HV_START;
        return copy_to_guest(a2, &virt_start, sizeof(virt_start)) ? ERR(-XEN_EFAULT, "cannot be written") : 0;
    }
    return hc_xen_version(regs, a1, a2, a3, a4, a5);
}

/* m2p_strict is a 64-bit assist (Xen's compat VM_ASSIST_VALID leaves it out) */
long compat_vm_assist(ARGS)
{
    if (a2 == VMASST_TYPE_m2p_strict)
        return ERR(-XEN_EINVAL, "not a 32-bit assist");
    return hc_vm_assist(regs, a1, a2, a3, a4, a5);
}

long compat_nmi_op(ARGS)
{
    uint32_t handler;

    if (a1 != XENNMI_register_callback)
        return hc_nmi_op(regs, a1, a2, a3, a4, a5);
    if (copy_from_guest(&handler, a2, sizeof(handler)))
        return ERR(-XEN_EFAULT, "the callback cannot be read");
    return pv_nmi_register(handler);
}

long compat_sched_op(ARGS)
{
    struct { uint32_t ports, nr_ports; uint64_t timeout; } __packed p32;

    if (a1 != SCHEDOP_poll)
        return hc_sched_op(regs, a1, a2, a3, a4, a5);   /* the others' structures are the same */
    if (copy_from_guest(&p32, a2, sizeof(p32)))
        return ERR(-XEN_EFAULT, "the sched_poll cannot be read");
    struct sched_poll sp = { .nr_ports = p32.nr_ports, .timeout = p32.timeout };
    set_xen_guest_handle(sp.ports, (evtchn_port_t *)(uintptr_t)p32.ports);
    return pv_sched_poll(&sp);
}

/* set_iobitmap's bitmap is a 4-byte handle; the other physdev structures are the same */
long compat_physdev_op(ARGS)
{
    struct { uint32_t bitmap, nr_ports; } c;

    if (a1 != PHYSDEVOP_set_iobitmap)
        return hc_physdev_op(regs, a1, (uint32_t)a2, a3, a4, a5);
    if (copy_from_guest(&c, (uint32_t)a2, sizeof(c)))
        return ERR(-XEN_EFAULT, "the set_iobitmap cannot be read");
    if (c.nr_ports > 65536)
        return ERR(-XEN_EINVAL, "more ports than there are");
    pv_current()->iobmp = c.bitmap;
    pv_current()->iobmp_ports = c.nr_ports;
    return 0;
}
