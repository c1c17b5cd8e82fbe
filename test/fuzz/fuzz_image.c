/*
 * fuzz_image.c: libFuzzer target for the shim's kernel-image path, the code a hostile image reaches
 * first: bzImage header -> compressed payload (gzip, bzip2, lzma, xz, lzo, lz4, zstd) -> ELF64 + Xen
 * notes -> BSD_SYMTAB's blob, written into a bounded buffer. The input is also tried as a raw stream
 * of each format (by its magic) and as an ELF, so every decoder is reached from any seed. Decoded
 * output is bounded at 4 MiB here (the shim bounds it by the image's own claim and PV_IMAGE_MAX_ELF).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/bzimage.h"
#include "pv/loader/decompress.h"
#include "pv/loader/elf.h"

#define OUT_CAP (4u << 20)

static uint8_t out[OUT_CAP];
static uint32_t work[BUNZIP2_WORK_WORDS];
static uint8_t blob[2 * OUT_CAP + 4096];        /* the header and two tables of at most OUT_CAP each */

/* The blob's bytes must land inside [bsd.start, bsd.end), itself inside the image's span. */
static void put(void *ctx, uint64_t pa, const void *src, uint64_t n)
{
    const struct pv_elf *e = ctx;

    if (pa < e->bsd.start || n > e->bsd.end - pa || e->bsd.end > e->pend || pa - e->bsd.start + n > sizeof(blob))
        abort();
    if (src)
        memcpy(blob + (pa - e->bsd.start), src, n);
    else
        memset(blob + (pa - e->bsd.start), 0, n);
}

static void parse(const uint8_t *img, size_t n)
{
    struct pv_elf elf;

    if (pv_elf_parse(&elf, img, n) == 0)
        pv_bsdsyms_load(&elf, put, &elf);
}

static int raw_bunzip2(const uint8_t *in, size_t in_len, uint8_t *o, size_t cap, size_t *n, const char **why)
{
    return bunzip2(in, in_len, o, cap, n, work, BUNZIP2_WORK_WORDS, why);
}

/* A raw stream of each format, by its magic. */
static const struct {
    const char *magic;
    size_t len;
    int (*fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *, const char **);
} raw[] = {
    { "\x1f\x8b", 2, gunzip },
    { "\3757zXZ\0", 6, unxz },
    { "\x89LZO\0\r\n\x1a\n", 9, unlzo },
    { "BZh", 3, raw_bunzip2 },
    { "\x28\xb5\x2f\xfd", 4, unzstd },
    { "\x02\x21\x4c\x18", 4, unlz4 },
    { "\x5d\0", 2, unlzma },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bzimage bz;
    const char *why = "";
    size_t n = 0;

    if (bzimage_probe(data, size, &bz, &why) == 1) {
        size_t cap = bz.out_len < OUT_CAP ? (size_t)bz.out_len : OUT_CAP;
        if (bzimage_decompress(&bz, out, cap, &n, work, &why) == 0)
            parse(out, n);
        return 0;
    }
    for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
        if (size >= raw[i].len && !memcmp(data, raw[i].magic, raw[i].len)) {
            if (raw[i].fn(data, size, out, OUT_CAP, &n, &why) == 0)
                parse(out, n);
            return 0;
        }
    }
    parse(data, size);
    return 0;
}

/* The shim's debug.h hooks, for the hosted build. */
void assert_failed(const char *expr, const char *file, int line);
void trace_error(int err, const char *why, const char *file, int line);

void assert_failed(const char *expr, const char *file, int line)
{
    (void)expr, (void)file, (void)line;
    abort();
}

void trace_error(int err, const char *why, const char *file, int line)
{
    (void)err, (void)why, (void)file, (void)line;
}
