/*
 * libc.h: the little C library the freestanding builds share, the shim and the PV test guests
 * (string.c, format.c), and the host-built unit tests and fuzzers compile format.c against the
 * system's libc. The mem and str functions have the standard prototypes (the compiler may call
 * memcpy and memset itself); the formatter is vsnprintf_ so that it never clashes with libc's.
 */
#ifndef LIBC_LIBC_H
#define LIBC_LIBC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* string.c */
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *hay, const char *needle);
void *memchr(const void *s, int c, size_t n);

/* format.c: %d %i %u %o %x %X %p %s %c %%, flags -0+ #, width, precision, h/l/ll/z/j/t */
int vsnprintf_(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf_(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
