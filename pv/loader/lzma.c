/*
 * lzma.c: the LZMA decoder's core, writing into one flat, bounded buffer; its containers are
 * lzma2.c (LZMA2 chunks, the xz format's compressor) and unlzma.c (the legacy .lzma stream).
 * The output buffer doubles as the dictionary, so no window is kept: a match may reach back to
 * the last dictionary reset and no further. Written from the LZMA format description: a range
 * decoder over 11-bit probabilities and the 12-state literal/match/rep machine.
 */
#include "pv/loader/lzma.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

struct lzma lzma_dec;

static inline __attribute__((always_inline)) uint8_t next_byte(struct rc *r)
{
    if (r->pos >= r->end) {
        r->overrun = true;
        return 0;
    }
    return r->in[r->pos++];
}

static inline __attribute__((always_inline)) void normalize(struct rc *r)
{
    if (r->range < (1u << 24)) {
        r->range <<= 8;
        r->code = (r->code << 8) | next_byte(r);
    }
}

static inline __attribute__((always_inline)) unsigned bit(struct rc *r, prob_t *p)
{
    normalize(r);
    uint32_t bound = (r->range >> PROB_BITS) * *p;
    if (r->code < bound) {
        r->range = bound;
        *p += ((1u << PROB_BITS) - *p) >> MOVE_BITS;
        return 0;
    }
    r->range -= bound;
    r->code -= bound;
    *p -= *p >> MOVE_BITS;
    return 1;
}

static inline __attribute__((always_inline)) uint32_t direct_bits(struct rc *r, unsigned n)
{
    uint32_t v = 0;

    while (n--) {
        normalize(r);
        r->range >>= 1;
        uint32_t b = r->code >= r->range;
        if (b)
            r->code -= r->range;
        v = (v << 1) | b;
    }
    return v;
}

/* n-bit symbol, most significant bit first, probabilities p[1 .. 2^n - 1] */
static inline __attribute__((always_inline)) uint32_t tree(struct rc *r, prob_t *p, unsigned n)
{
    uint32_t m = 1;

    for (unsigned i = 0; i < n; i++)
        m = (m << 1) | bit(r, &p[m]);
    return m - (1u << n);
}

/* n-bit symbol, least significant bit first, probabilities p[0 .. 2^n - 2] */
static inline __attribute__((always_inline)) uint32_t reverse_tree(struct rc *r, prob_t *p, unsigned n)
{
    uint32_t m = 1, v = 0;

    for (unsigned i = 0; i < n; i++) {
        unsigned b = bit(r, &p[m - 1]);
        m = (m << 1) | b;
        v |= (uint32_t)b << i;
    }
    return v;
}

static void reset_len(struct len_coder *l)
{
    prob_t *p = &l->choice;
    for (size_t i = 0; i < sizeof(*l) / sizeof(prob_t); i++)
        p[i] = PROB_INIT;
}

void lzma_reset_state(struct lzma *z)
{
    prob_t *first = &z->is_match[0][0];
    size_t n = (size_t)((prob_t *)(&z->literal[LIT_MAX]) - first);

    for (size_t i = 0; i < n; i++)
        first[i] = PROB_INIT;
    reset_len(&z->len);
    reset_len(&z->rep_len);
    z->state = 0;
    memset(z->rep, 0, sizeof(z->rep));
}

static inline __attribute__((always_inline)) uint32_t decode_len(struct rc *r, struct len_coder *l, unsigned ps)
{
    if (!bit(r, &l->choice))
        return tree(r, l->low[ps], 3);
    if (!bit(r, &l->choice2))
        return 8 + tree(r, l->mid[ps], 3);
    return 16 + tree(r, l->high, 8);
}

int lzma_fail(struct lzma *z, int err, const char *why)
{
    z->why = why;
    return ERR(err);
}

static inline __attribute__((always_inline)) int literal(struct lzma *z, struct rc *r)
{
    uint8_t prev = z->out_pos > z->dict_start ? z->out[z->out_pos - 1] : 0;
    prob_t *p = &z->literal[LIT_CODER_SIZE * ((((z->out_pos - z->dict_start) & ((1u << z->lp) - 1)) << z->lc) +
                                            (prev >> (8 - z->lc)))];
    uint32_t sym = 1;

    if (z->state >= LIT_STATES) {
        if (z->rep[0] >= z->out_pos - z->dict_start)
            return lzma_fail(z, -XEN_EINVAL, "lzma: match byte before the dictionary");
        uint32_t match = z->out[z->out_pos - z->rep[0] - 1];
        while (sym < 0x100) {
            uint32_t mbit = (match >> 7) & 1;
            match <<= 1;
            uint32_t b = bit(r, &p[0x100 + (mbit << 8) + sym]);
            sym = (sym << 1) | b;
            if (b != mbit)
                break;
        }
    }
    while (sym < 0x100)
        sym = (sym << 1) | bit(r, &p[sym]);
    if (z->out_pos >= z->chunk_end)
        return z->to_cap ? lzma_fail(z, -XEN_ENOSPC, "lzma: output larger than its buffer")
                         : lzma_fail(z, -XEN_EINVAL, "lzma: chunk data longer than its header says");
    z->out[z->out_pos++] = (uint8_t)sym;
    z->state = z->state < 4 ? 0 : z->state < 10 ? z->state - 3 : z->state - 6;
    return 0;
}

