/* test_decompress.c: gunzip, unxz (with x86 BCJ), unlzma and unlz4 against gzip(1), xz(1) and lz4(1)
 * (legacy frame plus the appended size, as a bzImage has it), truncation at every length,
 * corruption, and undersized output buffers; bzimage_probe on synthetic headers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/bzimage.h"
#include "pv/loader/decompress.h"
#include "filter.h"
#include "harness.h"
#include "shim/xerrno.h"


/* Test data: text, zeros, pseudo-random bytes and x86-like call/jmp instructions. */
static uint8_t *sample(size_t n, unsigned seed)
{
    uint8_t *b = malloc(n);
    uint32_t x = seed * 2654435761u + 1;
    static const char text[] = "the quick brown fox jumps over the lazy dog; PV shim unit test. ";

    for (size_t i = 0; i < n;) {
        x = x * 1103515245u + 12345u;
        unsigned kind = (x >> 16) % 4, run = 16 + (x >> 8) % 200;
        for (unsigned k = 0; k < run && i < n; k++, i++) {
            x = x * 1103515245u + 12345u;
            switch (kind) {
            case 0: b[i] = (uint8_t)text[i % (sizeof(text) - 1)]; break;
            case 1: b[i] = 0; break;
            case 2: b[i] = (uint8_t)(x >> 16); break;
            default: b[i] = (k % 5 == 0) ? (uint8_t)(0xe8 + ((x >> 20) & 1)) : (k % 5 == 4 ? 0 : (uint8_t)(x >> 12)); break;
            }
        }
    }
    return b;
}

typedef int (*decomp_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *, const char **);

/* size_after: append the size as a kernel build does (lz4). cut_ok: a cut stream may decode, if
 * to exactly the data (.lzma: the decoder need not read the last byte of the coder's flush). */
static void roundtrip_opt(const char *cmd, decomp_fn fn, size_t n, unsigned seed, bool exhaustive, bool size_after,
                          bool cut_ok)
{
    uint8_t *data = sample(n, seed), *out = malloc(n + 64);
    size_t clen = 0, olen = 0;
    const char *why = NULL;
    uint8_t *c = ut_filter(data, n, cmd, &clen);

    if (c && size_after) {              /* the kernel build's size_append: 4 bytes, little-endian */
        c = realloc(c, clen + 4);
        for (unsigned k = 0; k < 4; k++)
            c[clen + k] = (uint8_t)(n >> (8 * k));
        clen += 4;
    }

    CHECK(c != NULL);
    if (!c) {
        free(data);
        free(out);
        return;
    }
    CHECK_EQ(fn(c, clen, out, n + 64, &olen, &why), 0);
    CHECK_EQ(olen, n);
    CHECK(olen == n && !memcmp(out, data, n));
    if (fn(c, clen, out, n + 64, &olen, &why) != 0)
        fprintf(stderr, "    %s, %zu bytes: %s\n", cmd, n, why);
    /* a buffer one byte short: -ENOSPC, never an overflow (ASan watches) */
    if (n) {
        uint8_t *tight = malloc(n - 1 ? n - 1 : 1);
        CHECK_EQ(fn(c, clen, tight, n - 1, &olen, &why), -XEN_ENOSPC);
        free(tight);
    }
    /* truncation: every length (or a sample of them) fails cleanly */
    size_t step = exhaustive ? 1 : clen / 97 + 1;
    unsigned ok_trunc = 0;
    for (size_t t = 0; t < clen; t += step) {
        uint8_t *tc = malloc(t ? t : 1);
        memcpy(tc, c, t);
        int rc = fn(tc, t, out, n + 64, &olen, &why);
        ok_trunc += rc != 0 || (cut_ok && olen == n && !memcmp(out, data, n));
        free(tc);
    }
    CHECK_EQ(ok_trunc, (clen + step - 1) / step);
    /* corruption: flip bytes; the result is an error or (rarely) different data, never a crash */
    for (size_t k = 0; k < 200; k++) {
        uint8_t *cc = malloc(clen);
        memcpy(cc, c, clen);
        cc[(k * 7919) % clen] ^= (uint8_t)(1 + k % 255);
        fn(cc, clen, out, n + 64, &olen, &why);
        free(cc);
    }
    free(c);
    free(data);
    free(out);
}

static void roundtrip(const char *cmd, decomp_fn fn, size_t n, unsigned seed, bool exhaustive)
{
    roundtrip_opt(cmd, fn, n, seed, exhaustive, false, false);
}

static void test_bzimage(void)
{
    uint8_t img[4096];
    struct bzimage bz;
    const char *why = "";

    memset(img, 0, sizeof(img));
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), 0);         /* not a bzImage */
    memcpy(img + 0x202, "HdrS", 4);
    img[0x206] = 0x07;
    img[0x207] = 0x02;                                                /* protocol 2.07 */
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), -XEN_EOPNOTSUPP);
    img[0x206] = 0x0f;                                                /* 2.15 */
    img[0x1f1] = 1;                                                   /* setup: 2 sectors = 1024 */
    img[0x248] = 0x10;                                                /* payload at 1024 + 16 */
    img[0x24c] = 0x20;                                                /* 32 bytes */
    memcpy(img + 1040, "\3757zXZ\0", 6);
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), 1);
    CHECK_EQ(bz.format, BZ_XZ);
    CHECK_EQ(bz.payload_len, 32);
    memcpy(img + 1040, "\x5d\x00\x00\x80", 4);                      /* lzma: properties, dictionary */
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), 1);
    CHECK_EQ(bz.format, BZ_LZMA);
    memcpy(img + 1040, "\x02\x21\x4c\x18", 4);                      /* lz4's legacy magic */
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), 1);
    CHECK_EQ(bz.format, BZ_LZ4);
    img[0x24e] = 1;                                                   /* 64 KiB: outside */
    CHECK_EQ(bzimage_probe(img, sizeof(img), &bz, &why), -XEN_EINVAL);
}

void test_decompress(void)
{
    static const unsigned sizes[] = { 0, 1, 100, 4096, 70000, 300000 };

    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        bool small = sizes[i] <= 4096;
        roundtrip("gzip -9 -n", gunzip, sizes[i], i, small);
        roundtrip("gzip -1 -n", gunzip, sizes[i], i + 10, small);
        roundtrip("xz --format=xz --check=crc32 --x86 --lzma2=dict=1MiB", unxz, sizes[i], i, small);
        roundtrip("xz --format=xz --check=crc64 --lzma2=preset=1,lc=0,lp=2,pb=0", unxz, sizes[i], i + 20, small);
        roundtrip("xz --format=xz --check=none --lzma2=preset=9e,lc=4", unxz, sizes[i], i + 30, small);
        roundtrip("xz --format=xz --check=crc32 --block-size=20000 --x86 --lzma2=dict=64KiB", unxz, sizes[i],
                  i + 40, small);
        roundtrip_opt("lz4 -l -9 -c -q", unlz4, sizes[i], i + 50, small, true, false);
        roundtrip_opt("lzma -9 -c", unlzma, sizes[i], i + 80, small, false, true);                 /* from a pipe: size unknown, end marker */
        roundtrip_opt("xz --format=lzma --lzma1=preset=1,lc=1,lp=1,pb=0 -c", unlzma, sizes[i], i + 90, small, false, true);
        roundtrip_opt("lz4 -l -1 -c -q", unlz4, sizes[i], i + 60, small, true, false);
    }
    /* more than one 8 MiB chunk, as a real kernel has */
    roundtrip_opt("lz4 -l -9 -c -q", unlz4, (9u << 20) + 12345, 70, false, true, false);
    test_bzimage();
}
