/*
 * unzstd.c: a zstd (RFC 8878) decoder, for the payload of a bzImage built with CONFIG_KERNEL_ZSTD
 * (`zstd -22 --ultra` from a pipe: one frame, a checksum, no content size), into one flat buffer.
 *
 * A frame is a magic, a header (window size or "single segment", dictionary ID, content size,
 * checksum flag), blocks (raw, RLE, or compressed: a literals section, raw, RLE or Huffman-coded,
 * then sequences of literal length, offset and match length codes, FSE-coded with extra bits),
 * and the low 32 bits of the XXH64 of its output. The output doubles as the window: a match may
 * reach back to the frame's start. A block's literals are decoded into the end of the output
 * buffer: the block's output grows toward them, and could only reach one not yet used if it were
 * not to fit anyway, which is checked as that. Huffman and FSE tables and the three repeat offsets
 * carry from block to block within a frame. The entropy decoders are in zstd_entropy.c,
 * the sequences in zstd_seq.c.
 */
#include "pv/loader/decompress.h"
#include "pv/loader/zstd.h"

#define ZSTD_MAGIC  0xfd2fb528u
#define SKIP_MAGIC  0x184d2a50u         /* and the next 15: skippable frames */

struct zstd zstd_dec;

struct frame_hdr {
    uint64_t fcs;
    bool has_fcs, check;
};

static uint64_t le_n(const uint8_t *p, unsigned n)     /* n <= 8 bytes */
{
    uint64_t v = 0;

    for (unsigned k = 0; k < n; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* XXH64, seed 0, from its specification: four lanes over 32-byte stripes, then the tail. */
#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull
#define P4 0x85ebca77c2b2ae63ull
#define P5 0x27d4eb2f165667c5ull

static uint64_t rotl64(uint64_t x, unsigned r)
{
    return x << r | x >> (64 - r);
}

static uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
    return rotl64(acc + lane * P2, 31) * P1;
}

static uint64_t xxh64(const uint8_t *p, size_t n)
{
    size_t i = 0;
    uint64_t h;

    if (n >= 32) {
        uint64_t v[4] = { P1 + P2, P2, 0, 0 - P1 };
        for (; n - i >= 32; i += 32)
            for (unsigned k = 0; k < 4; k++)
                v[k] = xxh_round(v[k], zle64(p + i + 8 * k));
        h = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18);
        for (unsigned k = 0; k < 4; k++)
            h = (h ^ xxh_round(0, v[k])) * P1 + P4;
    } else {
        h = P5;
    }
    h += n;
    for (; n - i >= 8; i += 8)
        h = rotl64(h ^ xxh_round(0, zle64(p + i)), 27) * P1 + P4;
    if (n - i >= 4) {
        h = rotl64(h ^ zle32(p + i) * P1, 23) * P2 + P3;
        i += 4;
    }
    for (; i < n; i++)
        h = rotl64(h ^ p[i] * P5, 11) * P1;
    h = (h ^ h >> 33) * P2;
    h = (h ^ h >> 29) * P3;
    return h ^ h >> 32;
}

