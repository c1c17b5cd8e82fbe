/*
 * selftest.c: the built-in self-test. Every CPU checks that its timer interrupt fires, that an IPI
 * from another CPU arrives, that a 1 s timer takes 1 s (+-10%) of L0 time (standalone: of the
 * PIT-calibrated TSC), and, where L0 forwards events, that an event channel reaches it. The run
 * ends with one `RESULT PASS|FAIL` line and a poweroff. `selftest=fault` faults on purpose instead.
 */
#include "l0/evtchn.h"
#include "l0/l0.h"
#include "shim/apic.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/panic.h"
#include "shim/selftest.h"
#include "shim/smp.h"
#include "shim/time.h"
#include "shim/timer.h"
#include "shim/x86.h"
#include "xen-abi.h"

#define MS 1000000ull

struct st_result {
    bool timer_ok, ipi_ok, t1s_ok;
    int evtchn;                         /* 1 ok, 0 failed, -1 not applicable */
    uint64_t timer_late_ns, t1s_ns, t1s_tsc;
    volatile bool done;
};

static struct st_result res[MAX_CPUS];

static void stamp(struct timer *t, void *arg)
{
    *(volatile uint64_t *)arg = now_ns();
}

/* Sleep until *flag is set or `guard` (a timer already armed) fires. */
static void sleep_until(volatile uint64_t *flag, volatile uint64_t *guard)
{
    for (;;) {
        cli();
        if (*flag || *guard)
            break;
        sti_hlt();                      /* sti's shadow: no wake-up is lost between check and hlt */
    }
    sti();
}

static void evtchn_hit(uint32_t port, void *arg)
{
    *(volatile uint64_t *)arg = now_ns();
}

static int check_evtchn(struct cpu *c, volatile uint64_t *guard)
{
    volatile uint64_t hit = 0;
    uint32_t port;

    if (!l0->evtchn_bind_ipi)
        return -1;
    if (l0->evtchn_bind_ipi(c->vcpu_id, &port))
        return 0;
    bool ok = !evtchn_register(port, evtchn_hit, (void *)&hit) && !l0->evtchn_unmask(port) &&
              !l0->evtchn_send(port);
    if (ok)
        sleep_until(&hit, guard);
    evtchn_unregister(port);
    l0->evtchn_close(port);
    return ok && hit;
}

static void selftest_cpu(void *arg)
{
    struct cpu *c = this_cpu();
    struct st_result *r = &res[c->id];
    volatile uint64_t fired = 0, guard_fired = 0;
    struct timer t, guard;

    timer_init(&t, stamp, (void *)&fired);
    timer_init(&guard, stamp, (void *)&guard_fired);

    /* 1. a 10 ms timer; poll, in case timer interrupts never come */
    uint64_t t0 = now_ns();
    timer_set(&t, t0 + 10 * MS);
    while (!fired && now_ns() - t0 < 2000 * MS)
        cpu_relax();
    r->timer_ok = fired && fired >= t0 + 10 * MS;
    r->timer_late_ns = fired ? fired - (t0 + 10 * MS) : 0;
    timer_cancel(&t);

    if (r->timer_ok) {
        /* 2. a 1 s timer, sleeping in hlt (a 3 s guard timer wakes us if it is lost) */
        fired = 0;
        t0 = now_ns();
        uint64_t tsc0 = rdtsc();
        timer_set(&guard, t0 + 3000 * MS);
        timer_set(&t, t0 + 1000 * MS);
        sleep_until(&fired, &guard_fired);
        uint64_t tsc1 = rdtsc();
        if (fired) {
            r->t1s_ns = fired - t0;
            r->t1s_tsc = tsc1 - tsc0;
            r->t1s_ok = r->t1s_ns >= 900 * MS && r->t1s_ns <= 1100 * MS;
        }
        timer_cancel(&t);
        timer_cancel(&guard);
    }

    /* 3. an IPI from another CPU: ping the next one, wait for ours */
    unsigned next = (c->id + 1) % nr_cpus_online;
    apic_send_ipi(cpus[next]->apic_id, VEC_PING);
    guard_fired = 0;
    t0 = now_ns();
    if (r->timer_ok) {
        timer_set(&guard, t0 + 3000 * MS);
        sleep_until(&c->nr_pings, &guard_fired);
        timer_cancel(&guard);
    } else {
        while (!c->nr_pings && now_ns() - t0 < 3000 * MS)
            cpu_relax();
    }
    r->ipi_ok = c->nr_pings > 0;

    /* 4. an L0 event channel to ourselves */
    guard_fired = 0;
    if (r->timer_ok)
        timer_set(&guard, now_ns() + 3000 * MS);
    r->evtchn = r->timer_ok ? check_evtchn(c, &guard_fired) : (l0->evtchn_bind_ipi ? 0 : -1);
    timer_cancel(&guard);

    __atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
}

