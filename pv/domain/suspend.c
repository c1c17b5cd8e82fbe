/*
 * suspend.c: SCHEDOP_shutdown(SHUTDOWN_suspend), the guest's side of `xl save`, `xl migrate` and
 * `xl save -c`. L0 saves the shim's domain, guest and all; the guest's memory, page types,
 * pinned tables and vCPU registers travel inside it untouched. What does not travel is what L0
 * itself holds for us, so the suspend goes:
 *  1. every other vCPU stops in the shim (held on its way back to the guest, or already halted
 *     there): nothing runs guest code or talks to L0 while L0 saves us;
 *  2. the xenstore ring's frame goes back to the gfn L0 gave it (we moved it to our own frame;
 *     the toolstack saves, clears and reintroduces it at L0's gfn), and our logs are flushed;
 *  3. SHUTDOWN_suspend at L0. It answers 1 when the suspend was cancelled (`xl save -c`, a failed
 *     save): nothing changed, the ring returns to our frame and the guest gets 1 and resumes in
 *     place, as Xen's cancelled suspend. It answers 0 in a new domain (restored, migrated): L0
 *     has none of our registrations and no event channel of ours, so
 *  4. the L0 side is rebuilt: shared_info, each CPU's vcpu_info, upcall vector and runstate area
 *     (each CPU its own: l0->resume and l0->cpu_resume), the console ring's new port, the
 *     store ring moved to our frame again with its new port, the grant frames put back at the
 *     frames the guest knows;
 *  5. and the guest finds what Xen gives a PV guest restored in a new domain: no event channels
 *     but the store and console ones (new numbers, in start_info with the rings' frames, as the
 *     toolstack rewrites it), vcpu_info back in shared_info (Linux registers it again), no
 *     runstate or time areas, no timers. The guest rebinds the rest (Linux's xen_irq_resume).
 * The stock shim does the same (Xen's pv/shim.c), but BUG()s when the rings' gfns moved; ours
 * takes them from L0 each time.
 */
#include "compat/layout.h"
#include "l0/l0.h"
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/events/vtimer.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/pagetype.h"
#include "pv/vcpu/vcpu.h"
#include "shim/console.h"
#include "shim/cpuid_cache.h"
#include "shim/debug.h"
#include "shim/smp.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define QUIET_WAIT_NS (2000ull * 1000 * 1000)   /* for the others to stop */
#define RESUME_WAIT_NS (2000ull * 1000 * 1000)  /* for each CPU's own L0 registrations */

/* Every other started vCPU is where it cannot run guest code: held, halted in block or poll,
 * or down. */
static bool others_quiet(const struct pv_vcpu *me)
{
    for (unsigned i = 0; i < pv_dom.nr_vcpus; i++) {
        const struct pv_vcpu *v = &pv_dom.vcpu[i];
        if (v != me && v->started && !READ_ONCE(v->held) && !READ_ONCE(v->blocked) && !READ_ONCE(v->down))
            return false;
    }
    return true;
}

static void kick_others(const struct pv_vcpu *me)
{
    for (unsigned i = 0; i < pv_dom.nr_vcpus; i++)
        if (&pv_dom.vcpu[i] != me)
            pv_vcpu_kick(&pv_dom.vcpu[i]);
}

/* On its way back to the guest (interrupts off): stay while a suspend is on. */
void pv_suspend_hold(struct pv_vcpu *v)
{
    if (!READ_ONCE(pv_dom.suspending))
        return;
    WRITE_ONCE(v->held, true);
    while (READ_ONCE(pv_dom.suspending)) {
        sti();
        cpu_relax();
        cli();
    }
    WRITE_ONCE(v->held, false);
    pv_suspend_cpu_check();
}

/* This CPU, in a new domain it has not registered with yet: its own L0 registrations, and its
 * vCPU's timers as a restored Xen vCPU has them (none; the default period, unbound). Interrupts
 * off; from the kick, a hold or an idle CPU's call. */
void pv_suspend_cpu_check(void)
{
    struct pv_vcpu *v = pv_current();
    uint32_t gen = READ_ONCE(pv_dom.l0_gen);

    if (v->l0_gen == gen)
        return;
    v->l0_gen = gen;
    int rc = l0->cpu_resume ? l0->cpu_resume(this_cpu()) : 0;
    if (rc)
        pr_err("CPU%u: its L0 registrations failed after the restore (%d): its events may not come\n",
               this_cpu()->id, rc);
    timer_cancel(&v->singleshot);
    v->period_ns = PV_DEFAULT_PERIOD_NS;
    pv_timers_changed(v);               /* the VIRQ is unbound now: stops the periodic timer */
    if (v->started)
        pv_time_update();               /* the new domain's clock line, before the guest reads it */
}

static void cpu_check_call(void *arg)
{
    (void)arg;
    uint64_t f = irq_save();
    pv_suspend_cpu_check();
    irq_restore(f);
}

