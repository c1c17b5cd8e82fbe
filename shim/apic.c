/* apic.c: local APIC driver: x2APIC MSRs or xAPIC MMIO, IPIs, INIT-SIPI, one-shot / TSC-deadline timer. */
#include "shim/apic.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/stats.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define APIC_ID        0x020
#define APIC_TPR       0x080
#define APIC_EOI       0x0b0
#define APIC_SVR       0x0f0
#define APIC_ESR       0x280
#define APIC_ICR       0x300
#define APIC_ICR_HI    0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_PERF  0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TMICT     0x380
#define APIC_TMCCT     0x390
#define APIC_TDCR      0x3e0

#define APIC_BASE_EXTD   (1ull << 10)
#define APIC_BASE_EN     (1ull << 11)
#define LVT_MASKED       (1u << 16)
#define LVT_TSC_DEADLINE (2u << 17)
#define LVT_NMI          (4u << 8)
#define ICR_PENDING      (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_FIXED        0
#define ICR_NMI          (4u << 8)
#define ICR_INIT         (5u << 8)
#define ICR_STARTUP      (6u << 8)
#define ICR_ALL_BUT_SELF (3u << 18)

bool apic_x2, apic_tsc_deadline;
uint64_t apic_timer_khz;
static volatile uint32_t *xapic;
static bool apic_up;                    /* the BSP's APIC is enabled in the chosen mode */
static uint64_t timer_mul;              /* one-shot: counts = ns * timer_mul >> 32 */

static uint32_t apic_read(unsigned reg)
{
    return apic_x2 ? (uint32_t)rdmsr(0x800 + (reg >> 4)) : xapic[reg / 4];
}

static void apic_write(unsigned reg, uint32_t v)
{
    if (apic_x2)
        wrmsr(0x800 + (reg >> 4), v);
    else
        xapic[reg / 4] = v;
}

static void apic_icr(uint32_t dest, uint32_t lo)
{
    if (apic_x2) {
        mb();                           /* x2APIC ICR writes are not serializing */
        wrmsr(0x830, ((uint64_t)dest << 32) | lo);
        return;
    }
    uint64_t f = irq_save();
    while (xapic[APIC_ICR / 4] & ICR_PENDING)
        cpu_relax();
    xapic[APIC_ICR_HI / 4] = dest << 24;
    xapic[APIC_ICR / 4] = lo;
    irq_restore(f);
}

uint32_t apic_id(void)
{
    return apic_x2 ? (uint32_t)rdmsr(0x802) : apic_read(APIC_ID) >> 24;
}

void apic_eoi(void)
{
    apic_write(APIC_EOI, 0);
}

void apic_send_ipi(uint32_t dest, unsigned vector)
{
    STAT_INC(ipis_sent);
    apic_icr(dest, ICR_FIXED | vector);
}

void apic_send_init(uint32_t dest)
{
    apic_icr(dest, ICR_INIT | ICR_LEVEL_ASSERT);
}

void apic_send_sipi(uint32_t dest, uint64_t page_pa)
{
    ASSERT(page_pa < 0x100000 && IS_ALIGNED(page_pa, PAGE_SIZE));
    apic_icr(dest, ICR_STARTUP | (uint32_t)(page_pa >> 12));
}

void apic_stop_others(void)
{
    if (apic_up)
        apic_icr(0, ICR_NMI | ICR_ALL_BUT_SELF);
}

static void apic_enable(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);

    if (!(base & APIC_BASE_EN))
        wrmsr(MSR_APIC_BASE, base |= APIC_BASE_EN);
    if (apic_x2 && !(base & APIC_BASE_EXTD))
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
}

int apic_bsp_init(void)
{
    if (!cpu_has.apic)
        return ERR(-XEN_ENODEV);
    apic_x2 = cpu_has.x2apic;
    if (!apic_x2) {
        uint64_t pa = rdmsr(MSR_APIC_BASE) & PTE_ADDR;
        xapic = ioremap(pa, PAGE_SIZE, PTE_RW | PTE_UC);
        if (!xapic)
            return ERR(-XEN_ENOMEM);
    }
    apic_tsc_deadline = cpu_has.tsc_deadline;
    return 0;
}

