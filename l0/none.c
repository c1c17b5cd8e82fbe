/* none.c: no L0 (booted straight by QEMU or firmware): 16550 console, PIT-calibrated TSC, debug-exit. */
#include "l0/l0.h"
#include "l0/pc/pit.h"
#include "l0/pc/rtc.h"
#include "l0/pc/uart.h"
#include "shim/boot.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

static uint64_t tsc0, hz;
static uint32_t tsc2ns_mul;
static int tsc2ns_shift;

static void none_early_init(struct boot_info *bi)
{
    (void)bi;
    uart_init(true);
}

static void pic_mask_all(void)
{
    /* remap the 8259s to 0x20-0x2f (so a spurious IRQ cannot look like an exception), mask all */
    outb(0x20, 0x11);
    outb(0xa0, 0x11);
    outb(0x21, 0x20);
    outb(0xa1, 0x28);
    outb(0x21, 0x04);
    outb(0xa1, 0x02);
    outb(0x21, 0x01);
    outb(0xa1, 0x01);
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
}

static int none_init(void)
{
    pic_mask_all();
    hz = pit_calibrate_tsc();
    if (!hz)
        return ERR(-XEN_ENODEV);
    hz_to_ns_scale(hz, &tsc2ns_mul, &tsc2ns_shift);
    tsc0 = rdtsc();
    return 0;
}

static int none_cpu_init(struct cpu *c)
{
    c->vcpu_id = c->id;
    return 0;
}

static uint32_t none_vcpu_id(void)
{
    return this_cpu()->id;
}

static uint64_t none_now_ns(void)
{
    if (!tsc2ns_mul)
        return 0;
    return scale_64_32(rdtsc() - tsc0, tsc2ns_mul, tsc2ns_shift);
}

/* One calibration for the whole run: the line never changes. Its origin is moved to now, so a
 * guest reading it scales a short TSC delta, as under Xen. */
static void none_clock_line(struct clock_line *l)
{
    l->tsc0 = rdtsc();
    l->ns0 = scale_64_32(l->tsc0 - tsc0, tsc2ns_mul, tsc2ns_shift);
    l->mul = tsc2ns_mul;
    l->shift = tsc2ns_shift;
}

static uint64_t none_tsc_hz(void)
{
    return hz;
}

/* No L0 to give memory to: a frame "given back" stays in RAM, unused (pv/mm/balloon.c keeps it
 * out of the guest pool), and is there again as soon as it is asked for. */
static unsigned none_release_frames(const uint64_t *gfns, unsigned n)
{
    (void)gfns;
    return n;
}

static unsigned none_populate_frames(const uint64_t *gfns, unsigned n)
{
    (void)gfns;
    return n;
}

static void none_report(void)
{
    pr_info("L0: none (no hypervisor below us: standalone)\n");
}

static __noreturn void none_shutdown(unsigned reason)
{
    /* QEMU's isa-debug-exit at 0xf4: the process exits with status (reason << 1) | 1 */
    outb(0xf4, (uint8_t)reason);
    /* not there: reset by triple fault (QEMU -no-reboot turns it into an exit) */
    struct desc_ptr none = { 0, 0 };
    __asm__ volatile("lidt %0; int3" :: "m"(none));
    for (;;) {
        cli();
        halt();
    }
}

const struct l0_ops l0_none = {
    .name = "none",
    .early_init = none_early_init,
    .init = none_init,
    .cpu_init = none_cpu_init,
    .vcpu_id = none_vcpu_id,
    .default_console = CONS_COM1,
    .clock_name = "TSC (calibrated against the PIT)",
    .now_ns = none_now_ns,
    .tsc_hz = none_tsc_hz,
    .clock_line = none_clock_line,
    .release_frames = none_release_frames,
    .populate_frames = none_populate_frames,
    .wallclock_base = rtc_wallclock_base,
    .report = none_report,
    .shutdown = none_shutdown,
};
