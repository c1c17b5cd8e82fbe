/*
 * fuzz_image.c: libFuzzer target for the shim's kernel-image path, the code a hostile image reaches
 * first: bzImage header -> gzip/xz payload -> ELF64 + Xen notes. The input is also tried as a raw
 * gzip or xz stream and as an ELF, so every decoder is reached from any seed. Decoded output is
 * bounded at 4 MiB here (the shim bounds it by the image's own claim and PV_IMAGE_MAX_ELF).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pv/loader/bzimage.h"
#include "pv/loader/decompress.h"
#include "pv/loader/elf.h"

#define OUT_CAP (4u << 20)

static uint8_t out[OUT_CAP];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pv_elf elf;
    struct bzimage bz;
    const char *why = "";
    size_t n = 0;

    if (bzimage_probe(data, size, &bz, &why) == 1) {
        size_t cap = bz.out_len < OUT_CAP ? (size_t)bz.out_len : OUT_CAP;
        if (bzimage_decompress(&bz, out, cap, &n, &why) == 0)
            pv_elf_parse(&elf, out, n);
        return 0;
    }
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        if (gunzip(data, size, out, OUT_CAP, &n, &why) == 0)
            pv_elf_parse(&elf, out, n);
        return 0;
    }
    if (size >= 6 && !memcmp(data, "\3757zXZ\0", 6)) {
        if (unxz(data, size, out, OUT_CAP, &n, &why) == 0)
            pv_elf_parse(&elf, out, n);
        return 0;
    }
    pv_elf_parse(&elf, data, size);
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
