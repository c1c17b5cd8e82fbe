/*
 * format.c: vsnprintf_ for the shim's console and the test guests' printf: %d %i %u %o %x %X
 * %p %s %c %%, flags -0+ #, width, precision, length modifiers h l ll z j t.
 */
#include "libc/libc.h"

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

static void pad(struct out *o, char c, int n)
{
    while (n-- > 0)
        put(o, c);
}

static void number(struct out *o, uint64_t v, bool neg, unsigned base, bool upper,
                   int width, int prec, bool left, bool zero, char sign, const char *prefix)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24];
    int n = 0, plen = prefix ? (int)strlen(prefix) : 0;

    if (v == 0 && prec != 0)
        tmp[n++] = '0';
    while (v) {
        tmp[n++] = digits[v % base];
        v /= base;
    }
    int digits_n = n > prec ? n : prec;
    int total = digits_n + plen + (neg || sign ? 1 : 0);

    if (!left && !(zero && prec < 0))
        pad(o, ' ', width - total);
    if (neg)
        put(o, '-');
    else if (sign)
        put(o, sign);
    for (int i = 0; i < plen; i++)
        put(o, prefix[i]);
    if (!left && zero && prec < 0)
        pad(o, '0', width - total);
    pad(o, '0', prec - n);
    while (n)
        put(o, tmp[--n]);
    if (left)
        pad(o, ' ', width - total);
}

int vsnprintf_(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };

    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        bool left = false, zero = false, alt = false;
        char sign = 0;
        int width = 0, prec = -1, lng = 0;

        for (;; fmt++) {
            char f = fmt[1];
            if (f == '-') left = true;
            else if (f == '0') zero = true;
            else if (f == '+') sign = '+';
            else if (f == ' ') sign = sign ? sign : ' ';
            else if (f == '#') alt = true;
            else break;
        }
        fmt++;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    prec = prec * 10 + (*fmt++ - '0');
            }
        }
        for (;; fmt++) {
            /* 1: long (size_t, ptrdiff_t), 2: long long; they differ in the 32-bit guests */
            if (*fmt == 'l') lng = lng ? 2 : 1;
            else if (*fmt == 'z' || *fmt == 't') lng = 1;
            else if (*fmt == 'j') lng = 2;
            else if (*fmt == 'h') lng = lng ? lng : 0;
            else break;
        }
        switch (*fmt) {
        case 'd':
        case 'i': {
            int64_t v = lng == 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
            uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
            number(&o, u, v < 0, 10, false, width, prec, left, zero, sign, NULL);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uint64_t v = lng == 2 ? va_arg(ap, unsigned long long)
                         : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
            unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
            const char *pfx = alt && v ? (*fmt == 'o' ? "0" : *fmt == 'X' ? "0X" : base == 16 ? "0x" : NULL) : NULL;
            number(&o, v, false, base, *fmt == 'X', width, prec, left, zero, 0, pfx);
            break;
        }
        case 'p': {
            uintptr_t v = (uintptr_t)va_arg(ap, void *);
            number(&o, v, false, 16, false, width ? width : 0, prec, left, zero, 0, "0x");
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            if (!left)
                pad(&o, ' ', width - 1);
            put(&o, c);
            if (left)
                pad(&o, ' ', width - 1);
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            int n = (int)(prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s));
            if (!left)
                pad(&o, ' ', width - n);
            for (int i = 0; i < n; i++)
                put(&o, s[i]);
            if (left)
                pad(&o, ' ', width - n);
            break;
        }
        case '%':
            put(&o, '%');
            break;
        case '\0':
            fmt--;
            break;
        default:
            put(&o, '%');
            put(&o, *fmt);
            break;
        }
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}

int snprintf_(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf_(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
