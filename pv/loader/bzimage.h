/* bzimage.h: finds the compressed kernel inside a Linux bzImage (x86 boot protocol 2.08+). */
#ifndef PV_BZIMAGE_H
#define PV_BZIMAGE_H

#include "shim/lib.h"

enum bz_format { BZ_NONE, BZ_GZIP, BZ_XZ, BZ_LZMA, BZ_LZ4, BZ_LZO, BZ_BZIP2, BZ_ZSTD, BZ_OTHER };

struct bzimage {
    const uint8_t *payload;
    size_t payload_len;
    enum bz_format format;
    uint64_t out_len;                   /* the decompressed size the image claims (its last 4 bytes) */
};

/* 1 if img is a bzImage (then *bz describes it, or *why says what is wrong: return < 0), 0 if not. */
int bzimage_probe(const uint8_t *img, size_t len, struct bzimage *bz, const char **why);
const char *bz_format_name(enum bz_format f);  /* "gzip", "xz", "lzma", "lz4", "lzo", "bzip2", "zstd" or "?" */
/* The work area the format's decoder needs beside its output, in bytes (bzip2's: 3.6 MB). */
size_t bzimage_work_size(const struct bzimage *bz);
/* Decompress bz into out, with work (bzimage_work_size bytes, 4-byte aligned); the same contract
 * as decompress.h. */
int bzimage_decompress(const struct bzimage *bz, uint8_t *out, size_t out_cap, size_t *out_len, void *work,
                       const char **why);

#endif
