/*
 * lzma2.c: an LZMA2 decoder (the xz format's compressor), and the legacy .lzma stream (one
 * LZMA stream after a 13-byte header; a bzImage built with CONFIG_KERNEL_LZMA), writing into one
 * flat, bounded buffer.
 * The output buffer doubles as the dictionary, so no window is kept: a match may reach back to
 * the last dictionary reset and no further. Written from the LZMA/LZMA2 format descriptions: a
 * range decoder over 11-bit probabilities, the 12-state literal/match/rep machine, and LZMA2's
 * chunk headers (uncompressed chunks, and LZMA chunks with state/property/dictionary resets).
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define PROB_BITS   11
#define PROB_INIT   (1u << (PROB_BITS - 1))
#define MOVE_BITS   5
#define STATES      12
#define POS_MAX     16                  /* pb <= 4 */
#define LIT_STATES  7                   /* state < 7: the previous thing was a literal */
#define END_POS_MODEL 14
#define FULL_DISTANCES 128
#define ALIGN_BITS  4
#define LIT_CODER_SIZE 0x300
#define LIT_MAX     (LIT_CODER_SIZE << 4)     /* lc + lp <= 4 in LZMA2 */

typedef uint16_t prob_t;

struct len_coder {
    prob_t choice, choice2;
    prob_t low[POS_MAX][8], mid[POS_MAX][8], high[256];
};

/* The range decoder over in[pos, end). lzma_chunk keeps it in a local, which never escapes
 * since every step below is inlined: so it stays in registers, where the stores into the
 * output (bytes, which may alias anything) cannot force it back to memory. */
struct rc {
    const uint8_t *in;
    size_t pos, end;
    uint32_t range, code;
    bool overrun;
};

struct lzma {
    /* output */
    uint8_t *out;
    size_t out_pos, out_cap, dict_start, chunk_end;
    /* model */
    unsigned lc, lp, pb;
    unsigned state;
    uint32_t rep[4];
    prob_t is_match[STATES][POS_MAX], is_rep[STATES], is_rep0[STATES], is_rep1[STATES], is_rep2[STATES];
    prob_t is_rep0_long[STATES][POS_MAX];
    prob_t pos_slot[4][64], spec[FULL_DISTANCES - END_POS_MODEL], align[1 << ALIGN_BITS];
    struct len_coder len, rep_len;
    prob_t literal[LIT_MAX];
    const char *why;
    bool alone;                         /* a .lzma stream: its end marker ends it */
    bool ended;                         /* ... and it came */
    bool to_cap;                        /* its size is not known: chunk_end is the buffer's end */
};

static struct lzma lz;                  /* 28 KiB of model: not on the stack (one decoder at a time) */

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

static void reset_state(struct lzma *z)
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

static int fail(struct lzma *z, int err, const char *why)
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
            return fail(z, -XEN_EINVAL, "lzma: match byte before the dictionary");
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
        return z->to_cap ? fail(z, -XEN_ENOSPC, "lzma: output larger than its buffer")
                         : fail(z, -XEN_EINVAL, "lzma: chunk data longer than its header says");
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
        return fail(z, -XEN_EINVAL, "lzma: match distance before the dictionary");
    if (len > z->chunk_end - z->out_pos)
        return z->to_cap ? fail(z, -XEN_ENOSPC, "lzma: output larger than its buffer")
                         : fail(z, -XEN_EINVAL, "lzma: chunk data longer than its header says");
    uint8_t *o = z->out + z->out_pos;  /* locals: the byte stores may alias z */
    const uint8_t *from = o - dist;     /* within out: dist was checked against the dictionary */
    for (uint32_t i = 0; i < len; i++)
        o[i] = from[i];
    z->out_pos += len;
    return 0;
}

/* One LZMA chunk: decode until chunk_end bytes of output (or, in a .lzma stream, its end
 * marker). The range decoder works on a local copy (inlined: it stays in registers, where the
 * output's byte stores cannot force it back to memory) that goes back to *start at the end. */
static inline __attribute__((always_inline)) int lzma_chunk_rc(struct lzma *z, struct rc *r);

static int lzma_chunk(struct lzma *z, struct rc *start)
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
                    return fail(z, -XEN_EINVAL, "lzma: end marker inside an LZMA2 chunk");
                z->ended = true;
                break;
            }
        } else {
            if (z->out_pos == z->dict_start)
                return fail(z, -XEN_EINVAL, "lzma: repeated match with an empty dictionary");
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
        return fail(z, -XEN_EINVAL, "lzma: compressed chunk ends early");
    return 0;
}

static int set_props(struct lzma *z, uint8_t props)
{
    if (props >= 9 * 5 * 5)
        return fail(z, -XEN_EINVAL, "lzma2: invalid properties byte");
    z->lc = props % 9;
    z->lp = (props / 9) % 5;
    z->pb = props / 45;
    if (z->lc + z->lp > 4)
        return fail(z, -XEN_EINVAL, "lzma2: lc + lp > 4");
    return 0;
}

