/*
 * iret.c: __HYPERVISOR_iret, the guest kernel's return from an exception or event frame. The
 * hypercall page's iret stub pushes rcx, r11 and rax on top of the guest's frame, so the stack
 * holds Xen's struct iret_context: rax r11 rcx flags rip cs rflags rsp ss. The return goes through
 * our own iretq, so everything it loads is checked first: a selector or address iretq would fault
 * on crashes the guest with a reason instead of faulting the shim.
 *
 * A frame with CS.RPL = 3 returns to guest user mode (bounce frames from kernel mode carry RPL 0,
 * as Xen's do), which needs user page tables (NEW_USER_BASEPTR): without, the guest is crashed,
 * as Xen does.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/vcpu/traps.h"
#include "shim/config.h"
#include "shim/x86.h"


void pv_iret(struct cpu_regs *r)
{
    struct iret_context f;

    if (copy_from_guest(&f, r->rsp, sizeof(f)))
        pv_crash(r, "iret: its frame at %#lx cannot be read", r->rsp);
    if (!is_canonical(f.rip))
        pv_crash(r, "iret to a non-canonical address %#lx", f.rip);
    uint16_t cs = (uint16_t)f.cs;       /* bits 32-39 of a bounce frame's cs: the saved upcall mask */
    if ((cs & 3) == 3 && !pv_to_user_mode())
        pv_crash(r, "iret to guest user mode (cs %#x) with no user page tables", cs);
    uint16_t ss = (uint16_t)f.ss | 3;
    if (!pv_selector_ok(cs | 3, true) || !pv_selector_ok(ss, false))
        pv_crash(r, "iret with selectors cs %#x ss %#x, which the guest cannot load", cs, ss);
    r->rip = f.rip;
    r->cs = cs | 3;
    r->rflags = (f.rflags & PV_RFLAGS_GUEST) | RFLAGS_IF | 2;
    r->rsp = f.rsp;
    r->ss = ss;
    if (!(f.flags & VGCF_in_syscall)) {
        r->r11 = f.r11;
        r->rcx = f.rcx;
        pv_current()->iret_path = true;  /* Xen's IRET path: TF steps after the next instruction */
    } else {
        r->rcx = r->rip;                /* Xen returns by SYSRET, which takes rip from rcx and */
        r->r11 = r->rflags;             /* rflags from r11: the guest finds them there */
    }
    r->rax = f.rax;
    if (pv_dom.vm_assist & (1ull << VMASST_TYPE_architectural_iopl))
        pv_current()->iopl = (unsigned)(f.rflags >> 12) & 3;   /* as Xen: iret sets the virtual IOPL */
    /* events back on with IF: pv_syscall's return then delivers what is pending at once */
    pv_current()->vi->evtchn_upcall_mask = !(f.rflags & RFLAGS_IF);
    pv_current()->nmi_masked = false;   /* any iret ends an NMI handler's masking, as Xen's */
}

/* The table's entry: the frame is the one the hypercall came in on (a multicall's own, for an
 * entry of one); what it returns is the rax the frame now holds. */
long hc_iret(struct cpu_regs *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    pv_iret(regs);
    return (long)regs->rax;
}
