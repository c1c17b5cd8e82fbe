/* lib.h: the little libc a freestanding test guest needs (string.c, printf.c, errno.c). */
#ifndef GUEST_LIB_H
#define GUEST_LIB_H

#include <stdarg.h>
#include <stddef.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strstr(const char *hay, const char *needle);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap);
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EPERM" for -1 and so on (Xen's errno values); "ok" for 0, "?" for the unknown. */
const char *errno_name(long rc);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
