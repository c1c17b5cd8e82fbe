/*
 * entry.c: a 32-bit guest's way in and out of the shim, as Xen's compat entry code:
 *  - int $0x82 from ring 1 is the hypercall gate (number in eax, arguments in ebx, ecx, edx, esi,
 *    edi; the result in eax);
 *  - exceptions and events enter the kernel on the compat bounce frame: [error code,] eip,
 *    cs (the saved upcall mask in bits 16-23), eflags (IF = !mask), and from ring 3 also esp and
 *    ss, on the stack given with stack_switch;
 *  - the iret hypercall (the hypercall page's stub pushes eax on the frame) returns through
 *    [eax, eip, cs, eflags, (esp, ss)]: to ring 1 it pops 16 bytes, to ring 3 it loads esp:ss.
 * Everything our own iretq will load is checked first, so a bad frame crashes the guest with a
 * reason, never the shim.
 */
#include "compat/compat.h"
#include "compat/layout.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/vcpu/traps.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/x86.h"

#define RFLAGS_NT (1ul << 14)
#define RFLAGS_RF (1ul << 16)
#define RFLAGS_VM (1ul << 17)

/*
 * SYSCALL in compatibility mode (from ring 3, or ring 1): as Xen's compat_syscall, the frame says
 * the guest's flat ring-3 CS and SS whatever the ring, and the kernel's syscall32 callback gets
 * it; without one the guest gets #GP(0) at the SYSCALL instruction.
 */
void compat_syscall(struct cpu_regs *r)
{
    struct pv_vcpu *v = pv_current();

    r->cs = SEL_C_RING3_CS32;
    r->ss = SEL_C_RING3_DS;
    if (!v->syscall32_callback) {
        const struct pv_trap *t = &v->traps[13];
        r->rip -= 2;
        if (!t->address)
            pv_crash(r, "SYSCALL with no syscall32 callback and no #GP handler at %#lx", r->rip);
        if (t->cs)
            v->kernel_cs = t->cs;
        compat_bounce(r, t->address, t->flags & 4, 0);
        return;
    }
    compat_bounce(r, v->syscall32_callback, v->syscall32_mask_events, -1);
}

void compat_hypercall(struct cpu_regs *r)
{
    const uint32_t a[6] = { (uint32_t)r->rbx, (uint32_t)r->rcx, (uint32_t)r->rdx,
                            (uint32_t)r->rsi, (uint32_t)r->rdi, (uint32_t)r->rbp };

    sti();
    r->rax = (uint32_t)compat_hypercall_call(r, (uint32_t)r->rax, a);
    cli();
    pv_upcall_check(r);
}

static bool sel_ok(uint16_t sel, bool code)
{
    return pv_compat_selector_ok(sel, code ? PV_SEG_CS : PV_SEG_SS);
}

void compat_bounce(struct cpu_regs *r, uint64_t addr, bool mask_events, int64_t error_code)
{
    struct pv_vcpu *v = pv_current();
    struct vcpu_info *vi = v->vi;
    uint32_t frame[6], n = 0;
    uint8_t mask = vi->evtchn_upcall_mask;
    bool from_user = (r->cs & 3) == 3;
    uint32_t sp = from_user ? (uint32_t)v->kernel_sp : (uint32_t)r->rsp;

    if (error_code >= 0)
        frame[n++] = (uint32_t)error_code;
    frame[n++] = (uint32_t)r->rip;
    frame[n++] = (uint32_t)(r->cs & 0xffff) | ((uint32_t)mask << 16);
    uint32_t iopl = pv_dom.vm_assist & (1ull << VMASST_TYPE_architectural_iopl) ? v->iopl << 12 : 0;
    frame[n++] = (uint32_t)((r->rflags & ~(RFLAGS_IF | RFLAGS_IOPL)) | (mask ? 0 : RFLAGS_IF) | iopl);
    if (from_user) {
        frame[n++] = (uint32_t)r->rsp;
        frame[n++] = (uint32_t)r->ss;
    }
    sp -= n * 4;
    pr_debug("bounce: vector %lu at %#lx to %#lx (compat)\n", r->vector, r->rip, addr);
    if (copy_to_guest(sp, frame, n * 4))
        pv_crash(r, "%s at %#lx, and its compat bounce frame cannot be written at %#x",
                 addr == v->event_callback ? "an event" : "an exception", r->rip, sp);
    if (mask_events)
        vi->evtchn_upcall_mask = 1;
    r->rsp = sp;
    r->rip = (uint32_t)addr;
    /* the callback's own selector, or the trap table's, when loadable; else the flat one */
    uint16_t kcs = addr == v->event_callback && v->event_cs ? v->event_cs :
                   addr == v->syscall32_callback && v->syscall32_cs ? v->syscall32_cs : v->kernel_cs;
    r->cs = kcs && (kcs & 3) == 1 && sel_ok(kcs, true) ? kcs : SEL_RING1_CS32;
    if (from_user)
        r->ss = sel_ok((uint16_t)(v->kernel_ss | 1), false) ? (v->kernel_ss | 1) : SEL_RING1_DS;
    r->rflags = (r->rflags & ~(RFLAGS_TF | RFLAGS_NT | RFLAGS_RF | RFLAGS_VM)) | RFLAGS_IF;
    pv_dom.nr_bounces++;
}

