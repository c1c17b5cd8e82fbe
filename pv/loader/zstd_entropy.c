/*
 * zstd_entropy.c: the entropy coding of zstd (RFC 8878 section 4), for unzstd.c.
 *
 * FSE: a distribution of probabilities over 1 << log states, written as a forward little-endian
 * bit field of variable-width counts (with 2-bit runs of zero probabilities), becomes a table of
 * states, each giving a symbol and how to reach the next state. Huffman: a tree is a list of
 * weights (4 bits each, or FSE-coded with two interleaved states), the last one implied by
 * completing a power of two; literals are 1 or 4 backward bitstreams of codes of at most 11 bits.
 * Every size read from the input is checked, and every bitstream must end exactly where its
 * data does.
 */
#include "pv/loader/zstd_entropy.h"

#define HUF_FSE_MAX_LOG 6               /* the weights' distribution */
#define HUF_MAX_WEIGHTS 255             /* the last symbol's weight is implied */

int zbits_init(struct zbits *b, const uint8_t *p, size_t n, const char **why)
{
    if (n == 0 || p[n - 1] == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: bitstream without its end mark");
    b->p = p;
    b->n = n;
    b->pos = (ptrdiff_t)((n - 1) * 8 + zhighbit(p[n - 1]));
    return 0;
}

/* zbits_load near the stream's ends: byte by byte, zeros outside it. */
uint64_t zbits_edge(const struct zbits *b, ptrdiff_t start)
{
    size_t at = start >= 0 ? (size_t)start >> 3 : 0;
    uint64_t v = 0;

    if (start <= -64)
        return 0;
    for (size_t i = 0; i < 8 && at + i < b->n; i++)
        v |= (uint64_t)b->p[at + i] << (8 * i);
    return start >= 0 ? v >> (start & 7) : v << -start;
}

int zfse_build(struct zfse *t, const int16_t *prob, unsigned nsym, unsigned log, const char **why)
{
    uint32_t size = 1u << log, mask = size - 1, step = (size >> 1) + (size >> 3) + 3, pos = 0;
    uint16_t next[ZFSE_MAX_SYMS];
    int32_t high = (int32_t)size - 1, sum = 0;

    for (unsigned s = 0; s < nsym; s++)
        sum += prob[s] < 0 ? 1 : prob[s];
    if (nsym > ZFSE_MAX_SYMS || sum != (int32_t)size)
        return ZFAIL(why, -XEN_EINVAL, "zstd: FSE probabilities do not fill the table");
    /* "less than 1" symbols take the last cells, a state of their own each */
    for (unsigned s = 0; s < nsym; s++) {
        next[s] = prob[s] < 0 ? 1 : (uint16_t)prob[s];
        if (prob[s] < 0)
            t[high--].sym = (uint8_t)s;
    }
    /* the others are spread over the rest; the step is odd, so it visits every cell */
    for (unsigned s = 0; s < nsym; s++) {
        for (int16_t k = 0; k < prob[s]; k++) {
            t[pos].sym = (uint8_t)s;
            do
                pos = (pos + step) & mask;
            while ((int32_t)pos > high);
        }
    }
    if (pos != 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: FSE table not filled");
    /* a symbol's k-th state (in state order) reaches 1 << bits next states from base */
    for (uint32_t u = 0; u < size; u++) {
        uint32_t ns = next[t[u].sym]++;
        unsigned bits = log - zhighbit(ns);
        t[u].bits = (uint8_t)bits;
        t[u].base = (uint16_t)((ns << bits) - size);
    }
    return 0;
}

/* k <= 16 bits at bit `at` of p[0, n), zeros past its end (the caller checks how far it read). */
static uint32_t fwd_bits(const uint8_t *p, size_t n, size_t at, unsigned k)
{
    size_t byte = at >> 3;
    uint32_t v = 0;

    for (unsigned i = 0; i < 3 && byte + i < n; i++)
        v |= (uint32_t)p[byte + i] << (8 * i);
    return (v >> (at & 7)) & ((1u << k) - 1);
}

int zfse_read(const uint8_t *p, size_t n, size_t *used, struct zfse *t, unsigned *log, unsigned max_log,
              unsigned max_sym, const char **why)
{
    int16_t prob[ZFSE_MAX_SYMS];
    unsigned s = 0;
    size_t at = 4;

    if (n == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: FSE table description missing");
    *log = (p[0] & 15u) + 5;
    if (*log > max_log)
        return ZFAIL(why, -XEN_EINVAL, "zstd: FSE accuracy log too large");
    for (int32_t left = 1 << *log; left > 0;) {
        /* a count of 0..left+1 in nb bits, its low values in nb - 1 */
        uint32_t max = (uint32_t)left + 1, nb = zhighbit(max) + 1, low = (1u << nb) - 1 - max;
        uint32_t v = fwd_bits(p, n, at, nb - 1);
        if (v < low) {
            at += nb - 1;
        } else {
            v = fwd_bits(p, n, at, nb);
            if (v >= 1u << (nb - 1))
                v -= low;
            at += nb;
        }
        if (s > max_sym)
            return ZFAIL(why, -XEN_EINVAL, "zstd: FSE distribution has too many symbols");
        prob[s++] = (int16_t)((int32_t)v - 1);
        left -= v == 0 ? 1 : (int32_t)v - 1;
        if (v != 1)
            continue;
        uint32_t rep;
        do {                            /* a zero: 2-bit counts of more zeros, 3 meaning "and more" */
            rep = fwd_bits(p, n, at, 2);
            at += 2;
            for (uint32_t k = 0; k < rep; k++) {
                if (s > max_sym)
                    return ZFAIL(why, -XEN_EINVAL, "zstd: FSE distribution has too many symbols");
                prob[s++] = 0;
            }
        } while (rep == 3);
    }
    *used = (at + 7) / 8;
    if (*used > n)
        return ZFAIL(why, -XEN_EINVAL, "zstd: FSE table description truncated");
    return zfse_build(t, prob, s, *log, why);
}

/* The FSE-coded weights p[0, n): two states take turns on one bitstream until it runs out. */
static int fse_weights(const uint8_t *p, size_t n, uint8_t *w, unsigned *nw, const char **why)
{
    struct zfse t[1u << HUF_FSE_MAX_LOG];
    struct zbits b;
    unsigned log, k = 0;
    size_t used;
    int rc = zfse_read(p, n, &used, t, &log, HUF_FSE_MAX_LOG, 15, why);

    if (rc)
        return rc;
    rc = zbits_init(&b, p + used, n - used, why);
    if (rc)
        return rc;
    uint32_t st[2];
    st[0] = zbits_read(&b, log);
    st[1] = zbits_read(&b, log);
    if (b.pos < 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman weights truncated");
    /* when a state's update reads past the start, the other state's symbol is the last */
    for (unsigned i = 0;; i ^= 1) {
        if (k > HUF_MAX_WEIGHTS - 2)
            return ZFAIL(why, -XEN_EINVAL, "zstd: too many Huffman weights");
        const struct zfse *c = &t[st[i]];
        w[k++] = c->sym;
        st[i] = c->base + zbits_read(&b, c->bits);
        if (b.pos < 0) {
            w[k++] = t[st[i ^ 1]].sym;
            break;
        }
    }
    *nw = k;
    return 0;
}

/* The decoding table of weights w[0, nw) and the implied last one. */
static int huf_build(struct zhuf *h, uint8_t *w, unsigned nw, const char **why)
{
    uint32_t sum = 0, start[HUF_MAX_BITS + 2] = { 0 };

    for (unsigned s = 0; s < nw; s++) {
        if (w[s] > HUF_MAX_BITS)
            return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman weight too large");
        sum += w[s] ? 1u << (w[s] - 1) : 0;
    }
    if (sum == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman tree without symbols");
    unsigned mb = zhighbit(sum) + 1;
    uint32_t rest = (1u << mb) - sum;
    if (mb > HUF_MAX_BITS || (rest & (rest - 1)))
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman weights do not complete a tree");
    w[nw++] = (uint8_t)(zhighbit(rest) + 1);
    /* codes go to weights in increasing order, symbols in order within a weight: each weight's
     * cells start after all those of lower weights */
    for (unsigned s = 0; s < nw; s++)
        if (w[s])
            start[w[s] + 1] += 1u << (w[s] - 1);
    for (unsigned x = 2; x <= HUF_MAX_BITS + 1; x++)
        start[x] += start[x - 1];
    for (unsigned s = 0; s < nw; s++) {
        if (!w[s])
            continue;
        for (uint32_t k = 0, c = start[w[s]]; k < 1u << (w[s] - 1); k++, c++) {
            h->cell[c].sym = (uint8_t)s;
            h->cell[c].bits = (uint8_t)(mb + 1 - w[s]);
        }
        start[w[s]] += 1u << (w[s] - 1);
    }
    h->max_bits = mb;
    h->ok = true;
    return 0;
}

int zhuf_read(struct zhuf *h, const uint8_t *p, size_t n, size_t *used, const char **why)
{
    uint8_t w[HUF_MAX_WEIGHTS + 1];
    unsigned nw;

    h->ok = false;
    if (n == 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman tree missing");
    if (p[0] >= 128) {                  /* direct: 4 bits a weight, high nibble first */
        nw = p[0] - 127u;
        *used = 1 + (nw + 1) / 2;
        if (*used > n)
            return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman tree truncated");
        for (unsigned i = 0; i < nw; i++)
            w[i] = (i & 1) ? p[1 + i / 2] & 15 : p[1 + i / 2] >> 4;
    } else {
        *used = 1 + (size_t)p[0];
        if (p[0] == 0 || *used > n)
            return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman tree truncated");
        int rc = fse_weights(p + 1, p[0], w, &nw, why);
        if (rc)
            return rc;
    }
    return huf_build(h, w, nw, why);
}

/* One stream p[0, n) to out[0, count): exactly consumed. */
static int huf_stream(const struct zhuf *h, const uint8_t *p, size_t n, uint8_t *out, size_t count,
                      const char **why)
{
    struct zbits b;
    unsigned mb = h->max_bits;
    int rc = zbits_init(&b, p, n, why);

    if (rc)
        return rc;
    for (size_t i = 0; i < count; i++) {
        uint32_t c = zbits_peek(&b, mb);
        out[i] = h->cell[c].sym;
        b.pos -= h->cell[c].bits;
    }
    if (b.pos != 0)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman stream not consumed exactly");
    return 0;
}

int zhuf_decode(const struct zhuf *h, const uint8_t *p, size_t n, uint8_t *out, size_t regen, bool four,
                const char **why)
{
    if (!four)
        return huf_stream(h, p, n, out, regen, why);
    /* a jump table of the first three streams' sizes; each stream but the last gives a quarter
     * (rounded up) of the output, and every stream has its end mark */
    if (n < 10)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman jump table truncated");
    size_t len[4] = { zle16(p), zle16(p + 2), zle16(p + 4), 0 }, seg = (regen + 3) / 4, at = 6;
    if (len[0] + len[1] + len[2] >= n - 6 || 3 * seg > regen)
        return ZFAIL(why, -XEN_EINVAL, "zstd: Huffman jump table does not fit");
    len[3] = n - 6 - len[0] - len[1] - len[2];
    for (unsigned k = 0; k < 4; k++) {
        int rc = huf_stream(h, p + at, len[k], out + k * seg, k < 3 ? seg : regen - 3 * seg, why);
        if (rc)
            return rc;
        at += len[k];
    }
    return 0;
}
