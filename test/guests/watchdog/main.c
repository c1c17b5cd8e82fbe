/*
 * watchdog: SCHEDOP_watchdog, the domain's two watchdogs (public/sched.h; Xen 4.17's
 * domain_watchdog in common/sched/core.c), as Linux's xen_wdt driver uses them.
 *
 * struct sched_watchdog { id, timeout }: id 0 makes a watchdog that fires timeout seconds from
 * now and returns its id (1 or 2), and a third is -ENOSPC; a known id with a timeout moves its
 * deadline (the kick); with timeout 0 it stops and frees it, after which the id is -EINVAL, as
 * is an id that was never given. When one fires the domain is shut down with SHUTDOWN_watchdog
 * (xl's on_watchdog then decides; the bed destroys it). Checked: the ids and errors, that a
 * watchdog kicked within its timeout does not fire (2 s timeout, kicked every 0.5 s for 4 s),
 * and finally that one left alone ends the domain: the guest prints "WATCHDOG waiting" and
 * blocks; the suite line wants the domain to end as watchdog, with no check failed.
 *
 * The 32-bit build runs the same checks. There the stock shim's third watchdog reads -ENOSPC:
 * a compat hypercall's result is stored into regs->eax (_pv_hypercall's call_handlers_pv32,
 * xen/arch/x86/pv/hypercall.c), and 4294967268's low 32 bits are -28.
 *
 * Expect: stock XFAIL on xen (a third watchdog gets -ENOSPC as a uint32_t, 4294967268: Xen 4.17's
 * domain_watchdog), the 32-bit build PASS; ours PASS on xen and none, both builds (run with --expect watchdog).
 */
#include "guest.h"
#include "events.h"		/* pvclock_ns_shared */

const char test_title[] = "watchdog: SCHEDOP_watchdog ids, kicks, and the shutdown when it fires";

#define MS 1000000ul

static long watchdog(uint32_t id, uint32_t timeout)
{
	struct sched_watchdog w = { .id = id, .timeout = timeout };

	return hypercall_sched_op(SCHEDOP_watchdog, &w);
}

static void spin_ms(unsigned long ms)
{
	uint64_t end = pvclock_ns_shared() + ms * MS;

	while (pvclock_ns_shared() < end)
		__asm__ volatile("pause");
}

void test_main(void)
{
	long a = watchdog(0, 2), b = watchdog(0, 60), c = watchdog(0, 60);

	check(a == 1 && b == 2, "two watchdogs: ids %ld and %ld (want 1 and 2)", a, b);
	check(c == -XEN_ENOSPC, "a third: %ld %s (want -ENOSPC)", c, errno_name(c));
	long rc = watchdog(2, 0);
	check(rc == 0, "stopping watchdog 2: %ld %s", rc, errno_name(rc));
	rc = watchdog(2, 0);
	check(rc == -XEN_EINVAL, "stopping it again: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = watchdog(2, 5);
	check(rc == -XEN_EINVAL, "kicking the stopped one: %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = watchdog(3, 5);
	check(rc == -XEN_EINVAL, "kicking id 3, never given: %ld %s (want -EINVAL)", rc, errno_name(rc));
	b = watchdog(0, 60);
	check(b == 2, "a new one gets the free id: %ld (want 2)", b);
	rc = watchdog((uint32_t)b, 0);
	check(rc == 0, "and stops: %ld %s", rc, errno_name(rc));

	/* watchdog 1 (2 s) kicked every 0.5 s for 4 s: it must not fire */
	for (unsigned i = 0; i < 8; i++) {
		spin_ms(500);
		rc = watchdog((uint32_t)a, 2);
		if (!check(rc == 0, "kick %u of watchdog 1: %ld %s", i + 1, rc, errno_name(rc)))
			break;
	}
	/* had it fired, the domain would have ended before the next line, which the suite wants */

	/* left alone now: it ends the domain within its 2 s (spinning: no event callback here) */
	printf("WATCHDOG waiting\n");
	for (;;)
		__asm__ volatile("pause");
}
