/*
 * test.h: how a test reports. check() records a failed expectation and goes on; the test ends
 * with exactly one verdict line on the ring console: RESULT PASS, RESULT FAIL or RESULT SKIP
 * <reason>, followed by SCHEDOP_shutdown(poweroff) (a crash only after an unexpected trap).
 */
#ifndef GUEST_TEST_H
#define GUEST_TEST_H

#include <stdbool.h>

/* Each test defines these two. */
extern const char test_title[];
void test_main(void);

/* Print "ok: <what>" or "FAILED: <what> (file:line)"; returns cond. */
#define check(cond, ...) check_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
bool check_at(bool cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* How many check()s failed so far. */
unsigned int test_failures(void);

/* End the test now. */
_Noreturn void test_pass(void);	/* RESULT FAIL instead if a check failed */
_Noreturn void test_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void test_skip(const char *reason);
_Noreturn void test_crash(const char *why);	/* RESULT FAIL, then SHUTDOWN_crash */

#endif
