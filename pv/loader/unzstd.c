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
 * carry from block to block within a frame. The entropy decoders are in zstd_entropy.c.
 */
#include "pv/loader/decompress.h"
#include "pv/loader/zstd_entropy.h"

#define ZSTD_MAGIC  0xfd2fb528u
#define SKIP_MAGIC  0x184d2a50u         /* and the next 15: skippable frames */
#define SEQ_MAX_LOG 9

/* A sequence code's decoding table, kept for a later block's repeat mode. */
struct seq_table {
    struct zfse cell[1u << SEQ_MAX_LOG];
    unsigned log;
    bool ok;
};

/* A kind of sequence code: its predefined distribution, its limits. */
struct seq_kind {
    const int16_t *dist;
    unsigned dist_syms, dist_log, max_log, max_sym;
};

static const int16_t ll_dist[36] = {
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
    -1, -1, -1, -1,
};
static const int16_t of_dist[29] = {
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
};
static const int16_t ml_dist[53] = {
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
};
static const struct seq_kind ll_kind = { ll_dist, 36, 6, 9, 35 };
static const struct seq_kind of_kind = { of_dist, 29, 5, 8, 31 };
static const struct seq_kind ml_kind = { ml_dist, 53, 6, 9, 52 };

/* Literal and match lengths: a code's baseline, plus that many extra bits. */
static const uint32_t ll_base[36] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64,
    128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
};
static const uint8_t ll_bits[36] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16,
};
static const uint32_t ml_base[53] = {
    3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
    29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
    4099, 8195, 16387, 32771, 65539,
};
static const uint8_t ml_bits[53] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* The output and what a frame's blocks pass on: 10 KiB, not on the stack (one decoder at a time). */
static struct zstd {
    uint8_t *out;
    size_t pos, cap;
    size_t frame;                       /* where this frame's output starts */
    size_t block_max;
    size_t end;                         /* a compressed block's output ends by: cap, or its maximum */
    size_t rep[3];
    struct seq_table ll, of, ml;
    struct zhuf huf;
} zs;

/* A block's literals not yet used: in the input (raw) or at the end of the output buffer. */
struct lits {
    const uint8_t *p;
    size_t left;
};

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
    if (regen > zs.block_max)
        return ZFAIL(why, -XEN_EINVAL, "zstd: literals larger than a block");
    if (regen > zs.cap - zs.pos)
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    uint8_t *tail = zs.out + zs.cap - regen;
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
        int rc = zhuf_read(&zs.huf, in + hdr, csize, &tree, why);
        if (rc)
            return rc;
    } else if (!zs.huf.ok) {
        return ZFAIL(why, -XEN_EINVAL, "zstd: treeless literals without an earlier tree");
    }
    *used = hdr + csize;
    return zhuf_decode(&zs.huf, in + hdr + tree, csize - tree, tail, regen, sf != 0, why);
}

/* A code's table per its mode (predefined, RLE, FSE-described, repeat), at in[*i, n). */
static int seq_table(struct seq_table *t, const struct seq_kind *k, unsigned mode, const uint8_t *in, size_t n,
                     size_t *i, const char **why)
{
    size_t used;
    int rc = 0;

    switch (mode) {
    case 0:
        t->log = k->dist_log;
        rc = zfse_build(t->cell, k->dist, k->dist_syms, k->dist_log, why);
        break;
    case 1:
        if (*i >= n || in[*i] > k->max_sym)
            return ZFAIL(why, -XEN_EINVAL, "zstd: bad RLE sequence code");
        t->cell[0] = (struct zfse){ .base = 0, .sym = in[(*i)++], .bits = 0 };
        t->log = 0;
        break;
    case 2:
        rc = zfse_read(in + *i, n - *i, &used, t->cell, &t->log, k->max_log, k->max_sym, why);
        if (!rc)
            *i += used;
        break;
    default:
        if (!t->ok)
            return ZFAIL(why, -XEN_EINVAL, "zstd: repeat mode without an earlier table");
    }
    t->ok = rc == 0;
    return rc;
}

/* An offset value (1-3: a repeat offset, shifted by one after no literals) to the offset; the
 * repeat offsets updated. 0: none (the repeat offset 1 less 1), corrupt. */
static size_t offset(size_t ofv, size_t ll)
{
    unsigned idx = ofv > 3 ? 3 : (unsigned)ofv - 1 + (ll == 0);
    size_t off = ofv > 3 ? ofv - 3 : idx == 3 ? zs.rep[0] - 1 : zs.rep[idx];

    if (idx == 0)
        return off;
    if (idx != 1)
        zs.rep[2] = zs.rep[1];
    zs.rep[1] = zs.rep[0];
    zs.rep[0] = off;
    return off;
}

/* A sequence: ll literals, then ml bytes from off back. The literals still to come must fit too. */
static int run(struct lits *lit, size_t ll, size_t off, size_t ml, const char **why)
{
    if (ll > lit->left)
        return ZFAIL(why, -XEN_EINVAL, "zstd: sequence beyond the block's literals");
    memmove(zs.out + zs.pos, lit->p, ll);   /* an overlap copies forward: pos <= the literals' */
    zs.pos += ll;
    lit->p += ll;
    lit->left -= ll;
    if (off == 0 || off > zs.pos - zs.frame)
        return ZFAIL(why, -XEN_EINVAL, "zstd: match before the frame's start");
    if (ml > zs.end - zs.pos - lit->left) {
        if (zs.end < zs.cap)
            return ZFAIL(why, -XEN_EINVAL, "zstd: block output larger than its frame allows");
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    }
    uint8_t *d = zs.out + zs.pos;
    const uint8_t *s = d - off;
    if (off >= ml)
        memcpy(d, s, ml);
    else
        for (size_t k = 0; k < ml; k++)     /* byte by byte: the match repeats itself */
            d[k] = s[k];
    zs.pos += ml;
    return 0;
}

