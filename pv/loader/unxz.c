/*
 * unxz.c: the .xz container (one stream; its blocks; CRC32 checks) around LZMA2, with the x86
 * BCJ filter that Linux's xz payloads use. Written from the .xz file format specification.
 * Each block's LZMA2 output lands in place in the output buffer; BCJ then runs over it there.
 * CRC32 checks are verified; CRC64 and SHA-256 ones are skipped (the LZMA2 layer is still
 * bounds-checked). The index must list the blocks as decoded, and the footer must match.
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define FILTER_X86   0x04
#define FILTER_LZMA2 0x21
#define CHECK_NONE   0
#define CHECK_CRC32  1

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A variable-length integer: 7 bits a byte, at most 9 bytes, no redundant zero byte. */
static bool vli(const uint8_t *p, size_t len, size_t *used, uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < 9 && i < len; i++) {
        *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (i && !p[i])
                return false;
            *used = i + 1;
            return true;
        }
    }
    return false;
}

/* The x86 BCJ decoder: E8/E9 (call/jmp rel32) operands were made absolute; make them relative. */
static void bcj_x86(uint8_t *buf, size_t size, uint32_t start)
{
    static const bool allowed[8] = { true, true, true, false, true, false, false, false };
    static const uint8_t bitpos[8] = { 0, 1, 2, 2, 3, 3, 3, 3 };
    size_t prev = (size_t)-1;
    uint32_t mask = 0;

    if (size < 5)
        return;
    for (size_t i = 0; i <= size - 5; i++) {
        if ((buf[i] & 0xfe) != 0xe8)
            continue;
        size_t gap = i - prev;
        if (prev == (size_t)-1 || gap > 3) {
            mask = 0;
        } else {
            mask = (mask << (gap - 1)) & 7;
            if (mask) {
                uint8_t b = buf[i + 4 - bitpos[mask]];
                if (!allowed[mask] || b == 0 || b == 0xff) {
                    prev = i;
                    mask = (mask << 1) | 1;
                    continue;
                }
            }
        }
        prev = i;
        if (buf[i + 4] == 0 || buf[i + 4] == 0xff) {
            uint32_t src = le32(buf + i + 1), dest;
            for (;;) {
                dest = src - (start + (uint32_t)i + 5);
                if (!mask)
                    break;
                unsigned j = bitpos[mask] * 8;
                uint8_t b = (uint8_t)(dest >> (24 - j));
                if (b != 0 && b != 0xff)
                    break;
                src = dest ^ ((1u << (32 - j)) - 1);
            }
            dest &= 0x01ffffff;
            dest |= 0u - (dest & 0x01000000);
            buf[i + 1] = (uint8_t)dest;
            buf[i + 2] = (uint8_t)(dest >> 8);
            buf[i + 3] = (uint8_t)(dest >> 16);
            buf[i + 4] = (uint8_t)(dest >> 24);
            i += 4;
            mask = 0;
        } else {
            mask = (mask << 1) | 1;
        }
    }
}

static int bad(const char **why, const char *msg)
{
    *why = msg;
    return ERR(-XEN_EINVAL);
}

struct block_hdr {
    size_t size;
    bool has_csize, has_usize, bcj;
    uint64_t csize, usize;
    uint32_t bcj_start;
};

static int block_header(const uint8_t *p, size_t len, struct block_hdr *h, const char **why)
{
    size_t off = 2, n;
    uint64_t id, psize;

    memset(h, 0, sizeof(*h));
    h->size = ((size_t)p[0] + 1) * 4;
    if (h->size > len || h->size < 8)
        return bad(why, "xz: truncated block header");
    if (crc32_le(p, h->size - 4) != le32(p + h->size - 4))
        return bad(why, "xz: block header CRC32 mismatch");
    uint8_t flags = p[1];
    if (flags & 0x3c)
        return bad(why, "xz: reserved block flags set");
    unsigned nfilters = (flags & 3) + 1;
    size_t end = h->size - 4;
    if ((h->has_csize = flags & 0x40)) {
        if (!vli(p + off, end - off, &n, &h->csize) || !h->csize)
            return bad(why, "xz: bad compressed size");
        off += n;
    }
    if ((h->has_usize = flags & 0x80)) {
        if (!vli(p + off, end - off, &n, &h->usize))
            return bad(why, "xz: bad uncompressed size");
        off += n;
    }
    for (unsigned f = 0; f < nfilters; f++) {
        if (!vli(p + off, end - off, &n, &id))
            return bad(why, "xz: bad filter id");
        off += n;
        if (!vli(p + off, end - off, &n, &psize) || psize > end - off - n)
            return bad(why, "xz: bad filter properties");
        off += n;
        bool last = f == nfilters - 1;
        if (id == FILTER_LZMA2 && last && psize == 1) {
            if ((p[off] & 0x3f) > 40)
                return bad(why, "xz: LZMA2 dictionary size out of range");
        } else if (id == FILTER_X86 && !last && !h->bcj && (psize == 0 || psize == 4)) {
            h->bcj = true;
            h->bcj_start = psize ? le32(p + off) : 0;
        } else {
            *why = "xz: unsupported filter chain (only [x86 BCJ,] LZMA2)";
            return ERR(-XEN_EOPNOTSUPP);
        }
        off += psize;
    }
    for (; off < end; off++)
        if (p[off])
            return bad(why, "xz: non-zero block header padding");
    return 0;
}

