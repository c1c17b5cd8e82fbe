/* run.c: entering the guest (ring 3, its page tables), SYSCALL as the hypercall gate, its pvclock. */
#include "compat/compat.h"
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/hypercall/hypercall.h"
#include "pv/loader/loader.h"
#include "pv/mm/guest.h"
#include "pv/mm/pagetype.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/xpti.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/time.h"
#include "shim/x86.h"

#define MSR_STAR   0xc0000081
#define MSR_LSTAR  0xc0000082
#define MSR_CSTAR  0xc0000083
#define MSR_SFMASK 0xc0000084
#define SFMASK_BITS 0x47700ul            /* IF, TF, DF, NT, AC clear on SYSCALL */


void pv_syscall(struct cpu_regs *r)
{
    sti();
    /* from guest kernel mode a SYSCALL is a hypercall; from user mode, the kernel's system call
     * (a 32-bit guest's hypercalls are int $0x82: its SYSCALLs are all system calls) */
    bool hypercall = false;
    if (pv_dom.compat)
        compat_syscall(r);
    else if (pv_current()->user_mode)
        pv_syscall_from_user(r);
    else {
        hypercall = true;
        pv_current()->iret_path = false;
        r->rax = (uint64_t)pv_hypercall(r);
    }
    cli();
    pv_upcall_check(r);                 /* an event's bounce clears TF */
    /* Xen leaves a hypercall by SYSRET, unless it was an iret that asked otherwise */
    if (hypercall && (r->rflags & RFLAGS_TF) && !pv_current()->iret_path)
        pv_sysret_step(r);
}

/* This vCPU's pvclock: its CPU's clock line (l0->clock_line), so the guest's clock is the one the
 * shim keeps its timers by, in its vcpu_info and in the copy it registered
 * (VCPUOP_register_vcpu_time_memory_area). A new line can start a little behind where the old
 * one had got to (L0's records of one vCPU are not continuous, and under TCG they are a few per
 * cent apart in rate): then the new one starts where the guest's clock is, for a guest's time
 * must not go back (a poll's or a sleep's length would come out negative). */
void pv_time_update(void)
{
    struct pv_vcpu *v = pv_current();
    struct vcpu_time_info *t = &v->vi->time;
    struct clock_line l;

    if (l0->clock_gen)
        v->clock_gen = l0->clock_gen();     /* before the read: a change after it is seen next time */
    l0->clock_line(&l);
    const struct clock_line was = { t->tsc_timestamp, t->system_time, t->tsc_to_system_mul, t->tsc_shift };
    if (!was.mul) {
        v->clock_ahead = 0;                 /* the first record: nothing to keep up with */
    } else if (was.tsc0 == l.tsc0 && was.mul == l.mul && was.shift == l.shift &&
               was.ns0 == l.ns0 + v->clock_ahead && !v->time_area) {
        return;                             /* the guest has this line already: no rdtsc (an L0 exit) */
    } else {
        uint64_t tsc = rdtsc();
        int64_t ahead = (int64_t)(clock_line_ns(&was, tsc) - clock_line_ns(&l, tsc));
        if (ahead < 0)
            ahead = 0;
        if ((uint64_t)ahead > v->clock_ahead + 1000) {  /* a new step back held off, not a rounding */
            pv_dom.clock_held_back++;
            if ((uint64_t)ahead > pv_dom.clock_ahead_max)
                pv_dom.clock_ahead_max = (uint64_t)ahead;
        }
        v->clock_ahead = (uint64_t)ahead;
    }
    l.ns0 += v->clock_ahead;
    __atomic_store_n(&t->version, t->version + 1, __ATOMIC_SEQ_CST);
    t->tsc_timestamp = l.tsc0;
    t->system_time = l.ns0;
    t->tsc_to_system_mul = l.mul;
    t->tsc_shift = (int8_t)l.shift;
    __atomic_store_n(&t->version, t->version + 1, __ATOMIC_SEQ_CST);
    if (v->time_area) {
        /* as Xen: odd version first, so a reader never takes a half-written copy */
        struct vcpu_time_info c = *t;
        c.version = t->version - 1;
        if (copy_to_guest(v->time_area, &c, sizeof(c)) == 0) {
            barrier();
            copy_to_guest(v->time_area, &t->version, sizeof(t->version));
        }
    }
}

/* On v's own CPU: the entry points and stack for ring 3, then into the guest at r. */
void pv_vcpu_enter(struct pv_vcpu *v, struct cpu_regs *r)
{
    struct cpu *c = this_cpu();

    ASSERT(v == pv_current());
    /* entries from ring 3 (interrupts, exceptions, SYSCALL) start at the top of this stack */
    c->entry_sp = c->stack.top;
    c->tss.rsp[0] = c->stack.top;
    wrmsr(MSR_STAR, ((uint64_t)SEL_RING3_CS32 << 48) | ((uint64_t)SEL_CS64 << 32));
    wrmsr(MSR_LSTAR, (uintptr_t)pv_syscall_entry);
    wrmsr(MSR_CSTAR, (uintptr_t)pv_syscall_entry_compat);
    wrmsr(MSR_SFMASK, SFMASK_BITS);
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
    cli();
    flush_load_cr3(v->user_mode ? v->cr3_user_mfn << PAGE_SHIFT : v->cr3);
    if (v->user_mode)
        xpti_to_user(c, pt_frame(v->cr3_user_mfn), v->cr3_user_mfn);
    else
        xpti_to_kernel(c);
    /* under xpti the return to ring 3 runs on the copy, which maps only this CPU's stack */
    ASSERT(!c->xpti_l4 || ((uintptr_t)r >= c->stack.bottom && (uintptr_t)r < c->stack.top));
    pv_resume(r);
}

/* The frame the first entry of a vCPU returns through: the top of its CPU's stack. */
struct cpu_regs *pv_entry_frame(void)
{
    return (struct cpu_regs *)(this_cpu()->stack.top - sizeof(struct cpu_regs));
}

static void enter_first(void *unused)
{
    struct cpu_regs *r = pv_entry_frame();

    cli();
    memset(r, 0, sizeof(*r));
    if (pv_dom.compat) {
        compat_enter_regs(r, pv_entry_rip(), pv_entry_rsp(), pv_entry_rsi());
    } else {
        r->rip = pv_entry_rip();
        r->rsi = pv_entry_rsi();
        r->rsp = pv_entry_rsp();
        r->cs = SEL_RING3_CS64;
        r->ss = SEL_RING3_DS;
        r->rflags = RFLAGS_IF | 2;
    }
    pr_info("guest: entering at %#lx (rsp %#lx, start_info %#lx)\n", r->rip, r->rsp, r->rsi);
    pv_vcpu_enter(pv_current(), r);
}

/* vCPU 0, from the builder. The frame sits at the stack's top, where our callers' frames are:
 * what runs from here on runs below it. */
void pv_enter(void)
{
    call_on_stack((uintptr_t)pv_entry_frame(), enter_first, NULL);
}
