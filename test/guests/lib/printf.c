/*
 * printf.c: a small vsnprintf for test output. Conversions: %s %c %d %i %u %x %X %p %%,
 * with flags '-', '0', '#', a width, a precision for %s (at most N bytes: %.16s), and the
 * length modifiers l, ll, z.
 */
#include "guest.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			put(o, pad);
	while (n--)
		put(o, *s++);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

/* Digits, then the sign or 0x, then zero padding if asked, all as one field for put_padded. */
static void put_number(struct out *o, unsigned long long v, bool neg, unsigned int base,
		       bool upper, const char *prefix, int width, bool left, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], field[48];
	int n = 0, len = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		prefix = "-";
	while (prefix && *prefix)
		field[len++] = *prefix++;
	if (pad == '0' && !left)
		for (int zeros = width - len - n; zeros > 0 && len < 24; zeros--)
			field[len++] = '0';
	while (n)
		field[len++] = tmp[--n];
	put_padded(o, field, len, width, left, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool left = false, alt = false;
		char pad = ' ';
		int width = 0, prec = -1, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (fmt++;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else if (*fmt == '#')
				alt = true;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.')
			for (prec = 0, fmt++; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = prec * 10 + (*fmt - '0');
		while (*fmt == 'l' || *fmt == 'z')
			lng++, fmt++;

		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			put_padded(&o, s, prec < 0 ? strlen(s) : strnlen(s, prec), width, left, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);

			put_padded(&o, &c, 1, width, left, ' ');
			break;
		}
		case 'd':
		case 'i': {
			long long v = lng ? va_arg(ap, long) : va_arg(ap, int);

			put_number(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0, 10,
				   false, NULL, width, left, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			unsigned long long v = lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			unsigned int base = *fmt == 'u' ? 10 : 16;

			put_number(&o, v, false, base, *fmt == 'X', alt && base == 16 ? "0x" : NULL,
				   width, left, pad);
			break;
		}
		case 'p':
			put_number(&o, (unsigned long)va_arg(ap, void *), false, 16, false, "0x", width,
				   left, pad);
			break;
		case '%':
			put(&o, '%');
			break;
		default:	/* unknown: show it rather than guess */
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

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
