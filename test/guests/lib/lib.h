/* lib.h: the little libc a freestanding test guest needs: libc/ (shared with the shim), printf.c, errno.c. */
#ifndef GUEST_LIB_H
#define GUEST_LIB_H

#include "libc/libc.h"	/* the mem and str functions, vsnprintf_ */

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap);
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EPERM" for -1 and so on (Xen's errno values); "ok" for 0, "?" for the unknown. */
const char *errno_name(long rc);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
