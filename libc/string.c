/* string.c: the mem and str functions the compiler, the shim and the test guests rely on. */
#include "libc/libc.h"

/* Eight bytes a step, then the rest: an emulated CPU (QEMU's TCG) runs each step of a string
 * instruction separately, so the byte forms cost eight times as much on the MiBs the builder
 * copies and clears. The 32-bit test guests (issue 19) take four. */
#ifdef __i386__
#define WIDE "l"
#define WIDE_SHIFT 2
typedef uint32_t wide_t;
#else
#define WIDE "q"
#define WIDE_SHIFT 3
typedef uint64_t wide_t;
#endif

void *memcpy(void *d, const void *s, size_t n)
{
    void *r = d;
    size_t q = n >> WIDE_SHIFT, b = n & (sizeof(wide_t) - 1);

    __asm__ volatile("rep movs" WIDE : "+D"(d), "+S"(s), "+c"(q) :: "memory");
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(b) :: "memory");
    return r;
}

void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;

    if (dp <= sp || dp >= sp + n)
        return memcpy(d, s, n);
    while (n--)
        dp[n] = sp[n];
    return d;
}

void *memset(void *d, int c, size_t n)
{
    void *r = d;
    size_t q = n >> WIDE_SHIFT, b = n & (sizeof(wide_t) - 1);
    wide_t v = (wide_t)0x0101010101010101ull * (uint8_t)c;

    __asm__ volatile("rep stos" WIDE : "+D"(d), "+c"(q) : "a"(v) : "memory");
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(b) : "a"(v) : "memory");
    return r;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    for (; *a && *a == *b; a++, b++)
        ;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n && *a && *a == *b; n--, a++, b++)
        ;
    return n ? (unsigned char)*a - (unsigned char)*b : 0;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;

    for (; n; n--, p++)
        if (*p == (unsigned char)c)
            return (void *)p;
    return NULL;
}

char *strstr(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++)
        if (!strncmp(hay, needle, n))
            return (char *)hay;
    return n ? NULL : (char *)hay;
}