static inline __attribute__((always_inline)) uint32_t distance(struct lzma *z, struct rc *r, uint32_t len)
{
    uint32_t slot = tree(r, z->pos_slot[len < 4 ? len : 3], 6);

    if (slot < 4)
        return slot;
    unsigned nbits = (slot >> 1) - 1;
    uint32_t d = (2 | (slot & 1)) << nbits;
    if (slot < END_POS_MODEL)
        return d + reverse_tree(r, z->spec + d - slot, nbits);
    d += direct_bits(r, nbits - ALIGN_BITS) << ALIGN_BITS;
    return d + reverse_tree(r, z->align, ALIGN_BITS);
}

static int copy_match(struct lzma *z, uint32_t len)
{
    uint64_t dist = (uint64_t)z->rep[0] + 1;

    if (dist > z->out_pos - z->dict_start)
        return lzma_fail(z, -XEN_EINVAL, "lzma: match distance before the dictionary");
    if (len > z->chunk_end - z->out_pos)
        return z->to_cap ? lzma_fail(z, -XEN_ENOSPC, "lzma: output larger than its buffer")
                         : lzma_fail(z, -XEN_EINVAL, "lzma: chunk data longer than its header says");
    uint8_t *o = z->out + z->out_pos;  /* locals: the byte stores may alias z */
    const uint8_t *from = o - dist;     /* within out: dist was checked against the dictionary */
    for (uint32_t i = 0; i < len; i++)
        o[i] = from[i];
    z->out_pos += len;
    return 0;
}

/* One LZMA chunk (lzma.h). The range decoder works on a local copy (inlined: it stays in registers, where the
 * output's byte stores cannot force it back to memory) that goes back to *start at the end. */
static inline __attribute__((always_inline)) int lzma_chunk_rc(struct lzma *z, struct rc *r);

int lzma_chunk(struct lzma *z, struct rc *start)
{
    struct rc rc_local = *start;
    int rc = lzma_chunk_rc(z, &rc_local);

    *start = rc_local;
    return rc;
}

static inline __attribute__((always_inline)) int lzma_chunk_rc(struct lzma *z, struct rc *r)
{
    unsigned pmask = (1u << z->pb) - 1;

    while (z->out_pos < z->chunk_end && !r->overrun) {
        unsigned ps = (unsigned)(z->out_pos - z->dict_start) & pmask;
        int rc;
        if (!bit(r, &z->is_match[z->state][ps])) {
            if ((rc = literal(z, r)))
                return rc;
            continue;
        }
        uint32_t len;
        if (!bit(r, &z->is_rep[z->state])) {
            z->rep[3] = z->rep[2];
            z->rep[2] = z->rep[1];
            z->rep[1] = z->rep[0];
            len = decode_len(r, &z->len, ps);
            z->state = z->state < LIT_STATES ? 7 : 10;
            z->rep[0] = distance(z, r, len);
            if (z->rep[0] == 0xffffffffu) {
                if (!z->alone)
                    return lzma_fail(z, -XEN_EINVAL, "lzma: end marker inside an LZMA2 chunk");
                z->ended = true;
                break;
            }
        } else {
            if (z->out_pos == z->dict_start)
                return lzma_fail(z, -XEN_EINVAL, "lzma: repeated match with an empty dictionary");
            if (!bit(r, &z->is_rep0[z->state])) {
                if (!bit(r, &z->is_rep0_long[z->state][ps])) {
                    z->state = z->state < LIT_STATES ? 9 : 11;
                    if ((rc = copy_match(z, 1)))
                        return rc;
                    continue;
                }
            } else {
                uint32_t d;
                if (!bit(r, &z->is_rep1[z->state])) {
                    d = z->rep[1];
                } else {
                    if (!bit(r, &z->is_rep2[z->state])) {
                        d = z->rep[2];
                    } else {
                        d = z->rep[3];
                        z->rep[3] = z->rep[2];
                    }
                    z->rep[2] = z->rep[1];
                }
                z->rep[1] = z->rep[0];
                z->rep[0] = d;
            }
            len = decode_len(r, &z->rep_len, ps);
            z->state = z->state < LIT_STATES ? 8 : 11;
        }
        if ((rc = copy_match(z, len + 2)))
            return rc;
    }
    if (r->overrun)
        return lzma_fail(z, -XEN_EINVAL, "lzma: compressed chunk ends early");
    return 0;
}

int lzma_set_props(struct lzma *z, uint8_t props)
{
    if (props >= 9 * 5 * 5)
        return lzma_fail(z, -XEN_EINVAL, "lzma2: invalid properties byte");
    z->lc = props % 9;
    z->lp = (props / 9) % 5;
    z->pb = props / 45;
    if (z->lc + z->lp > 4)
        return lzma_fail(z, -XEN_EINVAL, "lzma2: lc + lp > 4");
    return 0;
}

bool lzma_rc_start(struct rc *r, const uint8_t *in, size_t pos, size_t end)
{
    *r = (struct rc){ .in = in, .pos = pos, .end = end, .range = 0xffffffffu };
    if (next_byte(r) != 0)
        return false;
    for (int i = 0; i < 4; i++)
        r->code = (r->code << 8) | next_byte(r);
    return true;
}
