/*
 * traps.c: exceptions raised by the guest. A few privileged instructions are emulated (reading
 * CR3); the rest are bounced to the handler the guest registered with set_trap_table, on the
 * frame 64-bit PV kernels expect: [rcx, r11, (error code), rip, cs, rflags, rsp, ss], lowest first.
 * An exception the guest has no handler for, or whose frame cannot be written, crashes it.
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
#include "shim/debug.h"
#include "shim/x86.h"

#define RFLAGS_NT (1ul << 14)
#define RFLAGS_RF (1ul << 16)
#define TI_MASK_EVENTS 4

static const char *const names[32] = {
    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#09", "#TS", "#NP", "#SS", "#GP", "#PF",
    "#15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

static bool has_error_code(uint64_t v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21;
}

/* The fault address the guest reads in its vcpu_info (at 8, 32 bits wide, in a 32-bit guest's). */
void pv_set_cr2(uint64_t cr2)
{
    if (pv_dom.compat)
        ((struct vcpu_info_x86_32 *)pv_current()->vi)->arch.cr2 = (uint32_t)cr2;
    else
        pv_current()->vi->arch.cr2 = cr2;
}

uint64_t pv_get_cr2(void)
{
    if (pv_dom.compat)
        return ((struct vcpu_info_x86_32 *)pv_current()->vi)->arch.cr2;
    return pv_current()->vi->arch.cr2;
}

/* Deliver to the guest kernel at addr (an exception handler, the event or syscall callback) on
 * the frame 64-bit PV kernels expect; error_code < 0: none. */
void pv_bounce(struct cpu_regs *r, uint64_t addr, bool mask_events, int64_t error_code)
{
    if (pv_dom.compat) {
        compat_bounce(r, addr, mask_events, error_code);
        return;
    }
    struct vcpu_info *vi = pv_current()->vi;
    uint64_t frame[8], n = 0;
    uint8_t mask = vi->evtchn_upcall_mask;
    bool from_user = pv_current()->user_mode;
    /* from user mode: the kernel's stack and page tables, and the user's CS (RPL 3) in the frame;
     * from kernel mode: its own stack, and CS with RPL 0, as Xen */
    uint64_t stack = from_user ? pv_current()->kernel_sp : r->rsp;

    frame[n++] = r->rcx;
    frame[n++] = r->r11;
    if (error_code >= 0)
        frame[n++] = (uint64_t)error_code;
    frame[n++] = r->rip;
    frame[n++] = (from_user ? r->cs | 3 : r->cs & 0xfffc) | ((uint64_t)mask << 32);
    uint64_t iopl = pv_dom.vm_assist & (1ull << VMASST_TYPE_architectural_iopl) ? (uint64_t)pv_current()->iopl << 12 : 0;
    frame[n++] = (r->rflags & ~(RFLAGS_IF | RFLAGS_IOPL)) | (mask ? 0 : RFLAGS_IF) | iopl;  /* architectural IOPL: the virtual one */
    frame[n++] = r->rsp;
    frame[n++] = r->ss;
    uint64_t sp = (stack & ~0xful) - n * 8;
    pv_to_kernel_mode();
    pr_debug("bounce: vector %lu at %#lx to %#lx\n", r->vector, r->rip, addr);
    if (copy_to_guest(sp, frame, n * 8))
        pv_crash(r, "%s at %#lx, and its bounce frame cannot be written at %#lx",
                 addr == pv_current()->event_callback ? "an event" : r->vector < 32 ? names[r->vector] : "a syscall",
                 r->rip, sp);
    if (mask_events)
        vi->evtchn_upcall_mask = 1;
    r->rsp = sp;
    r->rip = addr;
    uint16_t cs = pv_current()->kernel_cs;     /* the trap table's selector when loadable, else the flat one */
    r->cs = cs && pv_selector_ok(cs, true) ? cs : SEL_RING3_CS64;
    r->ss = SEL_RING3_DS;
    r->rflags = (r->rflags & ~(RFLAGS_TF | RFLAGS_NT | RFLAGS_RF)) | RFLAGS_IF;
    pv_dom.nr_bounces++;
}

/*
 * INT n that our IDT refused: #GP with the IDT bit. As Xen, it is the guest's trap n if the
 * guest's trap table lets its current mode in (DPL >= 1 for the kernel, which Xen counts as ring
 * 1; 3 for user mode: Linux's int $0x80 for 32-bit processes), delivered after the two-byte
 * instruction with no error code; otherwise the #GP goes to the guest with error code n*8+2.
 * n comes from the instruction, not from the error code: QEMU 7.2's TCG (the L0's CPU on our
 * test bed) reports n*16+2, which Xen 4.17 (the stock shim) misreads as another vector.
 */
static bool soft_int(struct cpu_regs *r, bool kernel)
{
    uint8_t insn[2];

    if (copy_from_guest(insn, r->rip, sizeof(insn)) || insn[0] != 0xcd)
        return false;                   /* not INT imm8: the #GP as the CPU gave it */
    r->error_code = insn[1] * 8u + 2;
    const struct pv_trap *t = &pv_current()->traps[insn[1]];
    if (!t->address || (t->flags & 3) < (kernel ? 1 : 3))
        return false;
    r->rip += 2;
    if (t->cs)
        pv_current()->kernel_cs = t->cs;
    pv_bounce(r, t->address, t->flags & TI_MASK_EVENTS, -1);
    return true;
}

