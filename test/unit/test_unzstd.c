/* test_unzstd.c: unzstd against zstd(1): levels 1 to 22, with and without checksum and content
 * size, raw/RLE/Huffman/FSE data from 0 bytes to MiBs, small windows, concatenated and skippable
 * frames; truncation at every length, corruption, an undersized buffer, hand-patched headers
 * (dictionary ID, reserved bits and types, content size, checksum). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/decompress.h"
#include "filter.h"
#include "harness.h"
#include "shim/xerrno.h"

enum kind { MIXED, RANDOM, ZEROS, TEXT, SMALL };


/* Test data: runs of text, zeros, pseudo-random bytes and x86-like calls, or one of them only, or
 * bytes below 9 (literals whose Huffman weights are written directly, not FSE-coded). */
static uint8_t *sample(size_t n, unsigned seed, enum kind kind)
{
    uint8_t *b = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    static const char text[] = "the quick brown fox jumps over the lazy dog; PV shim zstd test. ";

    for (size_t i = 0; i < n;) {
        x = x * 1103515245u + 12345u;
        unsigned k = kind == MIXED ? (x >> 16) % 4 : kind == TEXT ? 0 : kind == ZEROS ? 1 : kind == RANDOM ? 2 : 4;
        unsigned run = 16 + (x >> 8) % 200;
        for (unsigned j = 0; j < run && i < n; j++, i++) {
            x = x * 1103515245u + 12345u;
            switch (k) {
            case 0: b[i] = (uint8_t)text[(i + (x >> 28)) % (sizeof(text) - 1)]; break;
            case 1: b[i] = 0; break;
            case 2: b[i] = (uint8_t)(x >> 16); break;
            case 4: b[i] = (uint8_t)((x >> 16) % ((x >> 29) + 2)); break;     /* a few small values */
            default: b[i] = (j % 5 == 0) ? (uint8_t)(0xe8 + ((x >> 20) & 1)) : (j % 5 == 4 ? 0 : (uint8_t)(x >> 12)); break;
            }
        }
    }
    return b;
}

/* `zstd -q -c opts`, on a file (so the frame has the content size) or from a pipe (so it has not,
 * as in a kernel build). */
static uint8_t *compress(const uint8_t *data, size_t n, const char *opts, bool pipe, size_t *clen)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "zstd -q -c %s%s", opts, pipe ? "" : " {}");
    return ut_filter(data, n, cmd, clen);
}

/* Decode c[0, clen) into a buffer of cap (its own allocation, so ASan sees any overrun). */
static int run(const uint8_t *c, size_t clen, size_t cap, uint8_t **out, size_t *olen)
{
    const char *why = NULL;
    *out = malloc(cap ? cap : 1);
    int rc = unzstd(c, clen, *out, cap, olen, &why);
    CHECK(rc == 0 || (why != NULL && !strncmp(why, "zstd: ", 6)));
    return rc;
}

static bool decodes_to(const uint8_t *c, size_t clen, const uint8_t *data, size_t n)
{
    uint8_t *out;
    size_t olen = 0;
    int rc = run(c, clen, n, &out, &olen);
    bool ok = rc == 0 && olen == n && !memcmp(out, data, n);
    free(out);
    return ok;
}

static void roundtrip(const char *opts, bool pipe, size_t n, unsigned seed, enum kind kind)
{
    uint8_t *data = sample(n, seed, kind), *out;
    size_t clen = 0, olen;
    uint8_t *c = compress(data, n, opts, pipe, &clen);

    CHECK(c != NULL);
    if (!c) {
        free(data);
        return;
    }
    bool ok = decodes_to(c, clen, data, n);     /* a buffer of exactly the size */
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "    zstd %s%s, %zu bytes of kind %d\n", opts, pipe ? " (pipe)" : "", n, kind);
    if (n) {                            /* one byte short: -ENOSPC, never an overrun */
        CHECK_EQ(run(c, clen, n - 1, &out, &olen), -XEN_ENOSPC);
        free(out);
    }
    /* truncation: every length of a small stream, a sample of a large one, fails cleanly */
    size_t step = clen <= 2048 ? 1 : clen / (n > (1u << 20) ? 12 : 97) + 1, fails = 0;
    for (size_t t = 0; t < clen; t += step) {
        uint8_t *tc = malloc(t ? t : 1);
        memcpy(tc, c, t);
        fails += run(tc, t, n + 64, &out, &olen) != 0;
        free(out);
        free(tc);
    }
    CHECK_EQ(fails, (clen + step - 1) / step);
    /* corruption: an error or some output, never a crash or an overrun */
    unsigned tries = n > (1u << 20) ? 16 : 200;
    for (size_t k = 0; k < tries; k++) {
        uint8_t *cc = malloc(clen);
        memcpy(cc, c, clen);
        cc[(k * 7919) % clen] ^= (uint8_t)(1 + k % 255);
        run(cc, clen, n + 64, &out, &olen);
        free(out);
        free(cc);
    }
    free(c);
    free(data);
}

