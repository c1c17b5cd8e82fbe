/* panic.c: panic, assertion failures, error tracing and the shutdown path. */
#include "l0/l0.h"
#include "shim/apic.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/panic.h"
#include "shim/stats.h"
#include "shim/x86.h"
#include "xen-abi.h"

static volatile int panic_cpu = -1;

bool panic_in_progress(void)
{
    return panic_cpu >= 0;
}

void cpu_stop_here(void)
{
    for (;;) {
        cli();
        halt();
    }
}

bool panic_begin(void)
{
    int me = (int)this_cpu()->id, expect = -1;

    cli();
    if (!__atomic_compare_exchange_n(&panic_cpu, &expect, me, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        if (expect == me) {
            /* a fault while panicking: give up on diagnostics, just end */
            l0->shutdown(SHUTDOWN_crash);
        }
        cpu_stop_here();                /* someone else reports and ends the run */
    }
    this_cpu()->in_panic = true;
    console_panic_mode();
    return true;
}

void panic_end(void)
{
    apic_stop_others();
    shim_shutdown(SHUTDOWN_crash);
}

void panic(const char *fmt, ...)
{
    char buf[200];
    va_list ap;

    panic_begin();
    va_start(ap, fmt);
    vsnprintf_(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    printk(LOG_ERR, "PANIC on CPU%u: %s\n", this_cpu()->id, buf);
    backtrace_here();
    panic_end();
}

void assert_failed(const char *expr, const char *file, int line)
{
    panic("assertion '%s' failed at %s:%d", expr, file, line);
}

void trace_error(int err, const char *why, const char *file, int line)
{
    printk(LOG_DEBUG, "error %d at %s:%d%s%s\n", err, file, line, why ? ": " : "", why ? why : "");
}

void shim_shutdown(unsigned reason)
{
    static const char *const names[] = { "poweroff", "reboot", "suspend", "crash", "watchdog", "soft_reset" };

    stats_publish_final(reason);
    if (l0->report_counters)
        l0->report_counters();
    printk(LOG_INFO, "shutting down: %s\n", reason < ARRAY_SIZE(names) ? names[reason] : "?");
    console_flush();
    l0->shutdown(reason);
}
