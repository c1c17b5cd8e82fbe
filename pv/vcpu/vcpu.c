/*
 * vcpu.c: the guest's vCPUs after the first: VCPUOP_initialise, up, down and is_up, and the kick
 * that makes another vCPU's CPU look at news for it.
 *
 * vCPU n runs on shim CPU n and never moves, so a vCPU's CPU holds much of its state in the
 * hardware itself (FS and GS bases, debug registers, CR0.TS, its GDT window). VCPUOP_initialise
 * checks the new context as Xen's arch_set_info_guest does and takes the references it needs
 * (the L4s, the GDT frames) on the calling CPU; the first VCPUOP_up asks the target CPU, which
 * idles in the shim until then, to load the rest and enter the guest.
 *
 * VCPUOP_down only sets a flag, as Xen's does (is_up reads it): the vCPU parks the next time it
 * returns to the guest (pv_vcpu_park, from the upcall check), with its registers as they were, so
 * that VCPUOP_up resumes it where it stopped: after its own VCPUOP_down, for Linux's CPU hotplug.
 * Downing the last vCPU that is up powers the domain off, Xen's rule.
 *
 * Kicks: an event for a vCPU on another CPU, or a timer change made for it there, sends VEC_KICK
 * to its CPU. The interrupt itself ends a halt (SCHEDOP_block, poll, park) and its return to the
 * guest runs the upcall check; the handler re-arms changed timers, which live on that CPU.
 */
#include "compat/compat.h"
#include "pv/domain/domain.h"
#include "pv/events/vtimer.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "pv/vcpu/traps.h"
#include "pv/vcpu/vcpu.h"
#include "shim/apic.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/irq.h"
#include "shim/smp.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"


static spinlock_t ctx_lock = SPINLOCK_INIT;
static struct vcpu_guest_context ctx_buf;      /* ~5 KiB: not for the 16 KiB stack */

static void kick_irq(struct cpu_regs *r)
{
    struct pv_vcpu *v = pv_current();

    v->kicks_taken++;
    pv_suspend_cpu_check();             /* after a restore: this CPU's L0 registrations first */
    if (__atomic_exchange_n(&v->timers_changed, false, __ATOMIC_ACQ_REL))
        pv_timers_changed(v);
}

void pv_vcpu_init_smp(void)
{
    irq_register(VEC_KICK, kick_irq);
}

unsigned pv_test_drop_kicks;

void pv_vcpu_kick(struct pv_vcpu *v)
{
    static uint64_t nr_kicks;

    struct cpu *c = v->id < MAX_CPUS ? cpus[v->id] : NULL;

    if (v == pv_current() || !v->started || !c)
        return;
    __atomic_fetch_add(&v->kicks_sent, 1, __ATOMIC_RELAXED);
    if (pv_test_drop_kicks && __atomic_add_fetch(&nr_kicks, 1, __ATOMIC_RELAXED) % pv_test_drop_kicks == 0)
        return;                         /* the test's lost wakeup: the halt's watch must find it */
    apic_send_ipi(c->apic_id, VEC_KICK);
}

/* Xen's checks on a 64-bit PV context (arch_set_info_guest): -EINVAL for any failure. */
static bool ctx_ok(const struct vcpu_guest_context *c)
{
    if ((c->debugreg[6] >> 32) || (c->debugreg[7] >> 32))
        return false;
    for (unsigned i = 0; i < 4; i++)
        if (!pv_guest_va(c->debugreg[i]))
            return false;
    if (!is_canonical(c->user_regs.rip) || !is_canonical(c->user_regs.rsp) || !is_canonical(c->kernel_sp) ||
        (c->ldt_ents && !is_canonical(c->ldt_base)) || !is_canonical(c->fs_base) ||
        !is_canonical(c->gs_base_kernel) || !is_canonical(c->gs_base_user) ||
        !is_canonical(c->event_callback_eip) || !is_canonical(c->syscall_callback_eip) ||
        !is_canonical(c->failsafe_callback_eip))
        return false;
    for (unsigned i = 0; i < 256; i++)
        if (!is_canonical(c->trap_ctxt[i].address))
            return false;
    if ((c->ldt_base & (PAGE_SIZE - 1)) || c->ldt_ents > 8192 || !pv_guest_va(c->ldt_base))
        return false;
    if ((c->gdt_ents + 511) / 512 > 14)
        return false;
    if (!pv_dom.compat && !(c->flags & VGCF_in_kernel) && !c->ctrlreg[1])
        return false;                   /* user mode with no user page tables (64-bit) */
    return true;
}

