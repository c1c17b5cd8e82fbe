/*
 * inflate.c: gzip (RFC 1952) around raw deflate (RFC 1951), decoded into a bounded buffer.
 * Written from the RFCs: canonical Huffman codes decoded a bit at a time (small and obviously
 * bounded rather than fast), every read checked against the input's end, every write and
 * back-reference against the output's. Trailing bytes after the gzip member are ignored.
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define MAXBITS 15

struct inflate {
    const uint8_t *in;
    size_t in_len, pos;
    uint64_t bitbuf;
    unsigned bitcnt;
    bool overrun;
    uint8_t *out;
    size_t out_cap, out_pos;
    const char *why;
};

struct huffman {
    uint16_t count[MAXBITS + 1];        /* codes of each length */
    uint16_t symbol[320];               /* symbols by code order */
};

static uint32_t bits(struct inflate *s, unsigned n)
{
    while (s->bitcnt < n) {
        if (s->pos >= s->in_len) {
            s->overrun = true;
            return 0;
        }
        s->bitbuf |= (uint64_t)s->in[s->pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    uint32_t v = (uint32_t)(s->bitbuf & ((1ull << n) - 1));
    s->bitbuf >>= n;
    s->bitcnt -= n;
    return v;
}

/* Canonical code from code lengths. <0: over-subscribed; 0: complete; >0: incomplete. */
static int build(struct huffman *h, const uint8_t *length, unsigned n)
{
    uint16_t offs[MAXBITS + 1];
    int left = 1;

    memset(h->count, 0, sizeof(h->count));
    for (unsigned i = 0; i < n; i++)
        h->count[length[i]]++;
    if (h->count[0] == n)
        return 0;                       /* no codes: complete, but decoding will fail */
    for (unsigned len = 1; len <= MAXBITS; len++) {
        left = left * 2 - h->count[len];
        if (left < 0)
            return -1;
    }
    offs[1] = 0;
    for (unsigned len = 1; len < MAXBITS; len++)
        offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
    for (unsigned i = 0; i < n; i++)
        if (length[i])
            h->symbol[offs[length[i]]++] = (uint16_t)i;
    return left;
}

static int decode(struct inflate *s, const struct huffman *h)
{
    int code = 0, first = 0, index = 0;

    for (unsigned len = 1; len <= MAXBITS; len++) {
        code |= (int)bits(s, 1);
        if (s->overrun)
            return -1;
        int count = h->count[len];
        if (code - count < first)
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return -1;                          /* no such code */
}

static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                       67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                                       5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513,
                                        769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
                                        11, 11, 12, 12, 13, 13 };

static int bad(struct inflate *s, const char *why)
{
    s->why = why;
    return ERR(-XEN_EINVAL);
}

static int codes(struct inflate *s, const struct huffman *lit, const struct huffman *dist)
{
    for (;;) {
        int sym = decode(s, lit);
        if (sym < 0)
            return bad(s, s->overrun ? "deflate: input ends in a block" : "deflate: invalid literal/length code");
        if (sym < 256) {
            if (s->out_pos >= s->out_cap) {
                s->why = "deflate: output larger than its buffer";
                return ERR(-XEN_ENOSPC);
            }
            s->out[s->out_pos++] = (uint8_t)sym;
            continue;
        }
        if (sym == 256)
            return 0;
        sym -= 257;
        if (sym >= 29)
            return bad(s, "deflate: invalid length symbol");
        size_t len = len_base[sym] + bits(s, len_extra[sym]);
        int d = decode(s, dist);
        if (d < 0 || d >= 30)
            return bad(s, "deflate: invalid distance code");
        size_t distance = dist_base[d] + bits(s, dist_extra[d]);
        if (s->overrun)
            return bad(s, "deflate: input ends in a block");
        if (distance > s->out_pos)
            return bad(s, "deflate: distance reaches before the start of the output");
        if (len > s->out_cap - s->out_pos) {
            s->why = "deflate: output larger than its buffer";
            return ERR(-XEN_ENOSPC);
        }
        for (size_t i = 0; i < len; i++, s->out_pos++)
            s->out[s->out_pos] = s->out[s->out_pos - distance];
    }
}

static int stored(struct inflate *s)
{
    s->bitbuf = 0;                      /* to a byte boundary: drop the partial byte */
    s->bitcnt = 0;
    if (s->in_len - s->pos < 4)
        return bad(s, "deflate: truncated stored block header");
    unsigned len = s->in[s->pos] | s->in[s->pos + 1] << 8, nlen = s->in[s->pos + 2] | s->in[s->pos + 3] << 8;
    s->pos += 4;
    if (len != (~nlen & 0xffff))
        return bad(s, "deflate: stored block length check failed");
    if (s->in_len - s->pos < len)
        return bad(s, "deflate: truncated stored block");
    if (s->out_cap - s->out_pos < len) {
        s->why = "deflate: output larger than its buffer";
        return ERR(-XEN_ENOSPC);
    }
    memcpy(s->out + s->out_pos, s->in + s->pos, len);
    s->out_pos += len;
    s->pos += len;
    return 0;
}

static int fixed(struct inflate *s)
{
    static struct huffman lit, dist;
    static bool ready;

    if (!ready) {
        uint8_t l[288];
        unsigned i = 0;
        for (; i < 144; i++) l[i] = 8;
        for (; i < 256; i++) l[i] = 9;
        for (; i < 280; i++) l[i] = 7;
        for (; i < 288; i++) l[i] = 8;
        build(&lit, l, 288);
        for (i = 0; i < 30; i++) l[i] = 5;
        build(&dist, l, 30);
        ready = true;
    }
    return codes(s, &lit, &dist);
}

static int dynamic(struct inflate *s)
{
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    uint8_t lengths[320];
    struct huffman lencode, lit, dist;

    unsigned nlen = bits(s, 5) + 257, ndist = bits(s, 5) + 1, ncode = bits(s, 4) + 4;
    if (s->overrun)
        return bad(s, "deflate: truncated dynamic block header");
    if (nlen > 286 || ndist > 30)
        return bad(s, "deflate: too many length or distance codes");
    memset(lengths, 0, sizeof(lengths));
    for (unsigned i = 0; i < ncode; i++)
        lengths[order[i]] = (uint8_t)bits(s, 3);
    if (build(&lencode, lengths, 19) != 0)
        return bad(s, "deflate: bad code-length code");
    for (unsigned i = 0; i < nlen + ndist;) {
        int sym = decode(s, &lencode);
        if (sym < 0)
            return bad(s, "deflate: bad code length");
        if (sym < 16) {
            lengths[i++] = (uint8_t)sym;
            continue;
        }
        unsigned rep, val = 0;
        if (sym == 16) {
            if (!i)
                return bad(s, "deflate: repeat with no previous length");
            val = lengths[i - 1];
            rep = 3 + bits(s, 2);
        } else if (sym == 17) {
            rep = 3 + bits(s, 3);
        } else {
            rep = 11 + bits(s, 7);
        }
        if (i + rep > nlen + ndist)
            return bad(s, "deflate: code lengths overrun");
        while (rep--)
            lengths[i++] = (uint8_t)val;
    }
    if (s->overrun)
        return bad(s, "deflate: truncated code lengths");
    if (!lengths[256])
        return bad(s, "deflate: no end-of-block code");
    int err = build(&lit, lengths, nlen);
    if (err < 0 || (err > 0 && nlen - lit.count[0] != 1))
        return bad(s, "deflate: incomplete or over-subscribed literal/length code");
    err = build(&dist, lengths + nlen, ndist);
    if (err < 0 || (err > 0 && ndist - dist.count[0] != 1))
        return bad(s, "deflate: incomplete or over-subscribed distance code");
    return codes(s, &lit, &dist);
}

static int inflate_raw(struct inflate *s)
{
    unsigned last;
    int rc;

    do {
        last = bits(s, 1);
        unsigned type = bits(s, 2);
        if (s->overrun)
            return bad(s, "deflate: input ends before the last block");
        switch (type) {
        case 0: rc = stored(s); break;
        case 1: rc = fixed(s); break;
        case 2: rc = dynamic(s); break;
        default: rc = bad(s, "deflate: invalid block type 3"); break;
        }
        if (rc)
            return rc;
    } while (!last);
    return 0;
}

#define FHCRC    2
#define FEXTRA   4
#define FNAME    8
#define FCOMMENT 16

int gunzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    struct inflate s = { .in = in, .in_len = in_len, .out = out, .out_cap = out_cap, .why = "" };
    size_t p = 10;
    int rc;

    *out_len = 0;
    if (in_len < 18 || in[0] != 0x1f || in[1] != 0x8b || in[2] != 8) {
        *why = "not a gzip (deflate) stream";
        return ERR(-XEN_EINVAL);
    }
    uint8_t flg = in[3];
    if (flg & 0xe0) {
        *why = "gzip: reserved header flags set";
        return ERR(-XEN_EINVAL);
    }
    if (flg & FEXTRA) {
        size_t xlen = in[p] | (size_t)in[p + 1] << 8;
        p += 2 + xlen;
    }
    for (int f = FNAME; f <= FCOMMENT; f <<= 1) {
        if (!(flg & f))
            continue;
        while (p < in_len && in[p])
            p++;
        p++;
    }
    if (flg & FHCRC)
        p += 2;
    if (p >= in_len) {
        *why = "gzip: truncated header";
        return ERR(-XEN_EINVAL);
    }
    s.pos = p;
    if ((rc = inflate_raw(&s))) {
        *why = s.why;
        return rc;
    }
    if (s.in_len - s.pos < 8) {
        *why = "gzip: truncated trailer";
        return ERR(-XEN_EINVAL);
    }
    const uint8_t *t = s.in + s.pos;
    uint32_t crc = t[0] | t[1] << 8 | t[2] << 16 | (uint32_t)t[3] << 24;
    uint32_t isize = t[4] | t[5] << 8 | t[6] << 16 | (uint32_t)t[7] << 24;
    if (isize != (uint32_t)s.out_pos || crc != crc32_le(out, s.out_pos)) {
        *why = "gzip: CRC or size check failed";
        return ERR(-XEN_EINVAL);
    }
    *out_len = s.out_pos;
    return 0;
}
