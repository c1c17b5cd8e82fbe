/* zstd_seq.c: a zstd block's sequences (RFC 8878 3.1.1.3.2): the three code tables (predefined,
 * RLE, FSE-described or repeated), the bitstream of literal length, offset and match length codes
 * with their extra bits, each sequence executed as it comes into the output (the window). */
#include "pv/loader/decompress.h"
#include "pv/loader/zstd.h"

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
    size_t off = ofv > 3 ? ofv - 3 : idx == 3 ? zstd_dec.rep[0] - 1 : zstd_dec.rep[idx];

    if (idx == 0)
        return off;
    if (idx != 1)
        zstd_dec.rep[2] = zstd_dec.rep[1];
    zstd_dec.rep[1] = zstd_dec.rep[0];
    zstd_dec.rep[0] = off;
    return off;
}

/* A sequence: ll literals, then ml bytes from off back. The literals still to come must fit too. */
static int run(struct lits *lit, size_t ll, size_t off, size_t ml, const char **why)
{
    if (ll > lit->left)
        return ZFAIL(why, -XEN_EINVAL, "zstd: sequence beyond the block's literals");
    memmove(zstd_dec.out + zstd_dec.pos, lit->p, ll);   /* an overlap copies forward: pos <= the literals' */
    zstd_dec.pos += ll;
    lit->p += ll;
    lit->left -= ll;
    if (off == 0 || off > zstd_dec.pos - zstd_dec.frame)
        return ZFAIL(why, -XEN_EINVAL, "zstd: match before the frame's start");
    if (ml > zstd_dec.end - zstd_dec.pos - lit->left) {
        if (zstd_dec.end < zstd_dec.cap)
            return ZFAIL(why, -XEN_EINVAL, "zstd: block output larger than its frame allows");
        return ZFAIL(why, -XEN_ENOSPC, "zstd: output larger than its buffer");
    }
    uint8_t *d = zstd_dec.out + zstd_dec.pos;
    const uint8_t *s = d - off;
    if (off >= ml)
        memcpy(d, s, ml);
    else
        for (size_t k = 0; k < ml; k++)     /* byte by byte: the match repeats itself */
            d[k] = s[k];
    zstd_dec.pos += ml;
    return 0;
}

/* nseq sequences from the bitstream in[0, n), executed as they come. */
static int decode(const uint8_t *in, size_t n, size_t nseq, struct lits *lit, const char **why)
{
    struct zbits b;
    int rc = zbits_init(&b, in, n, why);

    if (rc)
        return rc;
    uint32_t sll = zbits_read(&b, zstd_dec.ll.log), sof = zbits_read(&b, zstd_dec.of.log), sml = zbits_read(&b, zstd_dec.ml.log);
    while (nseq--) {
        /* states stay within their tables: base + (1 << bits) <= the table's size */
        const struct zfse *cl = &zstd_dec.ll.cell[sll], *co = &zstd_dec.of.cell[sof], *cm = &zstd_dec.ml.cell[sml];
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

/* The sequences section: its header, the three tables, the bitstream (zstd.h). */
int zstd_sequences(const uint8_t *in, size_t n, struct lits *lit, const char **why)
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
    int rc = seq_table(&zstd_dec.ll, &ll_kind, modes >> 6, in, n, &i, why);
    if (!rc)
        rc = seq_table(&zstd_dec.of, &of_kind, (modes >> 4) & 3, in, n, &i, why);
    if (!rc)
        rc = seq_table(&zstd_dec.ml, &ml_kind, (modes >> 2) & 3, in, n, &i, why);
    if (!rc)
        rc = decode(in + i, n - i, nseq, lit, why);
    return rc;
}