#define MAX_BLOCKS 4096

struct record {
    uint64_t unpadded, usize;
};

/* The index at in[p]: the blocks' sizes, then the footer; both must agree with what we decoded. */
static int index_and_footer(const uint8_t *in, size_t in_len, size_t p, const struct record *rec, size_t nrec,
                            const uint8_t *flags, const char **why)
{
    size_t start = p++, n;
    uint64_t count, v;

    if (!vli(in + p, in_len - p, &n, &count) || count != nrec)
        return bad(why, "xz: the index does not list the blocks decoded");
    p += n;
    for (size_t i = 0; i < nrec; i++) {
        if (!vli(in + p, in_len - p, &n, &v) || v != rec[i].unpadded)
            return bad(why, "xz: the index disagrees with a block's size");
        p += n;
        if (!vli(in + p, in_len - p, &n, &v) || v != rec[i].usize)
            return bad(why, "xz: the index disagrees with a block's size");
        p += n;
    }
    while ((p - start) & 3) {
        if (p >= in_len || in[p])
            return bad(why, "xz: bad index padding");
        p++;
    }
    if (in_len - p < 4 + 12 || crc32_le(in + start, p - start) != le32(in + p))
        return bad(why, "xz: index CRC32 mismatch or truncated footer");
    const uint8_t *f = in + p + 4;
    if (crc32_le(f + 4, 6) != le32(f) || ((uint64_t)le32(f + 4) + 1) * 4 != p - start + 4 ||
        memcmp(f + 8, flags, 2) || memcmp(f + 10, "YZ", 2))
        return bad(why, "xz: bad stream footer");
    return 0;
}

int unxz(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    static struct record rec[MAX_BLOCKS];
    size_t nrec = 0;
    static const size_t check_size[16] = { 0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64 };
    size_t p = 12, o = 0;
    int rc;

    *out_len = 0;
    *why = "";
    if (in_len < 12 + 12 || memcmp(in, "\3757zXZ\0", 6))
        return bad(why, "not an xz stream");
    if (in[6] != 0 || (in[7] & 0xf0) || crc32_le(in + 6, 2) != le32(in + 8))
        return bad(why, "xz: bad stream flags");
    unsigned check = in[7];
    for (;;) {
        if (p >= in_len)
            return bad(why, "xz: input ends before the index");
        if (in[p] == 0) {               /* the index: all blocks done */
            if ((rc = index_and_footer(in, in_len, p, rec, nrec, in + 6, why)))
                return rc;
            break;
        }
        if (nrec == MAX_BLOCKS)
            return bad(why, "xz: too many blocks");
        struct block_hdr h;
        if ((rc = block_header(in + p, in_len - p, &h, why)))
            return rc;
        size_t bstart = p, used, o_end;
        p += h.size;
        if ((rc = lzma2_decode(in + p, in_len - p, &used, out, o, out_cap, &o_end, why)))
            return rc;
        if ((h.has_csize && h.csize != used) || (h.has_usize && h.usize != o_end - o))
            return bad(why, "xz: block sizes differ from its header");
        p += used;
        rec[nrec++] = (struct record){ p - bstart + check_size[check], o_end - o };
        while ((p - bstart) & 3) {
            if (p >= in_len || in[p])
                return bad(why, "xz: bad block padding");
            p++;
        }
        if (in_len - p < check_size[check])
            return bad(why, "xz: truncated block check");
        if (h.bcj)
            bcj_x86(out + o, o_end - o, h.bcj_start);
        if (check == CHECK_CRC32 && crc32_le(out + o, o_end - o) != le32(in + p))
            return bad(why, "xz: block CRC32 mismatch");
        p += check_size[check];
        o = o_end;
    }
    *out_len = o;
    return 0;
}