/* The references the context needs, all or none: its L4s and GDT frames. */
static int take_refs(const struct vcpu_guest_context *c, uint64_t *l4, uint64_t *ul4)
{
    int rc;

    *l4 = c->ctrlreg[3] >> PAGE_SHIFT;          /* a 32-bit guest's L3 */
    *ul4 = pv_dom.compat ? 0 : c->ctrlreg[1] >> PAGE_SHIFT;
    spin_lock(&pv_dom.mmu_lock);
    if ((rc = pv_gdt_hold(c->gdt_frames, (unsigned)c->gdt_ents)))
        goto out;
    if (!pv_mfn_is_guest(*l4) || (rc = pt_get_type(*l4, pv_dom.compat ? PGT_L3 : PGT_L4)))
        goto undo_gdt;
    if (*ul4 && (!pv_mfn_is_guest(*ul4) || (rc = pt_get_type(*ul4, PGT_L4))))
        goto undo_l4;
    spin_unlock(&pv_dom.mmu_lock);
    return 0;
undo_l4:
    pt_put_type(*l4);
undo_gdt:
    for (unsigned i = 0; i < (c->gdt_ents + 511) / 512; i++)
        pt_put_type(c->gdt_frames[i]);
out:
    spin_unlock(&pv_dom.mmu_lock);
    return ERR(-XEN_EINVAL);
}

long pv_vcpu_initialise(struct pv_vcpu *v, uint64_t ctx_va)
{
    const struct vcpu_guest_context *c = &ctx_buf;
    uint64_t l4, ul4;
    long rc = 0;

    spin_lock(&ctx_lock);
    /* the context is read first, as Xen does: an unreadable one is -EFAULT even for a vCPU
     * that runs */
    uint16_t event_cs = 0;
    if (pv_dom.compat ? compat_read_context(ctx_va, &ctx_buf, &event_cs) : copy_from_guest(&ctx_buf, ctx_va, sizeof(ctx_buf))) {
        rc = ERR(-XEN_EFAULT);
        goto out;
    }
    if (v->initialised) {
        rc = -XEN_EEXIST;
        goto out;
    }
    if (!ctx_ok(c)) {
        rc = ERR(-XEN_EINVAL);
        goto out;
    }
    if (pv_dom.compat && !v->cr3 && compat_set_l3(v, 0)) {
        rc = ERR(-XEN_ENOMEM, "no shim frame for the vCPU's L4");
        goto out;
    }
    if ((rc = take_refs(c, &l4, &ul4)))
        goto out;
    if (pv_dom.compat)
        ;                               /* no m2p slot: the compat m2p is in the L2s */
    else if (!pv_m2p_strict())
        pv_l4_ro_m2p(l4, true);         /* as MMUEXT_NEW_BASEPTR and NEW_USER_BASEPTR */
    else if (ul4)
        pv_l4_ro_m2p(ul4, false);

    for (unsigned i = 0; i < 256; i++) {
        const struct trap_info *t = &c->trap_ctxt[i];
        uint16_t cs = (t->cs & 3) ? t->cs : t->cs | (pv_dom.compat ? 1 : 3);     /* as set_trap_table */
        v->traps[i] = (struct pv_trap){ t->address, t->address ? cs : 0, t->flags };
    }
    v->event_callback = c->event_callback_eip;
    v->event_cs = event_cs;
    v->failsafe_callback = c->failsafe_callback_eip;
    v->failsafe_mask_events = c->flags & VGCF_failsafe_disables_events;
    v->syscall_callback = c->syscall_callback_eip;
    v->syscall_mask_events = c->flags & VGCF_syscall_disables_events;
    v->kernel_ss = (c->kernel_ss & 3) ? c->kernel_ss : c->kernel_ss | (pv_dom.compat ? 1 : 3);
    v->kernel_sp = c->kernel_sp;
    if (pv_dom.compat)
        compat_set_l3(v, l4);           /* its L4 exists (above): slot 0 only */
    else
        v->cr3 = l4 << PAGE_SHIFT;
    v->cr3_user_mfn = ul4;
    v->gs_base_user = c->gs_base_user;
    v->user_mode = !pv_dom.compat && !(c->flags & VGCF_in_kernel);     /* 32-bit: the ring says */
    v->iopl = (unsigned)((c->user_regs.rflags & RFLAGS_IOPL) >> 12);     /* virtualised, as Xen */
    v->fpu_ts = c->ctrlreg[0] & CR0_TS;
    v->start = (struct pv_vcpu_start){
        .regs = c->user_regs, .gdt_ents = c->gdt_ents, .ldt_base = c->ldt_base, .ldt_ents = c->ldt_ents,
        .fs_base = c->fs_base, .gs_base_kernel = c->gs_base_kernel,
    };
    memcpy(v->start.gdt_frames, c->gdt_frames, sizeof(v->start.gdt_frames));
    memcpy(v->start.dr, c->debugreg, sizeof(v->start.dr));
    __atomic_store_n(&v->initialised, true, __ATOMIC_RELEASE);
out:
    spin_unlock(&ctx_lock);
    return rc;
}

