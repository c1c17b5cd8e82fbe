/* parse.c: small string helpers shared by the shim and the host tests (numbers, bounded copies). */
#include "shim/lib.h"

size_t parse_ulong(const char *s, uint64_t *val)
{
    const char *p = s;
    unsigned base = 10;
    uint64_t v = 0;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        ((p[2] >= '0' && p[2] <= '9') || ((p[2] | 0x20) >= 'a' && (p[2] | 0x20) <= 'f'))) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && p[1] >= '0' && p[1] <= '7') {
        base = 8;
        p++;
    }
    const char *start = p;
    for (;; p++) {
        unsigned d;
        char c = *p;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            d = (c | 0x20) - 'a' + 10;
        else
            break;
        if (d >= base)
            break;
        v = v * base + d;
    }
    if (p == start && base != 8)
        return 0;
    *val = v;
    return (size_t)(p - s);
}

size_t str_copy(char *d, const char *s, size_t size)
{
    size_t n = strlen(s);

    if (size) {
        size_t c = n < size - 1 ? n : size - 1;
        memcpy(d, s, c);
        d[c] = '\0';
    }
    return n;
}
