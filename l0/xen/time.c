/* time.c: time on a Xen L0: the pvclock of each CPU's vcpu_info, L0's wallclock, and the runstate
 * area that tells how long L0 kept a CPU waiting (steal time). */
#include "l0/l0.h"
#include "l0/xen/xen.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

/* Each CPU's runstate as L0 keeps it (VCPUOP_register_runstate_memory_area, at our own virtual
 * address: the shim's mappings are in every page table we run on). L0 rewrites it at each of its
 * context switches of that vCPU. */
static struct vcpu_runstate_info l0_runstate[MAX_CPUS] __aligned(64);
static bool l0_runstate_on[MAX_CPUS];

bool xen_runstate_on(const struct cpu *c)
{
    return l0_runstate_on[c->id];
}

/* A new domain: the area is registered no more (each CPU registers it again). */
void xen_runstate_forget(struct cpu *c)
{
    l0_runstate_on[c->id] = false;
}

void xen_runstate_register(struct cpu *c)
{
    struct vcpu_register_runstate_memory_area a = { .addr.p = (uintptr_t)&l0_runstate[c->id] };
    long rc = HYPERVISOR_vcpu_op(VCPUOP_register_runstate_memory_area, c->vcpu_id, &a);

    if (rc)
        pr_warn("CPU%u: VCPUOP_register_runstate_memory_area failed (%ld): no steal time\n", c->id, rc);
    l0_runstate_on[c->id] = rc == 0;
}

/* Runnable (waiting for a pCPU) plus offline time. Read twice until both agree: L0 may be
 * rewriting the area from another pCPU. */
uint64_t xen_stolen_ns(unsigned cpu)
{
    const volatile struct vcpu_runstate_info *r = &l0_runstate[cpu];
    uint64_t a, b;

    if (cpu >= MAX_CPUS || !l0_runstate_on[cpu])
        return 0;
    do {
        a = r->time[RUNSTATE_runnable] + r->time[RUNSTATE_offline];
        b = r->time[RUNSTATE_runnable] + r->time[RUNSTATE_offline];
    } while (a != b);
    return a;
}

/* L0 rewrites its record when it reschedules or recalibrates us: a new line, a new version. */
void xen_clock_line(struct clock_line *l)
{
    const volatile struct vcpu_time_info *t = this_cpu()->l0_time;
    uint32_t v;

    if (!t) {
        *l = (struct clock_line){ 0 };  /* no clock yet: mul 0 says so */
        return;
    }
    do {
        v = t->version;
        barrier();
        l->tsc0 = t->tsc_timestamp;
        l->ns0 = t->system_time;
        l->mul = t->tsc_to_system_mul;
        l->shift = t->tsc_shift;
        barrier();
    } while ((v & 1) || v != t->version);
}

uint64_t xen_now_ns(void)
{
    struct clock_line l;

    if (!this_cpu()->l0_time)
        return 0;
    xen_clock_line(&l);
    return clock_line_ns(&l, rdtsc());      /* a record from before a restore reads as its start */
}

uint32_t xen_clock_gen(void)
{
    return READ_ONCE(((const volatile struct vcpu_time_info *)this_cpu()->l0_time)->version);
}

uint64_t xen_tsc_hz(void)
{
    const volatile struct vcpu_time_info *t = this_cpu()->l0_time;
    uint64_t hz = (1000000000ull << 32) / t->tsc_to_system_mul;

    return t->tsc_shift >= 0 ? hz >> t->tsc_shift : hz << -t->tsc_shift;
}

/* L0's wallclock is for its system time 0, which is our clock's 0 too (we run on its pvclock). */
uint64_t xen_wallclock_base(void)
{
    const volatile struct shared_info *s = xen_shared;
    uint32_t v, sec, nsec, hi;

    do {
        v = s->wc_version;
        barrier();
        sec = s->wc_sec;
        nsec = s->wc_nsec;
        hi = s->wc_sec_hi;
        barrier();
    } while ((v & 1) || v != s->wc_version);
    return (((uint64_t)hi << 32) | sec) * 1000000000ull + nsec;
}