int lzma2_decode(const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out, size_t out_start,
                 size_t out_cap, size_t *out_pos, const char **why)
{
    struct lzma *zp = &lz;
    size_t p = 0;
    bool need_dict = true, need_props = true;
    int rc = 0;

    memset(zp, 0, sizeof(*zp));
    zp->out = out;
    zp->out_pos = out_start;
    zp->out_cap = out_cap;
    zp->dict_start = out_start;
    zp->why = "";
    for (;;) {
        if (p >= in_len) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: input ends without an end marker");
            break;
        }
        uint8_t ctl = in[p++];
        if (ctl == 0)
            break;
        if (ctl >= 3 && ctl < 0x80) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: invalid chunk control byte");
            break;
        }
        unsigned reset = ctl >= 0x80 ? (ctl >> 5) & 3 : 0;
        bool dict_reset = ctl == 1 || reset == 3;
        if (need_dict && !dict_reset) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: first chunk does not reset the dictionary");
            break;
        }
        if (dict_reset) {
            zp->dict_start = zp->out_pos;
            need_dict = false;
        }
        size_t hdr = ctl >= 0x80 ? 4 + (reset >= 2) : 2;
        if (in_len - p < hdr) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: truncated chunk header");
            break;
        }
        size_t usize = ((size_t)in[p] << 8 | in[p + 1]) + 1;
        if (ctl >= 0x80)
            usize += (size_t)(ctl & 0x1f) << 16;
        if (usize > out_cap - zp->out_pos) {
            rc = fail(zp, -XEN_ENOSPC, "lzma2: output larger than its buffer");
            break;
        }
        if (ctl < 0x80) {               /* uncompressed chunk */
            p += 2;
            if (in_len - p < usize) {
                rc = fail(zp, -XEN_EINVAL, "lzma2: truncated uncompressed chunk");
                break;
            }
            memcpy(out + zp->out_pos, in + p, usize);
            zp->out_pos += usize;
            p += usize;
            continue;
        }
        size_t csize = ((size_t)in[p + 2] << 8 | in[p + 3]) + 1;
        if (reset >= 2 && (rc = set_props(zp, in[p + 4])))
            break;
        if (reset >= 2)
            need_props = false;
        if (need_props) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: LZMA chunk without properties");
            break;
        }
        p += hdr;
        if (in_len - p < csize || csize < 5) {
            rc = fail(zp, -XEN_EINVAL, "lzma2: truncated LZMA chunk");
            break;
        }
        if (reset >= 1)
            reset_state(zp);
        struct rc r = { .in = in, .pos = p, .end = p + csize, .range = 0xffffffffu };
        if (next_byte(&r) != 0) {
            rc = fail(zp, -XEN_EINVAL, "lzma: range coder does not start with 0");
            break;
        }
        for (int i = 0; i < 4; i++)
            r.code = (r.code << 8) | next_byte(&r);
        zp->chunk_end = zp->out_pos + usize;
        if ((rc = lzma_chunk(zp, &r)))
            break;
        p += csize;
    }
    *in_used = p;
    *out_pos = zp->out_pos;
    *why = zp->why;
    return rc;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The .lzma ("alone") format: the properties byte, a 32-bit dictionary size (no limit here: the
 * output is the dictionary), a 64-bit uncompressed size (all ones: not known, the stream then
 * ends with the end marker), and the range-coded LZMA data. xz-utils' `lzma -9` from a pipe,
 * as the kernel build runs it, writes an unknown size and the marker. */
int unlzma(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    struct lzma *z = &lz;
    int rc;

    *out_len = 0;
    memset(z, 0, sizeof(*z));
    z->why = "";
    if (in_len < 13 + 5) {
        *why = "lzma: shorter than its header";
        return ERR(-XEN_EINVAL);
    }
    if ((rc = set_props(z, in[0]))) {
        *why = z->why;
        return rc;
    }
    uint64_t size = le64(in + 5);
    bool known = size != ~0ull;
    if (known && size > out_cap) {
        *why = "lzma: output larger than its buffer";
        return ERR(-XEN_ENOSPC);
    }
    z->out = out;
    z->out_cap = out_cap;
    z->alone = true;
    z->to_cap = !known;
    z->chunk_end = known ? (size_t)size : out_cap;
    reset_state(z);
    struct rc r = { .in = in, .pos = 13, .end = in_len, .range = 0xffffffffu };
    if (next_byte(&r) != 0) {
        *why = "lzma: range coder does not start with 0";
        return ERR(-XEN_EINVAL);
    }
    for (int i = 0; i < 4; i++)
        r.code = (r.code << 8) | next_byte(&r);
    rc = lzma_chunk(z, &r);
    *why = z->why;
    if (rc)
        return rc;
    if (!known && !z->ended && z->out_pos == out_cap) {
        *why = "lzma: output larger than its buffer";
        return ERR(-XEN_ENOSPC);
    }
    /* whole: the input lasted, and the range coder ends at 0 (what the encoder's flush leaves).
     * The decoder may not need the flush's last byte: a stream cut there still gives all of its
     * data, exactly. */
    if (r.overrun || r.code != 0) {
        *why = "lzma: the stream is cut short or corrupt at its end";
        return ERR(-XEN_EINVAL);
    }
    if (!known && !z->ended) {
        *why = "lzma: no end marker";
        return ERR(-XEN_EINVAL);
    }
    if (known && z->out_pos != size) {
        *why = "lzma: the stream ends before its size";
        return ERR(-XEN_EINVAL);
    }
    *out_len = z->out_pos;
    return 0;
}