void apic_cpu_init(void)
{
    apic_enable();
    apic_write(APIC_TPR, 0);
    apic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);
    apic_write(APIC_LVT_LINT0, LVT_MASKED);             /* no 8259 behind us */
    apic_write(APIC_LVT_LINT1, LVT_NMI);
    apic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
    apic_write(APIC_ESR, 0);
    apic_write(APIC_TDCR, 0xb);                         /* divide by 1 */
    apic_write(APIC_LVT_TIMER, VEC_TIMER | (apic_tsc_deadline ? LVT_TSC_DEADLINE : 0));
    mb();                               /* the mode switch lands before any deadline write */
    apic_write(APIC_TMICT, 0);
    apic_up = true;
}

int apic_timer_calibrate(void)
{
    if (apic_tsc_deadline)
        return 0;
    /* Count down from the top for ~10 ms of L0/TSC time, three times, and keep the fastest rate.
     * L0 may deschedule this vCPU between a clock read and a counter read: that only ever makes
     * a rate look slower (seen: 757 kHz instead of ~99 MHz, and every guest timer 130x late). */
    apic_write(APIC_LVT_TIMER, VEC_TIMER | LVT_MASKED);
    apic_timer_khz = 0;
    for (int i = 0; i < 3; i++) {
        apic_write(APIC_TMICT, 0xffffffff);
        uint64_t t0 = now_ns();
        uint32_t c0 = apic_read(APIC_TMCCT);
        while (now_ns() - t0 < 10000000)
            cpu_relax();
        uint32_t c1 = apic_read(APIC_TMCCT);
        uint64_t t1 = now_ns();
        if (c1 < c0 && t1 > t0) {
            uint64_t khz = (uint64_t)(c0 - c1) * 1000000 / (t1 - t0);
            apic_timer_khz = khz > apic_timer_khz ? khz : apic_timer_khz;
        }
    }
    apic_write(APIC_TMICT, 0);
    apic_write(APIC_LVT_TIMER, VEC_TIMER);
    if (!apic_timer_khz)
        return ERR(-XEN_EIO);
    timer_mul = ((apic_timer_khz << 32) / 1000000);
    return 0;
}

void apic_timer_program(uint64_t deadline_ns, uint64_t now)
{
    if (!deadline_ns) {
        if (apic_tsc_deadline)
            wrmsr(MSR_TSC_DEADLINE, 0);
        else
            apic_write(APIC_TMICT, 0);
        return;
    }
    if (apic_tsc_deadline) {
        /* from the clock line, not from a TSC read: an L0 that traps RDTSC exits on each */
        wrmsr(MSR_TSC_DEADLINE, tsc_at_ns(deadline_ns) + 1);
        return;
    }
    if (!now)
        now = now_ns();
    uint64_t delta = deadline_ns > now ? deadline_ns - now : 0;
    uint64_t counts = (uint64_t)(((unsigned __int128)delta * timer_mul) >> 32);
    apic_write(APIC_TMICT, (uint32_t)MAX(1, MIN(counts, 0xffffffffull)));
}

/* For a CPU's state report: the timer's registers, and the vectors in service or requested. */
void apic_report(void)
{
    char isr[80] = "", irr[80] = "";
    size_t ni = 0, nr = 0;

    for (unsigned w = 1; w < 8; w++) {  /* vectors 32-255 */
        uint32_t is = apic_read(0x100 + w * 0x10), ir = apic_read(0x200 + w * 0x10);
        for (unsigned b = 0; b < 32; b++) {
            if ((is >> b & 1) && ni < sizeof(isr) - 4)
                ni += (size_t)snprintf_(isr + ni, sizeof(isr) - ni, " %#x", w * 32 + b);
            if ((ir >> b & 1) && nr < sizeof(irr) - 4)
                nr += (size_t)snprintf_(irr + nr, sizeof(irr) - nr, " %#x", w * 32 + b);
        }
    }
    printk(LOG_WARN, "  apic: lvt-timer %#x tmict %u tmcct %u%s; in service:%s; requested:%s\n",
           apic_read(APIC_LVT_TIMER), apic_read(APIC_TMICT), apic_read(APIC_TMCCT),
           apic_tsc_deadline ? " (TSC-deadline)" : "", ni ? isr : " none", nr ? irr : " none");
}

const char *apic_mode_name(void)
{
    return apic_x2 ? "x2APIC" : "xAPIC";
}

const char *apic_timer_name(void)
{
    return apic_tsc_deadline ? "TSC-deadline" : "LAPIC one-shot";
}
