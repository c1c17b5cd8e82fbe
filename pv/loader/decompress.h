/* decompress.h: the kernel-payload decompressors (gzip/deflate, xz/LZMA2, lz4), hosted and freestanding. */
#ifndef PV_DECOMPRESS_H
#define PV_DECOMPRESS_H

#include "shim/lib.h"

/*
 * Each decodes a whole stream from in[0, in_len) into out[0, out_cap): 0 and *out_len, or a
 * negative Xen errno and *why (a static string): -XEN_EINVAL for corrupt input, -XEN_ENOSPC if
 * the output does not fit, -XEN_EOPNOTSUPP for a valid but unsupported variant. Neither reads
 * or writes outside the buffers, whatever the input.
 */
int gunzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);
int unxz(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);
/* lzma: the .lzma ("alone") format, as `lzma -9` writes it */
int unlzma(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);
/* lz4: the legacy frame followed by the output's size as 4 bytes little-endian (a bzImage's) */
int unlz4(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);

/* lzma2.c: the LZMA2 stream in[0, in_len) (how much of it: *in_used) into out from out_start,
 * out_cap at most (*out_pos: the end); unxz's block decoder */
int lzma2_decode(const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out, size_t out_start,
                 size_t out_cap, size_t *out_pos, const char **why);

/* crc32.c: the CRC-32 of gzip and xz (IEEE 802.3, reflected, 0xedb88320). */
uint32_t crc32_le(const uint8_t *p, size_t n);

#endif