/* nseq sequences from the bitstream in[0, n), executed as they come. */
static int decode(const uint8_t *in, size_t n, size_t nseq, struct lits *lit, const char **why)
{
    struct zbits b;
    int rc = zbits_init(&b, in, n, why);

    if (rc)
        return rc;
    uint32_t sll = zbits_read(&b, zs.ll.log), sof = zbits_read(&b, zs.of.log), sml = zbits_read(&b, zs.ml.log);
    while (nseq--) {
        /* states stay within their tables: base + (1 << bits) <= the table's size */
        const struct zfse *cl = &zs.ll.cell[sll], *co = &zs.of.cell[sof], *cm = &zs.ml.cell[sml];
        size_t ofv = ((size_t)1 << co->sym) + zbits_read(&b, co->sym);
        size_t ml = ml_base[cm->sym] + zbits_read(&b, ml_bits[cm->sym]);
        size_t ll = ll_base[cl->sym] + zbits_read(&b, ll_bits[cl->sym]);
        if (nseq) {                     /* not after the last sequence */
            sll = cl->base + zbits_read(&b, cl->bits);
            sml = cm->base + zbits_read(&b, cm->bits);
            sof = co->base + zbits_read(&b, co->bits);
        }
        if (b.pos < 0)
            return ZFAIL(why, -XEN_EINVAL, "zstd: sequences truncated");
        rc = run(lit, ll, offset(ofv, ll), ml, why);
        if (rc)
            return rc;
    }
    if (b.pos != 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: sequences bitstream not consumed exactly");
    return 0;
}

/* The sequences section in[0, n): its header, the three tables, the bitstream. */
static int sequences(const uint8_t *in, size_t n, struct lits *lit, const char **why)
{
    size_t i, nseq;

    if (n == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: sequences section missing");
    if (in[0] < 128) {
        nseq = in[0];
        i = 1;
    } else if (in[0] < 255) {
        nseq = n < 2 ? 0 : ((size_t)(in[0] - 128) << 8) + in[1];
        i = 2;
    } else {
        nseq = n < 3 ? 0 : zle16(in + 1) + 0x7f00u;
        i = 3;
    }
    if (i > n || (nseq == 0 && i != n))
        return ZFAIL(why, -XEN_EINVAL, "zstd: bad sequences section header");
    if (nseq == 0)
        return 0;                       /* literals only; the tables stay as they were */
    if (i == n || (in[i] & 3))
        return ZFAIL(why, -XEN_EINVAL, "zstd: bad sequence compression modes");
    unsigned modes = in[i++];
    int rc = seq_table(&zs.ll, &ll_kind, modes >> 6, in, n, &i, why);
    if (!rc)
        rc = seq_table(&zs.of, &of_kind, (modes >> 4) & 3, in, n, &i, why);
    if (!rc)
        rc = seq_table(&zs.ml, &ml_kind, (modes >> 2) & 3, in, n, &i, why);
    if (!rc)
        rc = decode(in + i, n - i, nseq, lit, why);
    return rc;
}

/* A compressed block in[0, n). Its literals fit in what it may write (checked first), and its
 * sequences keep room for those still to come. */
static int compressed_block(const uint8_t *in, size_t n, const char **why)
{
    struct lits lit;
    size_t used;
    int rc;

    zs.end = zs.pos + MIN(zs.block_max, zs.cap - zs.pos);
    rc = literals(in, n, &lit, &used, why);
    if (!rc)
        rc = sequences(in + used, n - used, &lit, why);
    if (rc)
        return rc;
    memmove(zs.out + zs.pos, lit.p, lit.left);  /* the literals after the last sequence */
    zs.pos += lit.left;
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
    if (size > zs.block_max)
        return ZFAIL(why, -XEN_EINVAL, "zstd: block larger than its frame allows");
    if (len > n - *i)
        return ZFAIL(why, -XEN_EINVAL, "zstd: block truncated");
    const uint8_t *p = in + *i;
    *i += len;
    if (type == 2)
        return compressed_block(p, size, why);
    if (size > zs.cap - zs.pos)
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    if (type == 0)
        memcpy(zs.out + zs.pos, p, size);
    else
        memset(zs.out + zs.pos, p[0], size);
    zs.pos += size;
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
    zs.block_max = (size_t)MIN(single ? h->fcs : window, (uint64_t)ZSTD_BLOCK_MAX);
    if (h->has_fcs && h->fcs > zs.cap - zs.pos)
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
    zs.frame = zs.pos;
    zs.rep[0] = 1;
    zs.rep[1] = 4;
    zs.rep[2] = 8;
    zs.ll.ok = zs.of.ok = zs.ml.ok = zs.huf.ok = false;
    for (bool last = false; !last;) {
        rc = block(in, n, i, &last, why);
        if (rc)
            return rc;
    }
    size_t got = zs.pos - zs.frame;
    if (h.has_fcs && got != h.fcs)
        return ZFAIL(why, -XEN_EINVAL, "zstd: the output is not the size the frame gives");
    if (h.check) {
        if (n - *i < 4)
            return ZFAIL(why, -XEN_EINVAL, "zstd: checksum truncated");
        if ((uint32_t)xxh64(zs.out + zs.frame, got) != zle32(in + *i))
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
    zs.out = out;
    zs.cap = out_cap;
    zs.pos = 0;
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
    *out_len = zs.pos;
    return 0;
}
