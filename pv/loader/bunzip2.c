/*
 * bunzip2.c: the bzip2 payload of a Linux bzImage built with CONFIG_KERNEL_BZIP2: one bzip2
 * stream (the caller strips the 4-byte size the kernel build appends). Like Linux's bunzip2 it
 * stops at the first end mark (no concatenated streams) and ignores what follows.
 *
 * The stream is bits, most significant first: "BZh" and a level digit 1-9 (blocks of at most
 * level * 100000 bytes), then blocks, each: the magic 0x314159265359, its CRC, a "randomised"
 * bit (an obsolete variant, refused), the 24-bit row of the original string among the sorted
 * rotations (origPtr), a two-level bitmap of the byte values used, 2-6 Huffman tables and the
 * selectors naming a table for each 50 symbols (their numbers move-to-front coded, each in
 * unary), each table as code lengths (5 bits, then per symbol a walk of +1/-1 steps), then the
 * symbols: move-to-front positions of the used bytes, with runs of the front byte written as
 * RUNA/RUNB digits (bijective base 2), until an end-of-block symbol. That is the last column of
 * the sorted rotations (the Burrows-Wheeler transform); undoing it gives the block before its
 * first step, a run-length coding where four equal bytes are followed by a count of more. After
 * the blocks: the magic 0x177245385090 and the CRC of the stream, each block's CRC folded in
 * with a rotate left by one. The CRC is CRC-32 unreflected (0x04c11db7, init and final ~0).
 *
 * The inverse transform links each position of the last column to the next one in the text,
 * in the caller's work area (a 32-bit word a byte: the byte, and the link above it). The Huffman
 * tables, selectors and move-to-front state (about 15 KiB) are static: one decode at a time.
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define BZ_MAX_GROUPS    6
#define BZ_GROUP_SIZE    50             /* symbols per selector */
#define BZ_MAX_CODE      20             /* the longest Huffman code */
#define BZ_MAX_SYMS      258            /* RUNA, RUNB, 255 positions, end of block */
#define BZ_MAX_SELECTORS 18002          /* enough for a 900000-byte block: a symbol a byte at most */
#define BZ_BLOCK_MAGIC   0x314159265359ull
#define BZ_END_MAGIC     0x177245385090ull

struct huffman {
    uint16_t count[BZ_MAX_CODE + 1];    /* codes of each length */
    uint16_t symbol[BZ_MAX_SYMS];       /* symbols in code order */
};

static struct {
    struct huffman group[BZ_MAX_GROUPS];
    uint8_t selector[BZ_MAX_SELECTORS / 2];     /* a table number a nibble */
    uint8_t length[BZ_MAX_SYMS];
    uint8_t seq[256];                   /* the bytes the block uses, in order */
    uint8_t mtf[256];                   /* move-to-front list, of indices into seq */
    uint32_t count[256];                /* occurrences of each byte, then their first rows */
    uint32_t crc_table[256];
} bz;

struct bits {
    const uint8_t *in;
    size_t n, pos;
    uint64_t buf;
    unsigned cnt;
    bool over;                          /* read past the input's end (as zeros) */
};

/* The next k (1-32) bits. Past the end they read as zeros and set over; every loop that reads
 * is bounded otherwise, and over is checked where a block or the stream ends. */
static inline uint32_t get(struct bits *b, unsigned k)
{
    while (b->cnt < k) {
        b->buf <<= 8;
        if (b->pos < b->n)
            b->buf |= b->in[b->pos++];
        else
            b->over = true;
        b->cnt += 8;
    }
    b->cnt -= k;
    return (uint32_t)((b->buf >> b->cnt) & ((1ull << k) - 1));
}

static void make_crc_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i << 24;
        for (int k = 0; k < 8; k++)
            c = (c & 0x80000000u) ? c << 1 ^ 0x04c11db7u : c << 1;
        bz.crc_table[i] = c;
    }
}

/* A canonical code from the lengths (1-20) of symbols 0 .. n-1: bzip2 numbers the codes of each
 * length in symbol order, shorter lengths first. */
static void build(struct huffman *h, const uint8_t *length, unsigned n)
{
    uint16_t next[BZ_MAX_CODE + 1];

    memset(h->count, 0, sizeof(h->count));
    for (unsigned s = 0; s < n; s++)
        h->count[length[s]]++;
    next[1] = 0;
    for (unsigned l = 1; l < BZ_MAX_CODE; l++)
        next[l + 1] = (uint16_t)(next[l] + h->count[l]);
    for (unsigned s = 0; s < n; s++)
        h->symbol[next[length[s]]++] = (uint16_t)s;
}

