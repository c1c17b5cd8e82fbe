/* test_unlzo_bunzip2.c: unlzo and bunzip2 against lzop(1) and bzip2(1) at their fastest and best
 * levels, from empty to several MiB (many blocks; zero runs short and very long, byte runs around
 * bzip2's four-and-a-count step, text, random and x86-like bytes), truncation at every length of
 * the small streams, single-byte corruption, undersized output and work buffers, two streams
 * concatenated (the first is decoded, as Linux does), lzop's optional checksums and lzo-rle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/decompress.h"
#include "filter.h"
#include "harness.h"
#include "shim/xerrno.h"

typedef int (*decomp_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *, const char **);

static uint32_t *bz_work;
static size_t bz_words = BUNZIP2_WORK_WORDS;

static int bz(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *olen, const char **why)
{
    return bunzip2(in, n, out, cap, olen, bz_work, bz_words, why);
}


/* Text, zeros (short and very long runs), pseudo-random bytes, x86-like call/jmp instructions
 * and runs of one byte of 1-9 and 250-600 (either side of bzip2's 4 + count, and its 255 cap). */
static uint8_t *sample(size_t n, unsigned seed)
{
    uint8_t *b = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    static const char text[] = "the quick brown fox jumps over the lazy dog; PV shim unit test. ";

    for (size_t i = 0; i < n;) {
        x = x * 1103515245u + 12345u;
        unsigned kind = (x >> 16) % 7, run = 16 + (x >> 8) % 200;
        uint8_t v = (uint8_t)(x >> 4);
        if (kind == 4)
            run = 1 + (x >> 9) % 9;
        else if (kind == 5)
            run = 250 + (x >> 9) % 350;
        else if (kind == 6)
            run = (x >> 9) % 8 ? 16 : 1000 + (x >> 12) % 100000;
        for (unsigned k = 0; k < run && i < n; k++, i++) {
            x = x * 1103515245u + 12345u;
            switch (kind) {
            case 0: b[i] = (uint8_t)text[i % (sizeof(text) - 1)]; break;
            case 1: case 6: b[i] = 0; break;
            case 2: b[i] = (uint8_t)(x >> 16); break;
            case 3: b[i] = (k % 5 == 0) ? (uint8_t)(0xe8 + ((x >> 20) & 1)) : (k % 5 == 4 ? 0 : (uint8_t)(x >> 12)); break;
            default: b[i] = v; break;
            }
        }
    }
    return b;
}

/* Decode c as fn must: to exactly data[0, n); -ENOSPC one byte short; every truncation sampled
 * (step 1: all) fails; flipped bytes give an error or other data, never a crash (ASan watches). */
static void check_stream(const char *what, decomp_fn fn, const uint8_t *c, size_t clen, const uint8_t *data,
                         size_t n, size_t step, unsigned flips)
{
    uint8_t *out = malloc(n + 64);
    size_t olen = 0;
    const char *why = NULL;

    int rc = fn(c, clen, out, n + 64, &olen, &why);
    CHECK_EQ(rc, 0);
    CHECK_EQ(olen, n);
    CHECK(olen == n && !memcmp(out, data, n));
    if (rc != 0)
        fprintf(stderr, "    %s, %zu bytes: %s\n", what, n, why);
    if (n) {
        uint8_t *tight = malloc(n - 1 ? n - 1 : 1);
        CHECK_EQ(fn(c, clen, tight, n - 1, &olen, &why), -XEN_ENOSPC);
        free(tight);
    }
    unsigned failed = 0, tries = 0;
    for (size_t t = 0; t < clen; t += step, tries++) {
        uint8_t *tc = malloc(t ? t : 1);
        memcpy(tc, c, t);
        rc = fn(tc, t, out, n + 64, &olen, &why);
        failed += rc == -XEN_EINVAL;
        free(tc);
    }
    CHECK_EQ(failed, tries);
    uint8_t *cc = malloc(clen);
    for (unsigned k = 0; k < flips; k++) {
        memcpy(cc, c, clen);
        cc[(k * 7919u) % clen] ^= (uint8_t)(1 + k % 255);
        rc = fn(cc, clen, out, n + 64, &olen, &why);
        CHECK(rc == 0 || rc == -XEN_EINVAL || rc == -XEN_ENOSPC || rc == -XEN_EOPNOTSUPP);
    }
    free(cc);
    free(out);
}