/* The literals section at in[0, n): *used bytes; the literals (decoded if need be) to lit. */
static int literals(const uint8_t *in, size_t n, struct lits *lit, size_t *used, const char **why)
{
    if (n == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: literals section missing");
    unsigned type = in[0] & 3u, sf = (in[0] >> 2) & 3u, hdr;
    size_t regen, csize = 0;
    if (type < 2) {                     /* raw, RLE: a size of 5, 12 or 20 bits */
        hdr = (sf & 1) ? sf / 2 + 2 : 1;
        if (n < hdr)
            return ZFAIL(why, -XEN_EINVAL, "zstd: literals header truncated");
        regen = (size_t)(le_n(in, hdr) >> (hdr == 1 ? 3 : 4));
    } else {                            /* Huffman: two sizes of 10, 14 or 18 bits */
        hdr = sf < 2 ? 3 : sf + 2;
        unsigned bits = sf < 2 ? 10 : 4 * sf + 6;
        if (n < hdr)
            return ZFAIL(why, -XEN_EINVAL, "zstd: literals header truncated");
        uint64_t v = le_n(in, hdr) >> 4, mask = (1u << bits) - 1;
        regen = (size_t)(v & mask);
        csize = (size_t)(v >> bits & mask);
    }
    if (regen > zstd_dec.block_max)
        return ZFAIL(why, -XEN_EINVAL, "zstd: literals larger than a block");
    if (regen > zstd_dec.cap - zstd_dec.pos)
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    uint8_t *tail = zstd_dec.out + zstd_dec.cap - regen;
    lit->left = regen;
    lit->p = tail;
    if (type == 0) {
        if (regen > n - hdr)
            return ZFAIL(why, -XEN_EINVAL, "zstd: raw literals truncated");
        lit->p = in + hdr;
        *used = hdr + regen;
        return 0;
    }
    if (type == 1) {
        if (n == hdr)
            return ZFAIL(why, -XEN_EINVAL, "zstd: RLE literals truncated");
        memset(tail, in[hdr], regen);
        *used = hdr + 1;
        return 0;
    }
    if (csize > n - hdr)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman literals truncated");
    size_t tree = 0;
    if (type == 2) {
        int rc = zhuf_read(&zstd_dec.huf, in + hdr, csize, &tree, why);
        if (rc)
            return rc;
    } else if (!zstd_dec.huf.ok) {
        return ZFAIL(why, -XEN_EINVAL, "zstd: treeless literals without an earlier tree");
    }
    *used = hdr + csize;
    return zhuf_decode(&zstd_dec.huf, in + hdr + tree, csize - tree, tail, regen, sf != 0, why);
}

/* A compressed block in[0, n). Its literals fit in what it may write (checked first), and its
 * sequences keep room for those still to come. */
static int compressed_block(const uint8_t *in, size_t n, const char **why)
{
    struct lits lit;
    size_t used;
    int rc;

    zstd_dec.end = zstd_dec.pos + MIN(zstd_dec.block_max, zstd_dec.cap - zstd_dec.pos);
    rc = literals(in, n, &lit, &used, why);
    if (!rc)
        rc = zstd_sequences(in + used, n - used, &lit, why);
    if (rc)
        return rc;
    memmove(zstd_dec.out + zstd_dec.pos, lit.p, lit.left);  /* the literals after the last sequence */
    zstd_dec.pos += lit.left;
    return 0;
}

/* The block at in[*i, n): its 3-byte header (last flag, type, size), then its content. */
static int block(const uint8_t *in, size_t n, size_t *i, bool *last, const char **why)
{
    if (n - *i < 3)
        return ZFAIL(why, -XEN_EINVAL, "zstd: block header truncated");
    uint32_t bh = (uint32_t)le_n(in + *i, 3);
    unsigned type = (bh >> 1) & 3;
    size_t size = bh >> 3, len = type == 1 ? 1 : size;
    *last = bh & 1;
    *i += 3;
    if (type == 3)
        return ZFAIL(why, -XEN_EINVAL, "zstd: reserved block type");
    if (size > zstd_dec.block_max)
        return ZFAIL(why, -XEN_EINVAL, "zstd: block larger than its frame allows");
    if (len > n - *i)
        return ZFAIL(why, -XEN_EINVAL, "zstd: block truncated");
    const uint8_t *p = in + *i;
    *i += len;
    if (type == 2)
        return compressed_block(p, size, why);
    if (size > zstd_dec.cap - zstd_dec.pos)
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    if (type == 0)
        memcpy(zstd_dec.out + zstd_dec.pos, p, size);
    else
        memset(zstd_dec.out + zstd_dec.pos, p[0], size);
    zstd_dec.pos += size;
    return 0;
}

/* The frame header at in[*i, n), after the magic. */
static int frame_header(const uint8_t *in, size_t n, size_t *i, struct frame_hdr *h, const char **why)
{
    static const uint8_t did_len[4] = { 0, 1, 2, 4 }, fcs_len[4] = { 0, 2, 4, 8 };

    if (*i == n)
        return ZFAIL(why, -XEN_EINVAL, "zstd: frame header truncated");
    unsigned fhd = in[(*i)++];
    bool single = fhd & 0x20;
    unsigned dl = did_len[fhd & 3], fl = fcs_len[fhd >> 6] + (single && fhd >> 6 == 0);
    if (fhd & 8)
        return ZFAIL(why, -XEN_EINVAL, "zstd: frame header reserved bit set");
    if (n - *i < !single + dl + fl)
        return ZFAIL(why, -XEN_EINVAL, "zstd: frame header truncated");
    uint64_t window = 0;
    if (!single) {                      /* 2^(10 + exponent), plus eighths of it */
        unsigned wd = in[(*i)++];
        window = 1ull << (10 + (wd >> 3));
        window += (window >> 3) * (wd & 7);
    }
    uint64_t dict = le_n(in + *i, dl);
    *i += dl;
    h->fcs = le_n(in + *i, fl) + (fl == 2 ? 256 : 0);
    *i += fl;
    h->has_fcs = fl != 0;
    h->check = fhd & 4;
    if (dict != 0)
        return ZFAIL(why, -XEN_EOPNOTSUPP, "zstd: the frame needs a dictionary");
    zstd_dec.block_max = (size_t)MIN(single ? h->fcs : window, (uint64_t)ZSTD_BLOCK_MAX);
    if (h->has_fcs && h->fcs > zstd_dec.cap - zstd_dec.pos)
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    return 0;
}

/* The frame at in[*i, n), after its magic: header, blocks, checksum. */
static int frame(const uint8_t *in, size_t n, size_t *i, const char **why)
{
    struct frame_hdr h;
    int rc = frame_header(in, n, i, &h, why);

    if (rc)
        return rc;
    zstd_dec.frame = zstd_dec.pos;
    zstd_dec.rep[0] = 1;
    zstd_dec.rep[1] = 4;
    zstd_dec.rep[2] = 8;
    zstd_dec.ll.ok = zstd_dec.of.ok = zstd_dec.ml.ok = zstd_dec.huf.ok = false;
    for (bool last = false; !last;) {
        rc = block(in, n, i, &last, why);
        if (rc)
            return rc;
    }
    size_t got = zstd_dec.pos - zstd_dec.frame;
    if (h.has_fcs && got != h.fcs)
        return ZFAIL(why, -XEN_EINVAL, "zstd: the output is not the size the frame gives");
    if (h.check) {
        if (n - *i < 4)
            return ZFAIL(why, -XEN_EINVAL, "zstd: checksum truncated");
        if ((uint32_t)xxh64(zstd_dec.out + zstd_dec.frame, got) != zle32(in + *i))
            return ZFAIL(why, -XEN_EINVAL, "zstd: checksum mismatch");
        *i += 4;
    }
    return 0;
}

int unzstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    size_t i = 0;
    bool any = false;

    *out_len = 0;
    zstd_dec.out = out;
    zstd_dec.cap = out_cap;
    zstd_dec.pos = 0;
    while (i < in_len) {
        if (in_len - i < 4)
            return ZFAIL(why, -XEN_EINVAL, "zstd: frame magic truncated");
        uint32_t magic = zle32(in + i);
        i += 4;
        if ((magic & ~15u) == SKIP_MAGIC) {
            if (in_len - i < 4 || zle32(in + i) > in_len - i - 4)
                return ZFAIL(why, -XEN_EINVAL, "zstd: skippable frame truncated");
            i += 4 + (size_t)zle32(in + i);
            continue;
        }
        if (magic != ZSTD_MAGIC)
            return ZFAIL(why, -XEN_EINVAL, "zstd: not a zstd frame");
        int rc = frame(in, in_len, &i, why);
        if (rc)
            return rc;
        any = true;
    }
    if (!any)
        return ZFAIL(why, -XEN_EINVAL, "zstd: no zstd frame");
    *out_len = zstd_dec.pos;
    return 0;
}
