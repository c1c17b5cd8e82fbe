/*
 * unlzo.c: the LZO payload of a Linux bzImage built with CONFIG_KERNEL_LZO: one lzop stream as
 * `lzop -9` writes it (the caller strips the 4-byte size the kernel build appends).
 *
 * The lzop header: the magic 89 4c 5a 4f 00 0d 0a 1a 0a, then big-endian fields: version,
 * library version, version needed to extract (16 bits each), method and level (8), flags (32),
 * mode, mtime low and high (32 each), the file name (a length byte and the name) and a checksum
 * of the header from the version on (adler32, or CRC-32 if flagged). Blocks follow: the output
 * size (0 ends the stream), the stored size, the checksums the flags ask for (adler32 and/or
 * CRC-32 of the output; of the stored bytes too when they are compressed), then the bytes:
 * stored as they are when both sizes are equal, else an LZO1X block. Each block stands alone.
 * Linux's unlzo stops at the first end mark (no concatenated streams) and takes blocks of at
 * most 256 KiB (lzop's own size); so does this. All the checksums present are verified.
 *
 * An LZO1X block is instructions; the first byte may be a literal run (17 + count), and a 17 then
 * a non-zero byte marks Linux's lzo-rle bitstream (version 1), which Linux's decoder, and so its
 * unlzo, accepts: its zero runs are decoded too. Every instruction is a match (a length, a
 * distance back into the block's output) followed by 0-3 literals, or a long literal run; the
 * number of literals just copied (0, 1-3, 4 or more) gives the short codes (0-15) their meaning:
 *
 *   0000LLLL, after no literals: 3 + L literals (L = 0: 18 + 255 per zero byte + the next byte)
 *   0000DDSS HHHHHHHH, after 1-3: 2 bytes from distance 1 + D + 4H, then S literals
 *   0000DDSS HHHHHHHH, after 4+:  3 bytes from distance 2049 + D + 4H, then S literals
 *   01LDDDSS / 1LLDDDSS HHHHHHHH: 3-4 / 5-8 bytes from distance 1 + D + 8H, then S literals
 *   001LLLLL [ext] DDDDDDSS DDDDDDDD: 2 + L bytes (L = 0: 33 + ext) from distance 1 + D
 *   0001HLLL [ext] DDDDDDSS DDDDDDDD: 2 + L bytes (L = 0: 9 + ext) from 16384 + 16384H + D;
 *     distance 16384 (H = D = 0, L = 1) ends the block. With lzo-rle, H = 1 and D = 0x3fff (read
 *     before any extension) is instead a run of 4 + (L | next byte << 3) zeros.
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define LZOP_HEADER_MIN 38              /* the header with an empty name */
#define LZOP_MAX_BLOCK (256u << 10)     /* a block's output, at most (Linux's limit) */

#define F_ADLER32_D     0x00000001u     /* adler32 of each block's output */
#define F_ADLER32_C     0x00000002u     /* ... and of its compressed bytes */
#define F_H_EXTRA_FIELD 0x00000040u
#define F_CRC32_D       0x00000100u
#define F_CRC32_C       0x00000200u
#define F_MULTIPART     0x00000400u
#define F_H_FILTER      0x00000800u
#define F_H_CRC32       0x00001000u     /* the header's checksum is CRC-32, not adler32 */
#define F_RESERVED      0x000fc000u     /* neither flags, nor the OS byte, nor the charset nibble */