static bool check(bool ok, const char *name, unsigned cpu, const char *detail)
{
    report("CHECK %s-cpu%u %s%s%s\n", name, cpu, ok ? "ok" : "FAIL", *detail ? " " : "", detail);
    return ok;
}

/* Deep enough to show a backtrace of several frames. */
static void __attribute__((noinline)) fault_leaf(volatile uint64_t *p)
{
    *p = 0xdead;
    barrier();
}

static void __attribute__((noinline)) fault_middle(uintptr_t where)
{
    fault_leaf((volatile uint64_t *)where);
    barrier();
}

void selftest_run(enum selftest_mode mode)
{
    bool pass = true;
    char d[96];

    if (mode == SELFTEST_FAULT) {
        pr_info("selftest=fault: writing through a NULL-page pointer on purpose\n");
        volatile uintptr_t where = 0x18;
        fault_middle(where);
        panic("selftest=fault: the fault did not happen");
    }

    unsigned n = nr_cpus_online;
    pr_info("selftest: %u CPU%s, timers, IPIs%s\n", n, n == 1 ? "" : "s",
            l0->evtchn_bind_ipi ? ", L0 event channels" : "");
    for (unsigned i = 1; i < n; i++)
        smp_call(cpus[i], selftest_cpu, NULL);
    selftest_cpu(NULL);
    uint64_t end = now_ns() + 20000 * MS;
    for (unsigned i = 0; i < n; i++)
        while (!__atomic_load_n(&res[i].done, __ATOMIC_ACQUIRE) && now_ns() < end)
            cpu_relax();

    snprintf_(d, sizeof(d), "(%u online of %u present)", nr_cpus_online, nr_cpus_present);
    report("CHECK cpus-online %s %s\n", nr_cpus_online == nr_cpus_present ? "ok" : "FAIL", d);
    pass &= nr_cpus_online == nr_cpus_present;
    for (unsigned i = 0; i < n; i++) {
        struct st_result *r = &res[i];
        if (!r->done) {
            report("CHECK done-cpu%u FAIL (no answer in 20 s)\n", i);
            pass = false;
            continue;
        }
        snprintf_(d, sizeof(d), "(10 ms timer, %lu us late)", r->timer_late_ns / 1000);
        pass &= check(r->timer_ok, "timer", i, r->timer_ok ? d : "");
        snprintf_(d, sizeof(d), "(%lu.%06lu s)", r->t1s_ns / 1000000000, r->t1s_ns % 1000000000 / 1000);
        pass &= check(r->t1s_ok, "timer1s", i, r->t1s_ns ? d : "(did not fire)");
        pass &= check(r->ipi_ok, "ipi", i, "");
        if (r->evtchn >= 0)
            pass &= check(r->evtchn == 1, "evtchn", i, "");
    }
    if (res[0].t1s_ns) {
        uint64_t khz = res[0].t1s_tsc * 1000000 / res[0].t1s_ns;
        pr_info("TSC measured over the 1 s timer on CPU0: %lu.%03lu MHz (%s says %lu.%03lu MHz)\n",
                khz / 1000, khz % 1000, l0->name, tsc_hz / 1000000, tsc_hz / 1000 % 1000);
    }
    report("RESULT %s\n", pass ? "PASS" : "FAIL");
    shim_shutdown(SHUTDOWN_poweroff);
}
