/* lib.h: freestanding basics shared by the shim and its host-built unit tests. */
#ifndef SHIM_LIB_H
#define SHIM_LIB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)       (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)      (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)    ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)    (((x) & ((a) - 1)) == 0)
#define MIN(a, b)           ((a) < (b) ? (a) : (b))
#define MAX(a, b)           ((a) > (b) ? (a) : (b))
#define likely(x)           __builtin_expect(!!(x), 1)
#define unlikely(x)         __builtin_expect(!!(x), 0)
#define __noreturn          __attribute__((noreturn))
#define __packed            __attribute__((packed))
#define __aligned(n)        __attribute__((aligned(n)))
#define __printf(a, b)      __attribute__((format(printf, a, b)))
#define __unused            __attribute__((unused))
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))

/* string.c and format.c (libc/libc.h; in the hosted build, libc provides the string functions) */
#include "libc/libc.h"

/* strlcpy-like: always terminates, returns strlen(src) (the lib.c version works in both builds) */
size_t str_copy(char *d, const char *s, size_t size);

/* Parse an unsigned number (0x.. hex, 0.. octal, else decimal); returns chars used, 0 if none. */
size_t parse_ulong(const char *s, uint64_t *val);

#endif
