/* decompress.h: the kernel-payload decompressors (gzip/deflate, xz/LZMA2, lzma, lz4, lzo, bzip2,
 * zstd), hosted and freestanding. */
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

/* lzo: one lzop stream (`lzop -9`, as CONFIG_KERNEL_LZO builds it), without the 4-byte size the
 * kernel build appends; bytes after its end mark are ignored, as Linux's unlzo does */
int unlzo(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);

/* bzip2: one stream (`bzip2 -1` .. `-9`, as CONFIG_KERNEL_BZIP2 builds it), without the appended
 * size; bytes after its end mark are ignored, as Linux's bunzip2 does. The inverse BWT needs
 * work[0, work_words): 100000 words per level of the stream, BUNZIP2_WORK_WORDS for any (less is
 * -XEN_ENOSPC); randomised blocks are -XEN_EOPNOTSUPP. Not reentrant (static Huffman tables). */
#define BUNZIP2_WORK_WORDS 900000u
int bunzip2(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, uint32_t *work,
            size_t work_words, const char **why);

/* zstd: one or more frames (skippable ones skipped; CONFIG_KERNEL_ZSTD's `zstd -22 --ultra`),
 * without the appended size; a frame that needs a dictionary is -XEN_EOPNOTSUPP. It may use
 * out[*out_len, out_cap) as scratch (a block's literals). */
int unzstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why);

/* lzma2.c: the LZMA2 stream in[0, in_len) (how much of it: *in_used) into out from out_start,
 * out_cap at most (*out_pos: the end); unxz's block decoder */
int lzma2_decode(const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out, size_t out_start,
                 size_t out_cap, size_t *out_pos, const char **why);

/* crc32.c: the CRC-32 of gzip and xz (IEEE 802.3, reflected, 0xedb88320). */
uint32_t crc32_le(const uint8_t *p, size_t n);

#endif
