/*
 * context.c: a 32-bit guest's vcpu_guest_context (VCPUOP_initialise), read in its i386 layout and
 * widened into the 64-bit one that pv/vcpu/vcpu.c checks and loads. Its CR3 is in the compat
 * encoding (xen_cr3_to_pfn of the 32-bit ABI); its callbacks are cs:eip pairs (the event
 * callback's selector comes back apart: the 64-bit context has no place for it).
 */
#include "compat/compat.h"
#include "compat/layout.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

int compat_read_context(uint64_t va, struct vcpu_guest_context *n, uint16_t *event_cs)
{
    static struct vcpu_guest_context_x86_32 c;     /* under the caller's context lock */

    if (copy_from_guest(&c, va, sizeof(c)))
        return ERR(-XEN_EFAULT, "the context cannot be read");
    memset(n, 0, sizeof(*n));
    memcpy(&n->fpu_ctxt, &c.fpu_ctxt, sizeof(c.fpu_ctxt));
    n->flags = c.flags;
    const struct cpu_user_regs_x86_32 *u = &c.user_regs;
    n->user_regs.rbx = u->ebx;
    n->user_regs.rcx = u->ecx;
    n->user_regs.rdx = u->edx;
    n->user_regs.rsi = u->esi;
    n->user_regs.rdi = u->edi;
    n->user_regs.rbp = u->ebp;
    n->user_regs.rax = u->eax;
    n->user_regs.rip = u->eip;
    n->user_regs.cs = u->cs;
    n->user_regs.rflags = u->eflags;
    n->user_regs.rsp = u->esp;
    n->user_regs.ss = u->ss;
    n->user_regs.es = u->es;
    n->user_regs.ds = u->ds;
    n->user_regs.fs = u->fs;
    n->user_regs.gs = u->gs;
    for (unsigned i = 0; i < 256; i++) {
        n->trap_ctxt[i].vector = c.trap_ctxt[i].vector;
        n->trap_ctxt[i].flags = c.trap_ctxt[i].flags;
        n->trap_ctxt[i].cs = c.trap_ctxt[i].cs;
        n->trap_ctxt[i].address = c.trap_ctxt[i].address;
    }
    n->ldt_base = c.ldt_base;
    n->ldt_ents = c.ldt_ents;
    for (unsigned i = 0; i < 16; i++)
        n->gdt_frames[i] = c.gdt_frames[i];
    n->gdt_ents = c.gdt_ents;
    n->kernel_ss = c.kernel_ss;
    n->kernel_sp = c.kernel_sp;
    for (unsigned i = 0; i < 8; i++) {
        n->ctrlreg[i] = c.ctrlreg[i];
        n->debugreg[i] = c.debugreg[i];
    }
    n->ctrlreg[3] = (uint64_t)xen_cr3_to_pfn_x86_32(c.ctrlreg[3]) << 12;
    n->event_callback_eip = c.event_callback_eip;
    *event_cs = (uint16_t)((c.event_callback_cs & 3) ? c.event_callback_cs : c.event_callback_cs | 1);
    n->syscall_callback_eip = 0;        /* (no 64-bit SYSCALL callback in a 32-bit context) */
    n->failsafe_callback_eip = c.failsafe_callback_eip;
    n->vm_assist = c.vm_assist;
    return 0;
}