/* Two frames back to back, the first behind a skippable frame: the outputs concatenated. */
static void test_multi(void)
{
    uint8_t *a = sample(50000, 7, MIXED), *b = sample(3000, 8, TEXT), *ab = malloc(53000);
    size_t la, lb;
    uint8_t *ca = compress(a, 50000, "-3", false, &la), *cb = compress(b, 3000, "-19 --no-check", true, &lb);
    static const uint8_t skip[] = { 0x5e, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o' };
    uint8_t *s = malloc(sizeof(skip) + la + lb + sizeof(skip)), *out;
    size_t olen;

    CHECK(ca && cb);
    if (!ca || !cb)
        goto done;
    memcpy(ab, a, 50000);
    memcpy(ab + 50000, b, 3000);
    memcpy(s, skip, sizeof(skip));
    memcpy(s + sizeof(skip), ca, la);
    memcpy(s + sizeof(skip) + la, cb, lb);
    CHECK(decodes_to(s + sizeof(skip), la + lb, ab, 53000));
    CHECK(decodes_to(s, sizeof(skip) + la + lb, ab, 53000));
    memcpy(s + sizeof(skip) + la + lb, skip, sizeof(skip));          /* and one at the end */
    CHECK(decodes_to(s, 2 * sizeof(skip) + la + lb, ab, 53000));
    CHECK_EQ(run(s, 2 * sizeof(skip) + la + lb - 1, 53000, &out, &olen), -XEN_EINVAL);
    free(out);
    CHECK_EQ(run(s, sizeof(skip), 64, &out, &olen), -XEN_EINVAL);     /* no zstd frame at all */
    free(out);
    CHECK_EQ(run(s, 2 + sizeof(skip) + la, 53000, &out, &olen), -XEN_EINVAL);   /* a stray 2 bytes */
    free(out);
    CHECK_EQ(run(s, sizeof(skip) + la + lb, 53000 - 1, &out, &olen), -XEN_ENOSPC);
    free(out);
    CHECK_EQ(run(s, 0, 64, &out, &olen), -XEN_EINVAL);                /* nothing */
    free(out);
done:
    free(a);
    free(b);
    free(ab);
    free(ca);
    free(cb);
    free(s);
}

/* Headers patched by hand: a dictionary ID, the reserved bit and block type, a wrong content
 * size or checksum; and frames written out by hand (RLE, raw). */
static void test_headers(void)
{
    uint8_t *data = sample(100, 9, TEXT), *out, p[256];
    size_t clen, olen;
    uint8_t *c = compress(data, 100, "-1", false, &clen);  /* single segment, 1-byte size */

    CHECK(c && clen > 9 && clen < 200 && c[4] == 0x24);
    if (!c || clen <= 9 || clen >= 200 || c[4] != 0x24) {
        free(c);
        free(data);
        return;
    }
    /* a 1-byte dictionary ID after the descriptor: 0 means none, any other is unsupported */
    memcpy(p, c, 4);
    p[4] = c[4] | 1;
    p[5] = 0;
    memcpy(p + 6, c + 5, clen - 5);
    CHECK(decodes_to(p, clen + 1, data, 100));
    p[5] = 77;
    CHECK_EQ(run(p, clen + 1, 100, &out, &olen), -XEN_EOPNOTSUPP);
    free(out);
    memcpy(p, c, clen);
    p[4] |= 8;                                      /* the reserved bit */
    CHECK_EQ(run(p, clen, 100, &out, &olen), -XEN_EINVAL);
    free(out);
    memcpy(p, c, clen);
    p[5] = 101;                                     /* the content size */
    CHECK_EQ(run(p, clen, 200, &out, &olen), -XEN_EINVAL);
    free(out);
    memcpy(p, c, clen);
    p[clen - 1] ^= 0x10;                            /* the checksum */
    CHECK_EQ(run(p, clen, 100, &out, &olen), -XEN_EINVAL);
    free(out);
    memcpy(p, c, clen);
    p[6] |= 6;                                      /* the first block's type: reserved */
    CHECK_EQ(run(p, clen, 100, &out, &olen), -XEN_EINVAL);
    free(out);

    /* FCS 5 (single segment), a last RLE block of 5 'a'; then a raw block "xyz" */
    static const uint8_t rle[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x20, 5, 0x2b, 0, 0, 'a' };
    static const uint8_t raw[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x19, 0, 0, 'x', 'y', 'z' };
    CHECK(decodes_to(rle, sizeof(rle), (const uint8_t *)"aaaaa", 5));
    CHECK(decodes_to(raw, sizeof(raw), (const uint8_t *)"xyz", 3));
    memcpy(p, rle, sizeof(rle));
    p[6] = 0x33;                                    /* 6 bytes: more than the frame's size */
    CHECK_EQ(run(p, sizeof(rle), 64, &out, &olen), -XEN_EINVAL);
    free(out);
    free(c);
    free(data);
}

void test_unzstd(void)
{
    static const size_t sizes[] = { 0, 1, 100, 4096, 70000, 300000 };
    static const char *const levels[] = { "-1", "-3 --no-check", "-19", "--ultra -22" };

    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (unsigned l = 0; l < 4; l++)
            roundtrip(levels[l], l & 1, sizes[i], i * 4 + l, MIXED);
    for (unsigned k = RANDOM; k <= SMALL; k++) {
        roundtrip("-3", false, 200000, k, k);
        roundtrip("-19 --no-check", true, 5000, k, k);
    }
    roundtrip("-3 --zstd=wlog=10", false, 100000, 60, MIXED);             /* 1 KiB blocks at most */
    roundtrip("-19 --zstd=wlog=12", true, 100000, 61, TEXT);
    roundtrip("-1", false, (5u << 20) + 4321, 62, MIXED);                    /* MiBs, many blocks */
    roundtrip("--ultra -22", true, (1u << 20) + 1, 63, MIXED);              /* a kernel's options */
    test_multi();
    test_headers();
}
