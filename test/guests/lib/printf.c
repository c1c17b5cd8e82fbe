/*
 * printf.c: the test guests' printf family over libc/format.c (the shim's own formatter, so that
 * a guest and the shim print alike): snprintf into a buffer, printf to the console.
 */
#include "guest.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf_(buf, size, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf_(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf_(buf, sizeof(buf), fmt, ap);

	console_write(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}
