/* test_format.c: the shim's vsnprintf_ against the expected strings for the formats it uses. */
#include <string.h>

#include "harness.h"
#include "shim/lib.h"

static int same(const char *want, const char *fmt, ...)
{
    char buf[128];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf_(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (strcmp(buf, want) || n != (int)strlen(want)) {
        fprintf(stderr, "  format \"%s\": got \"%s\" (%d), want \"%s\"\n", fmt, buf, n, want);
        return 0;
    }
    return 1;
}

void test_format(void)
{
    char small[8];

    CHECK(same("42 -7 0", "%d %i %u", 42, -7, 0u));
    CHECK(same("ffff82d040200000", "%lx", 0xffff82d040200000ul));
    CHECK(same("0x1f 0X1F", "%#x %#X", 31u, 31u));
    CHECK(same("0", "%#lx", 0ul));
    CHECK(same("00ab|  ab|ab  ", "%04x|%4x|%-4x", 0xab, 0xab, 0xab));
    CHECK(same("-0042", "%05d", -42));
    CHECK(same("-9223372036854775808", "%ld", (long)(-9223372036854775807L - 1)));
    CHECK(same("18446744073709551615", "%lu", ~0ul));
    CHECK(same("0x1000", "%p", (void *)0x1000));
    CHECK(same("ab|  x|(null)", "%.2s|%3s|%s", "abc", "x", (char *)NULL));
    CHECK(same("c|100%", "%c|%d%%", 'c', 100));
    CHECK(same("  7", "%*d", 3, 7));
    CHECK(same("012", "%.3u", 12u));
    /* truncation: always terminated, returns the full length */
    CHECK_EQ(snprintf_(small, sizeof(small), "%s", "0123456789"), 10);
    CHECK(!strcmp(small, "0123456"));
    CHECK_EQ(snprintf_(NULL, 0, "%d", 12345), 5);
}