/* The guest's side of a new domain (step 5), with the others held. */
static void reset_guest(start_info_t *si)
{
    for (unsigned i = 0; i < pv_dom.nr_vcpus; i++) {
        struct pv_vcpu *v = &pv_dom.vcpu[i];
        if (v->vi_mfn) {
            struct vcpu_info *slot = &pv_dom.shared->vcpu_info[i];
            memcpy(slot, v->vi, sizeof(*slot));
            v->vi = slot;
            spin_lock(&pv_dom.mmu_lock);
            pt_put_type(v->vi_mfn);
            spin_unlock(&pv_dom.mmu_lock);
            v->vi_mfn = 0;
        }
        v->runstate_area = 0;
        v->time_area = 0;
    }
    /* as the toolstack leaves a restored PV guest's shared_info: every port masked, none
     * pending. The guest unmasks what it binds again; one it keeps masked (Linux's spinlock
     * kicker, which it only polls) must not inherit an old port's clear mask: 2 vCPUs of Linux
     * hit BUG() in its dummy handler at the first kick after a restore. */
    pv_fifo_stop();                     /* a new domain starts on the 2-level ABI (Linux sets FIFO up again) */
    ev_2l_reset(pv_dom.shared, pv_dom.nr_vcpus);
    pv_evtchn_init();                   /* the console and store ports, with L0's new numbers */
    pv_grant_resume();
    pv_watchdog_reset();                /* a new domain has no watchdogs (Linux's xen_wdt makes its own again) */
    /* as the toolstack rewrites a restored PV guest's start_info: frames, not pfns, again (in a
     * 32-bit guest's layout for it) */
    if (pv_dom.compat) {
        struct start_info_x86_32 *c = (struct start_info_x86_32 *)si;
        c->store_mfn = (uint32_t)pv_dom.store_mfn;
        c->store_evtchn = pv_dom.store_port;
        c->console.domU.mfn = (uint32_t)pv_dom.cons_mfn;
        c->console.domU.evtchn = pv_dom.console_port;
        return;
    }
    si->store_mfn = pv_dom.store_mfn;
    si->store_evtchn = pv_dom.store_port;
    si->console.domU.mfn = pv_dom.cons_mfn;
    si->console.domU.evtchn = pv_dom.console_port;
}

static void release(struct pv_vcpu *me)
{
    __atomic_store_n(&pv_dom.suspending, false, __ATOMIC_SEQ_CST);
    kick_others(me);
}

/* 0: resumed in a new domain; 1: cancelled, resumed in place; or an error, nothing done. */
long pv_suspend(struct pv_vcpu *me, uint64_t srec)
{
    if (!l0->suspend)
        return ERR(-XEN_EINVAL);        /* standalone: nobody could save us */
    if (!pv_mfn_is_guest(srec))
        return ERR(-XEN_EINVAL);        /* its start_info frame, which a resume rewrites */
    start_info_t *si = (start_info_t *)pt_frame(srec);

    if (__atomic_exchange_n(&pv_dom.suspending, true, __ATOMIC_SEQ_CST))
        return ERR(-XEN_EBUSY);         /* another vCPU's suspend is on */
    kick_others(me);
    uint64_t end = now_ns() + QUIET_WAIT_NS;
    while (!others_quiet(me)) {
        if (now_ns() > end) {
            release(me);
            pr_warn("suspend: another vCPU did not stop within 2 s: refused (-EBUSY)\n");
            return ERR(-XEN_EBUSY);
        }
        cpu_yield();                    /* on one pCPU the others reach their hold sooner */
    }
    int rc = pv_dom.store_l0_port && l0->store_ring_home ? l0->store_ring_home(pv_dom.store_mfn) : 0;
    if (rc) {
        release(me);
        pr_warn("suspend: the xenstore ring cannot go back to L0's gfn (%d): refused\n", rc);
        return rc;
    }
    pr_info("suspend: the guest asks to be saved; %u vCPU(s) stopped\n", pv_dom.nr_vcpus);
    pv_console_flush();
    console_flush();
    pv_dom.nr_suspends++;

    uint64_t f = irq_save();
    uint64_t t0 = now_ns();
    long l0rc = l0->suspend();
    uint64_t pfn;
    uint32_t port;
    if (l0rc == 0) {
        __atomic_add_fetch(&pv_dom.l0_gen, 1, __ATOMIC_SEQ_CST);
        me->l0_gen = pv_dom.l0_gen;
        cpuid_cache_forget();           /* the new domain may be on another host */
        rc = l0->resume();
        if (rc) {
            irq_restore(f);
            pr_err("suspend: the new domain's L0 state cannot be set up (%d): the guest is crashed\n", rc);
            pv_shutdown(SHUTDOWN_crash);
        }
        if (pv_dom.store_l0_port && (rc = l0->store_ring(pv_dom.store_mfn, &pfn, &port)) == 0)
            pv_dom.store_l0_port = port;
        else if (pv_dom.store_l0_port)
            pr_err("suspend: no xenstore ring in the new domain (%d)\n", rc);
        timer_cancel(&me->singleshot);
        me->period_ns = PV_DEFAULT_PERIOD_NS;
        reset_guest(si);
        pv_timers_changed(me);
        pv_time_update();               /* the version L0 numbers its new record with may be the old one */
    } else if (pv_dom.store_l0_port && l0->store_ring(pv_dom.store_mfn, &pfn, &port)) {
        pr_err("suspend: the xenstore ring did not come back to our frame\n");
    }
    irq_restore(f);
    release(me);
    if (l0rc == 0) {
        /* the CPUs whose vCPU never started idle in the shim: a call, not a kick */
        for (unsigned i = 0; i < nr_cpus_present && i < MAX_CPUS; i++)
            if (cpus[i] && cpus[i] != this_cpu() && !(i < pv_dom.nr_vcpus && pv_dom.vcpu[i].started) &&
                smp_call(cpus[i], cpu_check_call, NULL) == 0)
                smp_call_wait(cpus[i], RESUME_WAIT_NS);
        pv_dom.nr_restores++;
    }
    pr_info("suspend: %s after %lu ms (L0: %ld)\n", l0rc == 0 ? "resumed in a new domain" :
            l0rc == 1 ? "cancelled, resumed in place" : "refused by L0", (now_ns() - t0) / 1000000, l0rc);
    return l0rc == 0 ? 0 : l0rc == 1 ? 1 : l0rc;
}
