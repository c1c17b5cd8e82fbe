/* debug.h: assertions and error-return tracing (file:line) for shim and hosted code alike. */
#ifndef SHIM_DEBUG_H
#define SHIM_DEBUG_H

#include "shim/lib.h"

#ifndef CONFIG_DEBUG
#define CONFIG_DEBUG 1
#endif

/* Provided by panic.c in the shim and by the unit-test harness on the host. */
void assert_failed(const char *expr, const char *file, int line) __noreturn;
void trace_error(int err, const char *why, const char *file, int line);

#define ASSERT(c) do { if (unlikely(!(c))) assert_failed(#c, __FILE__, __LINE__); } while (0)
#define BUG()     assert_failed("BUG", __FILE__, __LINE__)

/* Wrap an error value at its return: `return ERR(-XEN_EINVAL, "why");` (the reason may be left
 * out) logs the value, file:line and reason at debug level (loglvl=all) in debug builds. */
static inline int err_at(int e, const char *why, const char *file, int line)
{
    if (CONFIG_DEBUG)
        trace_error(e, why, file, line);
    return e;
}
#define ERR(...) ERR_(__VA_ARGS__, NULL, )
#define ERR_(e, why, ...) err_at((e), CONFIG_DEBUG ? (why) : NULL, __FILE__, __LINE__)

#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

#endif