/* One symbol, a bit at a time; -1 if no code matches (a corrupt or incomplete table). The index
 * stays below the symbols counted even for an over-subscribed table. */
static int decode(struct bits *b, const struct huffman *h)
{
    unsigned code = 0, first = 0, index = 0;

    for (unsigned l = 1; l <= BZ_MAX_CODE; l++) {
        code |= get(b, 1);
        unsigned count = h->count[l];
        if (code - first < count)
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return -1;
}

static unsigned selector(unsigned i)
{
    return (bz.selector[i / 2] >> (i % 2 * 4)) & 15u;
}

/* After origPtr: the byte map, the selectors and the tables; *nseq bytes used, *nsel selectors. */
static int tables(struct bits *b, unsigned *nseq, unsigned *nsel)
{
    unsigned used = get(b, 16), n = 0;
    uint8_t order[BZ_MAX_GROUPS];

    for (unsigned i = 0; i < 16; i++) {
        if (!(used & (0x8000u >> i)))
            continue;
        unsigned map = get(b, 16);
        for (unsigned j = 0; j < 16; j++)
            if (map & (0x8000u >> j))
                bz.seq[n++] = (uint8_t)(i * 16 + j);
    }
    unsigned ngroups = get(b, 3), nselectors = get(b, 15);
    if (n == 0 || ngroups < 2 || ngroups > BZ_MAX_GROUPS || nselectors == 0)
        return -1;
    for (unsigned g = 0; g < ngroups; g++)
        order[g] = (uint8_t)g;
    memset(bz.selector, 0, sizeof(bz.selector));
    for (unsigned s = 0; s < nselectors; s++) {
        unsigned j = 0;
        while (get(b, 1))
            if (++j >= ngroups)
                return -1;
        uint8_t g = order[j];
        memmove(order + 1, order, j);
        order[0] = g;
        if (s < BZ_MAX_SELECTORS)       /* more could not be used (bzip2 1.0.8 ignores them too) */
            bz.selector[s / 2] |= (uint8_t)(g << (s % 2 * 4));
    }
    for (unsigned g = 0; g < ngroups; g++) {
        unsigned len = get(b, 5);
        for (unsigned s = 0; s < n + 2; s++) {
            for (;;) {
                if (len < 1 || len > BZ_MAX_CODE)
                    return -1;
                if (!get(b, 1))
                    break;
                len = get(b, 1) ? len - 1 : len + 1;
            }
            bz.length[s] = (uint8_t)len;
        }
        build(&bz.group[g], bz.length, n + 2);
    }
    *nseq = n;
    *nsel = MIN(nselectors, (unsigned)BZ_MAX_SELECTORS);
    return 0;
}

/* The symbols, undoing the move-to-front and RUNA/RUNB coding into tt[0, *nblock) (a byte a
 * word) and counting each byte; at most bsize of them. */
static int symbols(struct bits *b, unsigned nseq, unsigned nsel, uint32_t *tt, uint32_t bsize, uint32_t *nblock)
{
    const struct huffman *h = NULL;
    unsigned left = 0, sel = 0;
    uint32_t n = 0, run = 0, weight = 0;        /* weight 0: no run pending */

    for (unsigned i = 0; i < 256; i++) {
        bz.mtf[i] = (uint8_t)i;
        bz.count[i] = 0;
    }
    for (;;) {
        if (left == 0) {
            if (sel >= nsel)
                return -1;
            h = &bz.group[selector(sel++)];
            left = BZ_GROUP_SIZE;
        }
        left--;
        int sym = decode(b, h);
        if (sym < 0)
            return -1;
        if (sym <= 1) {                 /* RUNA adds the digit's weight, RUNB twice it */
            if (weight == 0) {
                weight = 1;
                run = 0;
            }
            run += weight << sym;
            weight <<= 1;
            if (run > bsize)
                return -1;
            continue;
        }
        if (weight) {                   /* a run of the front byte ends */
            if (run > bsize - n)
                return -1;
            uint8_t c = bz.seq[bz.mtf[0]];
            bz.count[c] += run;
            for (uint32_t k = 0; k < run; k++)
                tt[n++] = c;
            weight = 0;
        }
        if ((unsigned)sym == nseq + 1)
            break;                      /* end of block */
        if (n >= bsize)
            return -1;
        unsigned k = (unsigned)sym - 1; /* 1 .. nseq - 1: the front (0) is a run's */
        uint8_t v = bz.mtf[k];
        memmove(bz.mtf + 1, bz.mtf, k);
        bz.mtf[0] = v;
        bz.count[bz.seq[v]]++;
        tt[n++] = bz.seq[v];
    }
    *nblock = n;
    return 0;
}

/* Undo the transform from row orig and the run-length step into out[*o, cap); *crc: the block's. */
static int output(uint32_t *tt, uint32_t n, uint32_t orig, uint8_t *out, size_t cap, size_t *o, uint32_t *crc,
                  const char **why)
{
    uint32_t sum = 0, c = ~0u, pos;
    unsigned same = 0, last = 256;
    size_t p = *o;

    for (unsigned i = 0; i < 256; i++) {        /* each byte's first row in the sorted column */
        uint32_t k = bz.count[i];
        bz.count[i] = sum;
        sum += k;
    }
    for (uint32_t i = 0; i < n; i++)            /* row of each byte's occurrence -> its position */
        tt[bz.count[tt[i] & 0xff]++] |= i << 8;
    pos = tt[orig] >> 8;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t e = tt[pos];
        unsigned byte = e & 0xff, copies = 1;
        pos = e >> 8;
        if (same == 4) {                /* after four alike: a count of more */
            copies = byte;
            byte = last;
            same = 0;
        } else {
            same = byte == last ? same + 1 : 1;
            last = byte;
        }
        if (copies > cap - p) {
            *why = "bzip2: output larger than its buffer";
            return ERR(-XEN_ENOSPC);
        }
        for (unsigned j = 0; j < copies; j++) {
            out[p++] = (uint8_t)byte;
            c = c << 8 ^ bz.crc_table[(c >> 24) ^ byte];
        }
    }
    *o = p;
    *crc = ~c;
    return 0;
}

