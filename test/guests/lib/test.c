/* test.c: checks and the one verdict per test (see test.h). */
#include "guest.h"

static unsigned int failures;
static bool verdict_given;

bool check_at(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "  ok: " : "  FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (cond) {
		printf("\n");
	} else {
		printf(" (%s:%d)\n", file, line);
		failures++;
	}
	return cond;
}

unsigned int test_failures(void)
{
	return failures;
}

static _Noreturn void shutdown(unsigned int reason)
{
	struct sched_shutdown s = { .reason = reason };

	console_linger();
	for (;;) {
		hypercall_sched_op(SCHEDOP_shutdown, &s);
		s.reason = SHUTDOWN_crash;	/* still here? try the harder way */
	}
}

/* Print the verdict once; a second verdict (say a trap while printing one) prints nothing. */
static void verdict(const char *v, const char *reason)
{
	if (verdict_given)
		return;
	verdict_given = true;
	printf("RESULT %s%s%s\n", v, reason ? " " : "", reason ? reason : "");
}

_Noreturn void test_pass(void)
{
	if (failures) {
		printf("%u check(s) failed\n", failures);
		verdict("FAIL", NULL);
	} else {
		verdict("PASS", NULL);
	}
	shutdown(SHUTDOWN_poweroff);
}

_Noreturn void test_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FATAL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	verdict("FAIL", NULL);
	shutdown(SHUTDOWN_poweroff);
}

_Noreturn void test_skip(const char *reason)
{
	verdict("SKIP", reason);
	shutdown(SHUTDOWN_poweroff);
}

_Noreturn void test_crash(const char *why)
{
	printf("CRASH: %s\n", why);
	verdict("FAIL", NULL);
	shutdown(SHUTDOWN_crash);
}
