/* smp.c: AP start-up by INIT-SIPI-SIPI through the low trampoline; per-CPU idle loop and work calls. */
#include "l0/l0.h"
#include "shim/apic.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/irq.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/panic.h"
#include "shim/sections.h"
#include "shim/smp.h"
#include "shim/spinlock.h"
#include "shim/time.h"
#include "shim/timer.h"
#include "shim/x86.h"
#include "shim/xpti.h"
#include "shim/xerrno.h"

unsigned nr_cpus_present = 1;

#define TRAMP_FIELD(sym) ((void *)((char *)phys_to_virt(trampoline_pa) + ((char *)&(sym) - trampoline_start)))

static void call_irq(struct cpu_regs *r)
{
    this_cpu()->nr_calls++;             /* the idle loop picks the work up */
}

static void ping_irq(struct cpu_regs *r)
{
    this_cpu()->nr_pings++;
}

static void apic_error_irq(struct cpu_regs *r)
{
    pr_warn("CPU%u: APIC error interrupt\n", this_cpu()->id);
}

static void timer_irq(struct cpu_regs *r)
{
    timer_interrupt();
}

void smp_init(void)
{
    irq_register(VEC_TIMER, timer_irq);
    irq_register(VEC_CALL, call_irq);
    irq_register(VEC_PING, ping_irq);
    irq_register(VEC_APIC_ERROR, apic_error_irq);
    flush_init();
}

void cpu_idle_loop(void)
{
    struct cpu *c = this_cpu();

    for (;;) {
        cli();
        void (*fn)(void *) = __atomic_load_n(&c->call_fn, __ATOMIC_ACQUIRE);
        if (fn) {
            void *arg = c->call_arg;
            sti();
            fn(arg);
            __atomic_store_n(&c->call_fn, NULL, __ATOMIC_RELEASE);
            continue;
        }
        sti_hlt();
    }
}

int smp_call(struct cpu *c, void (*fn)(void *), void *arg)
{
    if (!c || !c->online)
        return ERR(-XEN_ENOENT);
    if (__atomic_load_n(&c->call_fn, __ATOMIC_ACQUIRE))
        return ERR(-XEN_EBUSY);
    c->call_arg = arg;
    __atomic_store_n(&c->call_fn, fn, __ATOMIC_RELEASE);
    apic_send_ipi(c->apic_id, VEC_CALL);
    return 0;
}

bool smp_call_wait(struct cpu *c, uint64_t timeout_ns)
{
    uint64_t end = now_ns() + timeout_ns;
    unsigned spins = 0;

    while (__atomic_load_n(&c->call_fn, __ATOMIC_ACQUIRE)) {
        if (spins % SPIN_YIELD_EVERY == 0 && now_ns() > end)    /* rdtsc may be an L0 exit */
            return false;
        spin_wait(&spins);
    }
    return true;
}

void cpu_yield(void)
{
    if (l0 && l0->yield)
        l0->yield();
    else
        cpu_relax();
}

static void ap_start(struct cpu *c)
{
    cpu_load_tables(c);
    apic_cpu_init();
    if (apic_id() != c->apic_id)
        pr_warn("CPU%u: APIC id %u, expected %u\n", c->id, apic_id(), c->apic_id);
    timer_cpu_init();
    int rc = l0->cpu_init(c);
    if (rc)
        panic("CPU%u: L0 set-up failed (%d)", c->id, rc);
    __atomic_fetch_add(&nr_cpus_online, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
    cpu_idle_loop();
}

static bool boot_one(struct cpu *c)
{
    *(uint64_t *)TRAMP_FIELD(tramp_stack) = c->stack.top;
    *(uint64_t *)TRAMP_FIELD(tramp_arg) = (uintptr_t)c;
    mb();
    apic_send_init(c->apic_id);
    mdelay(10);
    apic_send_sipi(c->apic_id, trampoline_pa);
    udelay(300);
    if (!READ_ONCE(c->online))
        apic_send_sipi(c->apic_id, trampoline_pa);
    /* emulated CPUs can be slow to arrive */
    uint64_t end = now_ns() + 5000000000ull;
    while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE)) {
        if (now_ns() > end)
            return false;
        cpu_relax();
    }
    return true;
}

void smp_boot_aps(const uint32_t *ids, unsigned n)
{
    uint32_t me = this_cpu()->apic_id;
    size_t len = (size_t)(trampoline_end - trampoline_start);

    ASSERT(len <= PAGE_SIZE && idle_root_pa < (4ull << 30));
    memcpy(phys_to_virt(trampoline_pa), trampoline_start, len);
    *(uint32_t *)TRAMP_FIELD(tramp_cr3) = (uint32_t)idle_root_pa;
    *(uint32_t *)TRAMP_FIELD(tramp_efer) = cpu_has.nx ? EFER_NXE : 0;
    *(uint64_t *)TRAMP_FIELD(tramp_entry) = (uintptr_t)ap_start;

    nr_cpus_present = 1;
    for (unsigned i = 0; i < n; i++) {
        if (ids[i] == me)
            continue;
        if (nr_cpus_present >= MAX_CPUS) {
            pr_warn("more than %u CPUs: the rest stay down\n", MAX_CPUS);
            break;
        }
        unsigned id = nr_cpus_present++;
        struct cpu *c = cpu_alloc(id, ids[i]);
        if (!c || cpu_alloc_tables(c) || xpti_cpu_init(c)) {
            pr_err("CPU%u (APIC id %u): out of memory\n", id, ids[i]);
            continue;
        }
        if (!boot_one(c))
            pr_err("CPU%u (APIC id %u) did not come up\n", id, ids[i]);
    }
}