/* One block after its magic and CRC into out[*o, cap); *crc: the CRC of what it gave. */
static int block(struct bits *b, uint32_t *tt, uint32_t bsize, uint8_t *out, size_t cap, size_t *o, uint32_t *crc,
                 const char **why)
{
    unsigned nseq = 0, nsel = 0;
    uint32_t n = 0;

    if (get(b, 1)) {
        *why = "bzip2: randomised block (obsolete)";
        return ERR(-XEN_EOPNOTSUPP);
    }
    uint32_t orig = get(b, 24);
    if (tables(b, &nseq, &nsel) || symbols(b, nseq, nsel, tt, bsize, &n) || b->over || orig >= n) {
        *why = b->over ? "bzip2: truncated stream" : "bzip2: corrupt block";
        return ERR(-XEN_EINVAL);
    }
    return output(tt, n, orig, out, cap, o, crc, why);
}

int bunzip2(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, uint32_t *work,
            size_t work_words, const char **why)
{
    struct bits b = { .in = in, .n = in_len, .pos = 4 };
    uint32_t combined = 0;
    size_t o = 0;

    *out_len = 0;
    if (in_len < 4 || in[0] != 'B' || in[1] != 'Z' || in[2] != 'h' || in[3] < '1' || in[3] > '9') {
        *why = "bzip2: not a bzip2 stream";
        return ERR(-XEN_EINVAL);
    }
    uint32_t bsize = (uint32_t)(in[3] - '0') * 100000u;
    if (work_words < bsize) {
        *why = "bzip2: work area smaller than the stream's block size";
        return ERR(-XEN_ENOSPC);
    }
    if (!bz.crc_table[1])
        make_crc_table();
    for (;;) {
        uint64_t magic = (uint64_t)get(&b, 24) << 24 | get(&b, 24);
        uint32_t crc = get(&b, 32), got = 0;
        if (b.over) {
            *why = "bzip2: truncated stream";
            return ERR(-XEN_EINVAL);
        }
        if (magic == BZ_END_MAGIC) {
            if (crc != combined) {
                *why = "bzip2: stream CRC mismatch";
                return ERR(-XEN_EINVAL);
            }
            break;                      /* anything after is not ours */
        }
        if (magic != BZ_BLOCK_MAGIC) {
            *why = "bzip2: bad block magic";
            return ERR(-XEN_EINVAL);
        }
        int rc = block(&b, work, bsize, out, out_cap, &o, &got, why);
        if (rc)
            return rc;
        if (got != crc) {
            *why = "bzip2: block CRC mismatch";
            return ERR(-XEN_EINVAL);
        }
        combined = (combined << 1 | combined >> 31) ^ crc;
    }
    *out_len = o;
    return 0;
}