static void roundtrip(const char *cmd, decomp_fn fn, size_t n, unsigned seed)
{
    uint8_t *data = sample(n, seed);
    size_t clen = 0;
    uint8_t *c = ut_filter(data, n, cmd, &clen);

    CHECK(c != NULL);
    if (c) {
        bool small = n <= 4096, big = n > (1u << 20);
        check_stream(cmd, fn, c, clen, data, n, small ? 1 : clen / (big ? 5 : 61) + 1, big ? 8 : 150);
    }
    free(c);
    free(data);
}

/* Two streams back to back: Linux's decoders stop after the first, and so do these. */
static void concatenated(const char *cmd, decomp_fn fn)
{
    uint8_t *a = sample(50000, 1), *b = sample(20000, 2), *out = malloc(70064);
    size_t la = 0, lb = 0, olen = 0;
    const char *why = NULL;
    uint8_t *ca = ut_filter(a, 50000, cmd, &la), *cb = ut_filter(b, 20000, cmd, &lb);

    CHECK(ca && cb);
    if (ca && cb) {
        uint8_t *cc = malloc(la + lb);
        memcpy(cc, ca, la);
        memcpy(cc + la, cb, lb);
        CHECK_EQ(fn(cc, la + lb, out, 70064, &olen, &why), 0);
        CHECK(olen == 50000 && !memcmp(out, a, 50000));
        free(cc);
    }
    free(ca);
    free(cb);
    free(a);
    free(b);
    free(out);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t adler(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

/* lzop -9 output rewritten with F_ADLER32_C (lzop writes it only at a higher checksum level):
 * the flag, the header's checksum, and each compressed block's adler32 after the data's. */
static uint8_t *add_csums(const uint8_t *c, size_t clen, size_t *nlen)
{
    uint8_t *d = malloc(clen * 2 + 64);
    size_t hl = 34 + c[33];             /* header (from stdin: lzop 1.04's layout) to its checksum */
    size_t i = hl + 4, o = hl + 4;

    memcpy(d, c, hl);
    put32(d + 17, get32(c + 17) | 2);
    put32(d + hl, adler(d + 9, hl - 9));
    for (;;) {
        uint32_t dl = get32(c + i), sl;
        memcpy(d + o, c + i, 4);
        i += 4, o += 4;
        if (!dl)
            break;
        sl = get32(c + i);
        memcpy(d + o, c + i, 8);        /* size and the data's adler32 */
        i += 8, o += 8;
        if (sl < dl) {
            put32(d + o, adler(c + i, sl));
            o += 4;
        }
        memcpy(d + o, c + i, sl);
        i += sl, o += sl;
    }
    *nlen = o;
    return d;
}

/* One hand-made lzop block around an LZO block (for lzo-rle, which lzop does not write). */
static size_t lzop_wrap(uint8_t *s, const uint8_t *blk, size_t blen, const uint8_t *data, size_t n)
{
    static const uint8_t head[] = { 0x89, 0x4c, 0x5a, 0x4f, 0x00, 0x0d, 0x0a, 0x1a, 0x0a, 0x10, 0x40, 0x20, 0xa0,
                                    0x09, 0x40, 3, 9, 0x03, 0, 0, 0x01, 0, 0, 0x81, 0xa4, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    size_t o = sizeof(head);

    memcpy(s, head, o);
    put32(s + o, adler(s + 9, o - 9));
    put32(s + o + 4, (uint32_t)n);
    put32(s + o + 8, (uint32_t)blen);
    put32(s + o + 12, adler(data, n));
    memcpy(s + o + 16, blk, blen);
    put32(s + o + 16 + blen, 0);
    return o + 20 + blen;
}

static void lzo_rle(void)
{
    /* version 1; 4 literals; a run of 4 + (0 | 12 << 3) = 100 zeros; two literals after a
     * 3-byte match at distance 2 ... then the end mark */
    static const uint8_t blk[] = { 0x11, 0x01, 0x15, 'a', 'b', 'c', 'd', 0x18, 0xfc, 0xff, 0x0c,
                                   0x40 | 0x04 | 0x02, 0x00, 'x', 'y', 0x11, 0x00, 0x00 };
    uint8_t want[110], s[128], out[128], plain[sizeof(blk)];
    size_t olen = 0;
    const char *why = NULL;

    memcpy(want, "abcd", 4);
    memset(want + 4, 0, 100);
    memcpy(want + 104, "\0\0\0xy", 5);  /* 3 bytes from distance 2: zeros */
    size_t n = lzop_wrap(s, blk, sizeof(blk), want, 109);
    CHECK_EQ(unlzo(s, n, out, sizeof(out), &olen, &why), 0);
    CHECK(olen == 109 && !memcmp(out, want, 109));
    memcpy(plain, blk, sizeof(blk));    /* version 0: the run's code is a match out of reach */
    plain[1] = 0;
    n = lzop_wrap(s, plain, sizeof(plain), want, 109);
    CHECK_EQ(unlzo(s, n, out, sizeof(out), &olen, &why), -XEN_EINVAL);
}

void test_unlzo(void)
{
    static const size_t sizes[] = { 0, 1, 100, 4096, 70000, 300000, (3u << 20) + 777 };

    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        roundtrip("lzop -9 -c", unlzo, sizes[i], i);
        roundtrip("lzop -1 -c", unlzo, sizes[i], i + 10);
        if (sizes[i] <= 300000)
            roundtrip("lzop -9 -c --crc32", unlzo, sizes[i], i + 20);
    }
    concatenated("lzop -9 -c", unlzo);

    /* the compressed blocks' checksums: verified, and a flipped stored byte is caught */
    uint8_t *data = sample(600000, 33);
    size_t clen = 0, nlen = 0, olen = 0;
    const char *why = NULL;
    uint8_t *c = ut_filter(data, 600000, "lzop -9 -c", &clen), *out = malloc(600000);
    CHECK(c != NULL);
    if (c) {
        uint8_t *d = add_csums(c, clen, &nlen);
        check_stream("lzop -9 + F_ADLER32_C", unlzo, d, nlen, data, 600000, nlen / 13 + 1, 40);
        d[nlen / 2] ^= 0x10;
        CHECK_EQ(unlzo(d, nlen, out, 600000, &olen, &why), -XEN_EINVAL);
        c[20] ^= 0x20;                  /* a header flag: the header checksum catches it */
        CHECK_EQ(unlzo(c, clen, out, 600000, &olen, &why), -XEN_EINVAL);
        free(d);
    }
    free(c);
    free(out);
    free(data);
    lzo_rle();
}

void test_bunzip2(void)
{
    static const size_t sizes[] = { 0, 1, 100, 4096, 70000, 300000, (3u << 20) + 777 };
    size_t clen = 0, olen = 0;
    const char *why = NULL;

    bz_work = malloc(BUNZIP2_WORK_WORDS * sizeof(uint32_t));
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        roundtrip("bzip2 -9 -c", bz, sizes[i], i + 40);
        roundtrip("bzip2 -1 -c", bz, sizes[i], i + 50);
    }
    roundtrip("bzip2 -5 -c", bz, 1200000, 60);
    concatenated("bzip2 -9 -c", bz);

    /* 6 MiB of zeros: the first step's runs make it two 100k blocks of long RUNA/RUNB runs */
    uint8_t *z = calloc(6u << 20, 1), *out = malloc(6u << 20);
    uint8_t *c = ut_filter(z, 6u << 20, "bzip2 -1 -c", &clen);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ(bz(c, clen, out, 6u << 20, &olen, &why), 0);
        CHECK(olen == 6u << 20 && !memcmp(out, z, 6u << 20));
        CHECK_EQ(bz(c, clen, out, (6u << 20) - 1, &olen, &why), -XEN_ENOSPC);
    }
    free(c);

    /* the work area: the level's block size or more, else -ENOSPC before anything is decoded */
    uint8_t *data = sample(250000, 61);
    c = ut_filter(data, 250000, "bzip2 -2 -c", &clen);
    CHECK(c != NULL);
    if (c) {
        bz_words = 200000;
        CHECK_EQ(bz(c, clen, out, 250000, &olen, &why), 0);
        CHECK(olen == 250000 && !memcmp(out, data, 250000));
        bz_words = 199999;
        CHECK_EQ(bz(c, clen, out, 250000, &olen, &why), -XEN_ENOSPC);
        bz_words = BUNZIP2_WORK_WORDS;
        c[14] |= 0x80;                  /* the first block's randomised bit */
        CHECK_EQ(bz(c, clen, out, 250000, &olen, &why), -XEN_EOPNOTSUPP);
        c[3] = '0';                     /* level 0 does not exist */
        CHECK_EQ(bz(c, clen, out, 250000, &olen, &why), -XEN_EINVAL);
    }
    free(c);
    free(data);
    free(z);
    free(out);
    free(bz_work);
    bz_work = NULL;
}
