/* hc_sched.c: __HYPERVISOR_sched_op: yield, block, and shutdown (its reason goes to L0 unchanged). */
#include "domain.h"
#include "balloon.h"
#include "console.h"
#include "hypercall.h"
#include "panic.h"
#include "xerrno.h"

void pv_console_flush(void);

static const char *reason_name(unsigned r)
{
    static const char *const names[] = { "poweroff", "reboot", "suspend", "crash", "watchdog", "soft_reset" };
    return r < ARRAY_SIZE(names) ? names[r] : "unknown";
}

long hc_sched_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct sched_shutdown s;

    switch (cmd) {
    case SCHEDOP_yield:
        pv_time_update();
        return 0;
    case SCHEDOP_block:
        /* no guest events are delivered yet, so nothing could wake it: return at once */
        pv_time_update();
        return 0;
    case SCHEDOP_shutdown:
        if (copy_from_guest(&s, arg, sizeof(s)))
            return -XEN_EFAULT;
        if (s.reason > SHUTDOWN_MAX || s.reason == SHUTDOWN_suspend)
            return -XEN_EINVAL;         /* suspend needs save/restore support: later */
        pv_console_flush();
        pr_info("guest shut down: %s (%u)\n", reason_name(s.reason), s.reason);
        pv_hypercall_report();
        balloon_report();
        shim_shutdown(s.reason);
    default:
        return -XEN_ENOSYS;
    }
}