/* On the vCPU's CPU, below its first frame: load what VCPUOP_initialise left, enter the guest. */
static void vcpu_start_below(void *arg)
{
    struct pv_vcpu *v = arg;
    const struct pv_vcpu_start *s = &v->start;
    struct cpu_regs *r = pv_entry_frame();

    ASSERT(v == pv_current());
    spin_lock(&pv_dom.mmu_lock);
    pv_gdt_install(s->gdt_frames, (unsigned)s->gdt_ents);
    if (s->ldt_ents)
        pv_set_ldt(s->ldt_base, s->ldt_ents);
    spin_unlock(&pv_dom.mmu_lock);
    wrmsr(MSR_FS_BASE, s->fs_base);
    /* the active GS base sits in KERNEL_GS_BASE while the shim runs (mode.c) */
    if (v->user_mode) {
        wrmsr(MSR_KERNEL_GS_BASE, v->gs_base_user);
        v->gs_base_user = s->gs_base_kernel;
    } else {
        wrmsr(MSR_KERNEL_GS_BASE, s->gs_base_kernel);
    }
    pv_set_fpu_ts(v->fpu_ts);
    pv_debugreg_load(s->dr);

    cli();
    memset(r, 0, sizeof(*r));
    r->r15 = s->regs.r15; r->r14 = s->regs.r14; r->r13 = s->regs.r13; r->r12 = s->regs.r12;
    r->r11 = s->regs.r11; r->r10 = s->regs.r10; r->r9 = s->regs.r9; r->r8 = s->regs.r8;
    r->rbp = s->regs.rbp; r->rbx = s->regs.rbx; r->rax = s->regs.rax; r->rcx = s->regs.rcx;
    r->rdx = s->regs.rdx; r->rsi = s->regs.rsi; r->rdi = s->regs.rdi;
    r->rip = s->regs.rip;
    r->rsp = s->regs.rsp;
    if (pv_dom.compat) {
        const uint16_t seg[6] = { s->regs.cs, s->regs.ss, s->regs.ds, s->regs.es, s->regs.fs, s->regs.gs };
        compat_start_regs(r, seg, s->regs.rflags);
    } else {
        uint16_t cs = (uint16_t)(s->regs.cs | 3), ss = (uint16_t)(s->regs.ss | 3);
        r->cs = pv_selector_ok(cs, true) ? cs : SEL_RING3_CS64;
        r->ss = pv_selector_ok(ss, false) ? ss : SEL_RING3_DS;
        /* the guest's IF is its upcall mask; the real one stays on, IOPL is virtual (above) */
        r->rflags = (s->regs.rflags & PV_RFLAGS_GUEST) | RFLAGS_IF | 2;
    }

    pv_runstate_set(v, RUNSTATE_running);
    pv_timers_changed(v);
    pv_time_update();
    pr_info("vCPU%u: entering at %#lx (rsp %#lx)\n", v->id, r->rip, r->rsp);
    pv_vcpu_enter(v, r);
}

/* From the CPU's idle loop (smp_call), which it never goes back to. */
static void vcpu_start(void *arg)
{
    __atomic_store_n(&this_cpu()->call_fn, NULL, __ATOMIC_RELEASE);
    call_on_stack((uintptr_t)pv_entry_frame(), vcpu_start_below, arg);
}

long pv_vcpu_up(struct pv_vcpu *v)
{
    if (!__atomic_load_n(&v->initialised, __ATOMIC_ACQUIRE))
        return ERR(-XEN_EINVAL);
    if (__atomic_exchange_n(&v->started, true, __ATOMIC_ACQ_REL)) {
        if (__atomic_exchange_n(&v->down, false, __ATOMIC_ACQ_REL))
            pv_vcpu_kick(v);            /* parked: its halt ends, it goes on */
        return 0;
    }
    v->down = false;
    int rc = smp_call(cpus[v->id], vcpu_start, v);
    if (rc) {
        v->started = false;
        pr_err("vCPU%u: its CPU cannot take it (%d)\n", v->id, rc);
        return rc;
    }
    return 0;
}

bool pv_vcpu_is_up(const struct pv_vcpu *v)
{
    return v->started && !v->down;
}

long pv_vcpu_down(struct pv_vcpu *v)
{
    unsigned others = 0;

    for (unsigned i = 0; i < pv_dom.nr_vcpus; i++)
        if (i != v->id && pv_vcpu_is_up(&pv_dom.vcpu[i]))
            others++;
    if (!others)
        pv_shutdown(SHUTDOWN_poweroff);     /* the last vCPU going down: Xen powers the domain off */
    if (!__atomic_exchange_n(&v->down, true, __ATOMIC_ACQ_REL))
        pv_vcpu_kick(v);
    return 0;
}

/* Interrupts are off; r is the frame back to the guest. */
void pv_vcpu_park(struct pv_vcpu *v)
{
    pv_suspend_hold(v);                 /* a suspend on another vCPU: not into the guest now */
    if (!READ_ONCE(v->down))
        return;
    uint64_t kicked = v->kicks_taken;

    pv_runstate_set(v, RUNSTATE_offline);
    while (READ_ONCE(v->down)) {
        if (!v->halt_watch.queued)      /* VCPUOP_up's kick may go missing: see halt_until */
            timer_set(&v->halt_watch, now_ns() + HALT_WATCH_NS);
        sti_hlt();
        cli();
    }
    if (!v->halt_watch.queued && v->kicks_taken == kicked) {
        v->halts_rescued++;             /* up, but its kick never came: the watch found it */
        __atomic_fetch_add(&pv_dom.halts_rescued, 1, __ATOMIC_RELAXED);
    }
    timer_cancel(&v->halt_watch);
    pv_runstate_set(v, RUNSTATE_running);
    pv_time_update();
}