/* reflected: the fault was our iretq's (pv_iret_fault), not raised by the guest's instruction at
 * r->rip, which is neither emulated nor read as an INT n */
static bool trap(struct cpu_regs *r, uint64_t cr2, bool reflected)
{
    unsigned v = (unsigned)r->vector;
    /* a 32-bit guest's kernel is ring 1, its user mode ring 3, on the same tables */
    bool kernel = pv_dom.compat ? (r->cs & 3) != 3 : !pv_current()->user_mode;

    /* privileged instructions (the kernel's; user mode: port I/O and cli/sti under the IOPL, and
     * forced-emulation CPUID) */
    if (!reflected && ((v == 13 && !r->error_code) || v == 6) && pv_emulate(r)) {
        /* an emulated instruction is stepped like any other: the #DB after it, as Xen's
         * emulator retires it (retire.singlestep); our iretq would let the next one run first */
        if (r->rflags & RFLAGS_TF) {
            pv_debug_note_step();
            r->vector = 1;
            r->error_code = 0;
            return trap(r, 0, true);
        }
        return true;
    }
    v = (unsigned)r->vector;            /* the emulation may have found another fault (#UD) */
    if (v == 14) {
        uint64_t at = cr2;
        if (pv_ldt_fault(r, &cr2) || (kernel && cr2 == at && pv_ptwr_fault(r, cr2)))
            return true;                /* an LDT page mapped, or an emulated page-table write */
        pv_set_cr2(cr2);
        if (kernel)
            r->error_code &= ~4ul;      /* the guest kernel sees its faults as supervisor ones, as on Xen */
    }
    if (!reflected && v == 13 && (r->error_code & 3) == 2 && soft_int(r, kernel))
        return true;
    if (v == 7 && pv_current()->fpu_ts)
        pv_set_fpu_ts(false);           /* as Xen: #NM clears the virtual TS as it is delivered */
    if (v == 8 || v == 18 || !pv_current()->traps[v].address)
        pv_crash(r, "%s (error code %#lx) at %#lx with no guest handler", names[v & 31], r->error_code, r->rip);
    const struct pv_trap *t = &pv_current()->traps[v];
    if (t->cs)
        pv_current()->kernel_cs = t->cs;
    pv_bounce(r, t->address, t->flags & TI_MASK_EVENTS, has_error_code(v) ? (int64_t)r->error_code : -1);
    return true;
}

static bool guest_trap(struct cpu_regs *r, uint64_t cr2, bool reflected)
{
    /* Interrupts on while the exception is handled, as in Xen: another CPU that holds the MMU
     * lock may be waiting for this one to take its TLB-flush IPI. */
    bool irq = r->vector != 8 && r->vector != 18;
    if (irq)
        sti();
    bool handled = trap(r, cr2, reflected);
    cli();
    pv_upcall_check(r);                 /* as Xen: pending, unmasked events go first */
    return handled;
}

bool pv_trap(struct cpu_regs *r, uint64_t cr2)
{
    return guest_trap(r, cr2, false);
}

/*
 * Xen leaves a 64-bit guest's SYSCALL (a hypercall, or HYPERVISOR_iret with VGCF_in_syscall) by
 * SYSRET, which, returning with TF, traps at once: the #DB comes before the instruction at the
 * return address runs. Our iretq would let that instruction run first, so the step is raised
 * here, as the guest's #DB at that address with DR6.BS.
 */
void pv_sysret_step(struct cpu_regs *r)
{
    pv_debug_note_step();
    r->vector = 1;
    r->error_code = 0;
    guest_trap(r, 0, true);
}

/*
 * Our iretq back to the guest faulted (shim/entry.S has switched back to our GS): a selector of
 * the frame it was loading no longer loads (the guest rewrote that descriptor from another vCPU
 * after the frame was saved or checked), or it names an LDT page not mapped yet. As Xen's
 * pre-exception fixup at its own iretq, the fault is the guest's, taken where it was returning
 * to, with the registers the iretq was loading; an LDT page is mapped and the iretq retried. The
 * nested frame r lies below that iret frame on this stack, over the bottom of the struct
 * cpu_regs the iret frame ends, which is rebuilt in its place.
 */
void pv_iret_fault(struct cpu_regs *r, uint64_t cr2)
{
    struct cpu_regs g = *r;             /* trap_return had loaded the guest's registers */
    memcpy(&g.rip, (const void *)r->rsp, 5 * sizeof(uint64_t));
    struct cpu_regs *at = (struct cpu_regs *)(r->rsp - offsetof(struct cpu_regs, rip));
    *at = g;
    pv_dom.nr_iret_faults++;
    guest_trap(at, cr2, true);          /* returns only with the guest able to take it */
    pv_resume(at);
}

/* SYSCALL from guest user mode: to the kernel's syscall callback, on its stack, with the frame
 * Xen gives: [rcx, r11, rip, cs, rflags, rsp, ss] (rip = rcx, rflags = r11 from the SYSCALL). */
void pv_syscall_from_user(struct cpu_regs *r)
{
    if (!pv_current()->syscall_callback)
        pv_crash(r, "SYSCALL from guest user mode at %#lx, and no syscall callback", r->rip);
    pv_bounce(r, pv_current()->syscall_callback, pv_current()->syscall_mask_events, -1);
}