static const uint8_t lzop_magic[9] = { 0x89, 0x4c, 0x5a, 0x4f, 0x00, 0x0d, 0x0a, 0x1a, 0x0a };

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;

    while (n) {
        size_t k = MIN(n, (size_t)5552);        /* the most bytes before b could pass 2^32 */
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

/* A length's extension: each zero byte adds 255, the first non-zero one adds itself and ends it. */
static bool ext_len(const uint8_t *in, size_t n, size_t *i, size_t *len)
{
    while (*i < n && in[*i] == 0) {
        *len += 255;
        (*i)++;
    }
    if (*i >= n)
        return false;
    *len += in[(*i)++];
    return true;
}

/* One LZO1X block in[0, n) to exactly want bytes at out (its matches reach only within it). */
static int lzo1x(const uint8_t *in, size_t n, uint8_t *out, size_t want, const char **why)
{
    size_t i = 0, o = 0, lit = 0, len, dist, next;
    bool rle = false;

    if (n < 3)
        goto corrupt;
    if (n >= 5 && in[0] == 17) {        /* a bitstream version: 0 is plain LZO1X, else lzo-rle */
        rle = in[1] != 0;
        i = 2;
    }
    if (in[i] > 17)
        lit = in[i++] - 17u;            /* the first byte: a literal run */
    for (;;) {
        if (lit > n - i || lit > want - o)
            goto corrupt;
        memcpy(out + o, in + i, lit);
        i += lit;
        o += lit;
        size_t state = MIN(lit, (size_t)4);     /* what the short codes mean next */
        if (i >= n)
            goto corrupt;
        unsigned t = in[i++];
        if (t < 16 && state == 0) {             /* a long literal run */
            lit = t;
            if (t == 0) {
                if (!ext_len(in, n, &i, &lit))
                    goto corrupt;
                lit += 15;
            }
            lit += 3;
            continue;
        }
        if (t < 16) {                           /* a short match; its distance depends on state */
            if (i >= n)
                goto corrupt;
            dist = 1 + (t >> 2) + ((size_t)in[i++] << 2);
            len = 2;
            if (state == 4) {
                dist += 2048;
                len = 3;
            }
            next = t & 3;
        } else if (t >= 64) {
            if (i >= n)
                goto corrupt;
            dist = 1 + ((t >> 2) & 7) + ((size_t)in[i++] << 3);
            len = (t >> 5) + 1;
            next = t & 3;
        } else if (t >= 32) {
            len = t & 31;
            if (len == 0) {
                if (!ext_len(in, n, &i, &len))
                    goto corrupt;
                len += 31;
            }
            len += 2;
            if (n - i < 2)
                goto corrupt;
            dist = 1 + (in[i] >> 2) + ((size_t)in[i + 1] << 6);
            next = in[i] & 3;
            i += 2;
        } else {
            if (rle && (t & 0xf8) == 0x18 && n - i >= 2 && (in[i] & 0xfc) == 0xfc && in[i + 1] == 0xff) {
                if (n - i < 3)
                    goto corrupt;
                len = ((t & 7) | (size_t)in[i + 2] << 3) + 4;    /* a run of zeros */
                if (len > want - o)
                    goto corrupt;
                memset(out + o, 0, len);
                o += len;
                lit = in[i] & 3;
                i += 3;
                continue;
            }
            len = t & 7;
            if (len == 0) {
                if (!ext_len(in, n, &i, &len))
                    goto corrupt;
                len += 7;
            }
            len += 2;
            if (n - i < 2)
                goto corrupt;
            dist = ((size_t)(t & 8) << 11) + (in[i] >> 2) + ((size_t)in[i + 1] << 6);
            next = in[i] & 3;
            i += 2;
            if (dist == 0) {                    /* the end mark: 0x11 0 0, and nothing after */
                if (len != 3 || i != n || o != want)
                    goto corrupt;
                return 0;
            }
            dist += 0x4000;
        }
        if (dist > o || len > want - o)
            goto corrupt;
        if (dist >= len) {
            memcpy(out + o, out + o - dist, len);
        } else {
            for (size_t k = 0; k < len; k++)    /* byte by byte: the match overlaps itself */
                out[o + k] = out[o + k - dist];
        }
        o += len;
        lit = next;
    }
corrupt:
    *why = "lzo: corrupt block";
    return ERR(-XEN_EINVAL);
}

/* The header: what the blocks need of it is the flags; *pos: where the first block starts. */
static int header(const uint8_t *in, size_t in_len, uint32_t *flags, size_t *pos, const char **why)
{
    if (in_len < sizeof(lzop_magic) || memcmp(in, lzop_magic, sizeof(lzop_magic))) {
        *why = "lzo: not an lzop stream";
        return ERR(-XEN_EINVAL);
    }
    if (in_len < LZOP_HEADER_MIN)
        goto truncated;
    unsigned version = (unsigned)in[9] << 8 | in[10];
    if (version < 0x0940) {             /* older headers lack fields Linux's unlzo expects */
        *why = "lzo: lzop header older than version 0.94";
        return ERR(-XEN_EOPNOTSUPP);
    }
    *flags = be32(in + 17);
    if (*flags & F_RESERVED) {
        *why = "lzo: unknown lzop header flags";
        return ERR(-XEN_EINVAL);
    }
    if (*flags & (F_H_FILTER | F_H_EXTRA_FIELD | F_MULTIPART)) {
        *why = "lzo: lzop filter, extra field or multipart stream";
        return ERR(-XEN_EOPNOTSUPP);
    }
    if (in[15] < 1 || in[15] > 3) {     /* LZO1X-1, LZO1X-1(15), LZO1X-999: one decoder */
        *why = "lzo: not an LZO1X method";
        return ERR(-XEN_EOPNOTSUPP);
    }
    size_t i = 33, name = in[i++];      /* after mode and both mtime words */
    if (name + 4 > in_len - i)
        goto truncated;
    i += name;
    uint32_t sum = (*flags & F_H_CRC32) ? crc32_le(in + 9, i - 9) : adler32(in + 9, i - 9);
    if (sum != be32(in + i)) {
        *why = "lzo: lzop header checksum mismatch";
        return ERR(-XEN_EINVAL);
    }
    *pos = i + 4;
    return 0;
truncated:
    *why = "lzo: truncated lzop header";
    return ERR(-XEN_EINVAL);
}

/* The checksums of p[0, n) the flags (f_adler, f_crc) ask for against the ones read at sums. */
static bool sums_match(uint32_t flags, uint32_t f_adler, uint32_t f_crc, const uint8_t **sums,
                       const uint8_t *p, size_t n)
{
    bool ok = true;

    if (flags & f_adler) {
        ok &= adler32(p, n) == be32(*sums);
        *sums += 4;
    }
    if (flags & f_crc) {
        ok &= crc32_le(p, n) == be32(*sums);
        *sums += 4;
    }
    return ok;
}

int unlzo(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    uint32_t flags = 0;
    size_t i = 0, o = 0;

    *out_len = 0;
    int rc = header(in, in_len, &flags, &i, why);
    if (rc)
        return rc;
    for (;;) {
        if (in_len - i < 4)
            goto truncated;
        uint32_t dlen = be32(in + i);
        i += 4;
        if (dlen == 0)
            break;                      /* the end mark; anything after is not ours */
        if (in_len - i < 4)
            goto truncated;
        uint32_t slen = be32(in + i);
        i += 4;
        if (dlen > LZOP_MAX_BLOCK || slen == 0 || slen > dlen) {
            *why = "lzo: bad block sizes";
            return ERR(-XEN_EINVAL);
        }
        bool packed = slen < dlen;
        size_t nsums = !!(flags & F_ADLER32_D) + !!(flags & F_CRC32_D);
        if (packed)
            nsums += !!(flags & F_ADLER32_C) + !!(flags & F_CRC32_C);
        if (nsums * 4 > in_len - i || slen > in_len - i - nsums * 4)
            goto truncated;
        const uint8_t *dsums = in + i, *csums = in + i;
        csums += 4 * (!!(flags & F_ADLER32_D) + !!(flags & F_CRC32_D));
        i += nsums * 4;
        if (packed && !sums_match(flags, F_ADLER32_C, F_CRC32_C, &csums, in + i, slen))
            goto mismatch;
        if (dlen > out_cap - o) {
            *why = "lzo: output larger than its buffer";
            return ERR(-XEN_ENOSPC);
        }
        if (!packed)
            memcpy(out + o, in + i, dlen);
        else if ((rc = lzo1x(in + i, slen, out + o, dlen, why)))
            return rc;
        if (!sums_match(flags, F_ADLER32_D, F_CRC32_D, &dsums, out + o, dlen))
            goto mismatch;
        i += slen;
        o += dlen;
    }
    *out_len = o;
    return 0;
truncated:
    *why = "lzo: truncated stream";
    return ERR(-XEN_EINVAL);
mismatch:
    *why = "lzo: block checksum mismatch";
    return ERR(-XEN_EINVAL);
}
