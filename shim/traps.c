/* traps.c: exception handling: register dump, faulting address, symbolized backtrace; NMI. */
#include "compat/compat.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/vcpu/traps.h"
#include "shim/apic.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/irq.h"
#include "shim/panic.h"
#include "shim/sections.h"
#include "shim/symbols.h"
#include "shim/timer.h"
#include "shim/x86.h"

static const char *const exc_name[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
    "#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor overrun",
    "#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check", "#MC machine check",
    "#XM SIMD error", "#VE virtualization", "#CP control protection", "reserved 22", "reserved 23",
    "reserved 24", "reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
    "#VC VMM communication", "#SX security", "reserved 31",
};

void show_regs(const struct cpu_regs *r)
{
    char sym[96];

    symbol_format(sym, sizeof(sym), r->rip);
    printk(LOG_ERR, "RIP: %04lx:[<%016lx>] %s\n", r->cs, r->rip, sym);
    printk(LOG_ERR, "RFLAGS: %016lx  RSP: %04lx:%016lx\n", r->rflags, r->ss, r->rsp);
    printk(LOG_ERR, "rax: %016lx  rbx: %016lx  rcx: %016lx\n", r->rax, r->rbx, r->rcx);
    printk(LOG_ERR, "rdx: %016lx  rsi: %016lx  rdi: %016lx\n", r->rdx, r->rsi, r->rdi);
    printk(LOG_ERR, "rbp: %016lx  r8:  %016lx  r9:  %016lx\n", r->rbp, r->r8, r->r9);
    printk(LOG_ERR, "r10: %016lx  r11: %016lx  r12: %016lx\n", r->r10, r->r11, r->r12);
    printk(LOG_ERR, "r13: %016lx  r14: %016lx  r15: %016lx\n", r->r13, r->r14, r->r15);
    printk(LOG_ERR, "cr0: %016lx  cr2: %016lx  cr3: %016lx  cr4: %016lx\n",
           read_cr0(), read_cr2(), read_cr3(), read_cr4());
}

static bool on_stack(const struct cpu *c, uint64_t p, size_t len)
{
    const struct stack_range *r[NR_IST + 1] = { &c->stack, &c->ist[0], &c->ist[1], &c->ist[2], &c->ist[3] };

    for (int i = 0; i < NR_IST + 1; i++)
        if (r[i]->bottom && p >= r[i]->bottom && p + len <= r[i]->top)
            return true;
    return false;
}

void backtrace_from(uint64_t rip, uint64_t rbp)
{
    const struct cpu *c = this_cpu();
    char sym[96];

    printk(LOG_ERR, "Backtrace (CPU%u):\n", c->id);
    if (rip) {
        symbol_format(sym, sizeof(sym), rip);
        printk(LOG_ERR, "  [<%016lx>] %s\n", rip, sym);
    }
    for (int depth = 0; depth < 24; depth++) {
        if (!rbp || (rbp & 7) || !on_stack(c, rbp, 16))
            break;
        const uint64_t *frame = (const uint64_t *)rbp;
        uint64_t ret = frame[1];
        if (!ret)
            break;
        symbol_format(sym, sizeof(sym), ret);
        printk(LOG_ERR, "  [<%016lx>] %s\n", ret, sym);
        if (frame[0] <= rbp)
            break;
        rbp = frame[0];
    }
}

void backtrace_here(void)
{
    backtrace_from(0, (uint64_t)(uintptr_t)__builtin_frame_address(0));
}

/* An NMI that no panic sent comes from L0 (`xl trigger DOM nmi VCPU`): the shim answers with
 * this CPU's state, its view of a guest that seems to hang, and goes on. */
static void do_nmi(struct cpu_regs *r)
{
    const struct cpu *c = this_cpu();
    char sym[96];

    if (panic_in_progress())
        cpu_stop_here();                /* another CPU panics and asked us to stop */
    if (r->cs & 3)
        snprintf_(sym, sizeof(sym), "guest rip %#lx", r->rip);
    else
        symbol_format(sym, sizeof(sym), r->rip);
    printk(LOG_WARN, "NMI on CPU%u: state report; at %s, interrupts %s\n", c->id, sym,
           r->rflags & (1u << 9) ? "on" : "off");
    printk(LOG_WARN, "  cpu: %lu calls, %lu pings, %lu upcalls, %lu spurious; call %s\n", c->nr_calls,
           c->nr_pings, c->nr_upcalls, c->nr_spurious, c->call_fn ? "waiting" : "none");
    timer_report();
    apic_report();
    pv_vcpu_report();
}

static void fatal_exception(struct cpu_regs *r, uint64_t cr2)
{
    panic_begin();
    printk(LOG_ERR, "FATAL EXCEPTION on CPU%u: %s, error code %#lx\n", this_cpu()->id,
           exc_name[r->vector & 31], r->error_code);
    if (r->vector == 14)
        printk(LOG_ERR, "faulting address %#lx (%s %s%s%s)\n", cr2,
               r->error_code & 1 ? "protection violation" : "not present",
               r->error_code & 16 ? "instruction fetch" : r->error_code & 2 ? "write" : "read",
               r->error_code & 4 ? ", user" : "", r->error_code & 8 ? ", reserved bit" : "");
    show_regs(r);
    backtrace_from(r->rip, r->rbp);
    panic_end();
}

/* A fault in one of the few instructions allowed to fault (guest copies, MSR probes): resume at
 * its fixup. */
static bool fixup_exception(struct cpu_regs *r)
{
    if (r->vector != 14 && r->vector != 13)
        return false;
    for (const struct fixup *f = __fixup_start; f < __fixup_end; f++) {
        if (f->insn == r->rip) {
            r->rip = f->resume;
            return true;
        }
    }
    return false;
}

void do_trap(struct cpu_regs *r)
{
    /* first, before anything (a hypercall exit, a nested fault) can change it */
    uint64_t cr2 = r->vector == 14 ? read_cr2() : 0;

    if (r->vector == VEC_COMPAT_HCALL && (r->cs & 3)) {
        compat_hypercall(r);            /* its gate is DPL 1: only a 32-bit guest's kernel gets here */
        return;
    }
    if (r->vector >= 32) {
        irq_dispatch(r);
        if (r->cs & 3)
            pv_upcall_check(r);         /* back to the guest: an event the interrupt raised */
        return;
    }
    if (r->vector == 2) {
        do_nmi(r);
        return;
    }
    if ((r->cs & 3) && pv_trap(r, cr2))
        return;                         /* the guest's: emulated, bounced to it, or it was crashed */
    if (!(r->cs & 3) && r->rip == (uintptr_t)trap_return_iret && r->vector >= 11 && r->vector <= 14 &&
        (((const uint64_t *)r->rsp)[1] & 3))
        pv_iret_fault(r, cr2);          /* the guest frame it was loading (its CS, RPL 1 or 3) */
    if (!(r->cs & 3) && fixup_exception(r))
        return;
    if (r->vector == 1 && !(r->cs & 3) && pv_debug_in_shim())
        return;                         /* a guest watchpoint hit by a hypercall's copy */
    fatal_exception(r, cr2);
}