void compat_iret(struct cpu_regs *r)
{
    uint32_t f[6];
    uint32_t sp = (uint32_t)r->rsp;

    if (copy_from_guest(f, sp, 16))
        pv_crash(r, "compat iret: its frame at %#x cannot be read", sp);
    uint16_t cs = (uint16_t)f[2];
    if ((cs & 3) == 0)
        cs |= 1;                        /* as Xen's fixup: a ring-0 selector means the kernel's */
    if (!sel_ok(cs, true))
        pv_crash(r, "compat iret with cs %#x, which the guest cannot load", cs);
    if (f[3] & RFLAGS_VM)
        pv_crash(r, "compat iret to virtual-8086 mode (eflags %#x): not supported", f[3]);
    if ((cs & 3) == 3) {
        if (copy_from_guest(&f[4], sp + 16, 8))
            pv_crash(r, "compat iret: its ring-3 frame at %#x cannot be read", sp);
        uint16_t ss = (uint16_t)f[5] | 3;
        if (!sel_ok(ss, false))
            pv_crash(r, "compat iret with ss %#x, which the guest cannot load", ss);
        r->rsp = f[4];
        r->ss = ss;
    } else {
        r->rsp = sp + 16;               /* to ring 1: eax, eip, cs and eflags popped */
    }
    r->rax = f[0];
    r->rip = f[1];
    r->cs = cs;
    r->rflags = (f[3] & PV_RFLAGS_GUEST) | RFLAGS_IF | 2;
    if (pv_dom.vm_assist & (1ull << VMASST_TYPE_architectural_iopl))
        pv_current()->iopl = (f[3] >> 12) & 3;
    pv_current()->vi->evtchn_upcall_mask = !(f[3] & RFLAGS_IF);
    pv_current()->nmi_masked = false;
}

/* The first entry of a vCPU (both ways in, enter_first and VCPUOP_up's start, come here): this
 * CPU's GDT in the compat layout, then ring 1 with its flat selectors in every segment register,
 * as Xen's builder leaves them (GS through its inactive base: the active one is this CPU's own).
 * Called with interrupts off. */
void compat_enter_regs(struct cpu_regs *r, uint64_t rip, uint64_t rsp, uint64_t rsi)
{
    cpu_gdt_compat(this_cpu());
    r->rip = rip;
    r->rsp = rsp;
    r->rsi = rsi;
    r->cs = SEL_RING1_CS32;
    r->ss = SEL_RING1_DS;
    r->rflags = RFLAGS_IF | 2;
    __asm__ volatile("movl %0, %%ds\n\t"
                     "movl %0, %%es\n\t"
                     "movl %0, %%fs\n\t"
                     "swapgs\n\t"
                     "movl %0, %%gs\n\t"
                     "swapgs" :: "r"((uint32_t)SEL_RING1_DS) : "memory");
}

/* A data segment register's selector from a context: loadable, or null. */
static uint32_t data_sel(uint16_t sel)
{
    sel = (sel & 3) ? sel : sel | 1;
    return pv_compat_selector_ok(sel, PV_SEG_DATA) ? sel : 0;
}

void compat_start_regs(struct cpu_regs *r, const uint16_t seg[6], uint64_t rflags)
{
    uint64_t rip = r->rip, rsp = r->rsp, rsi = r->rsi;
    uint16_t cs = seg[0], ss = seg[1];

    compat_enter_regs(r, rip, rsp, rsi);
    cs = (cs & 3) ? cs : cs | 1;
    ss = (ss & 3) ? ss : ss | 1;
    if (sel_ok(cs, true) && sel_ok(ss, false) && (cs & 3) == (ss & 3)) {
        r->cs = cs;
        r->ss = ss;
    }
    r->rflags = (rflags & PV_RFLAGS_GUEST) | RFLAGS_IF | 2;
    /* ds, es, fs, gs as the context gives them (each checked: one that would fault is null) */
    __asm__ volatile("movl %0, %%ds\n\t"
                     "movl %1, %%es\n\t"
                     "movl %2, %%fs\n\t"
                     "swapgs\n\t"
                     "movl %3, %%gs\n\t"
                     "swapgs" :: "r"(data_sel(seg[2])), "r"(data_sel(seg[3])), "r"(data_sel(seg[4])),
                     "r"(data_sel(seg[5])) : "memory");
}
