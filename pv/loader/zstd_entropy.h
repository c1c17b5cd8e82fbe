/* zstd_entropy.h: unzstd's entropy stage (zstd_entropy.c): the backward bitstream, FSE tables and
 * Huffman-coded literals. Private to unzstd.c. */
#ifndef PV_ZSTD_ENTROPY_H
#define PV_ZSTD_ENTROPY_H

#include "shim/debug.h"
#include "shim/lib.h"
#include "shim/xerrno.h"

/* Set *why and give the error, traced at the line that returns it. */
#define ZFAIL(why, err, msg) (*(why) = (msg), ERR((err), (msg)))

#define ZSTD_BLOCK_MAX  (128u << 10)    /* a block's content and output, at most */
#define HUF_MAX_BITS    11
#define ZFSE_MAX_SYMS   64              /* symbols of any FSE distribution (match lengths: 53) */

static inline uint32_t zle16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t zle32(const uint8_t *p)
{
    return zle16(p) | zle16(p + 2) << 16;
}

static inline uint64_t zle64(const uint8_t *p)
{
    return (uint64_t)zle32(p) | (uint64_t)zle32(p + 4) << 32;
}

static inline unsigned zhighbit(uint32_t x)    /* x != 0 */
{
    return 31u - (unsigned)__builtin_clz(x);
}

/*
 * A bitstream read from its end back to its start: the last byte's highest set bit marks where
 * the data begins, and a field of k bits is the k bits below the read position, little-endian.
 * pos counts the bits left; reading past the start gives zeros and makes pos negative, which the
 * decoders check where the format says the stream must end exactly.
 */
struct zbits {
    const uint8_t *p;
    size_t n;
    ptrdiff_t pos;
};

int zbits_init(struct zbits *b, const uint8_t *p, size_t n, const char **why);
uint64_t zbits_edge(const struct zbits *b, ptrdiff_t start);

/* 57 or more bits from bit `start` up, zeros outside the stream. */
static inline uint64_t zbits_load(const struct zbits *b, ptrdiff_t start)
{
    if (likely(start >= 0 && (size_t)(start >> 3) + 8 <= b->n))
        return zle64(b->p + (start >> 3)) >> (start & 7);
    return zbits_edge(b, start);
}

static inline uint32_t zbits_peek(const struct zbits *b, unsigned k)     /* k <= 32 */
{
    return (uint32_t)(zbits_load(b, b->pos - (ptrdiff_t)k) & ((1ull << k) - 1));
}

static inline uint32_t zbits_read(struct zbits *b, unsigned k)
{
    uint32_t v = zbits_peek(b, k);

    b->pos -= (ptrdiff_t)k;
    return v;
}

/* An FSE decoding table's cell: the symbol, and the next state (base + the next `bits` bits). */
struct zfse {
    uint16_t base;
    uint8_t sym, bits;
};

/* The table (1 << log cells) of a distribution of nsym probabilities (-1: "less than 1"). */
int zfse_build(struct zfse *t, const int16_t *prob, unsigned nsym, unsigned log, const char **why);
/* The table of the distribution described at p[0, n) (*used bytes of it), a log <= max_log
 * (the table must hold 1 << max_log cells), symbols <= max_sym < ZFSE_MAX_SYMS. */
int zfse_read(const uint8_t *p, size_t n, size_t *used, struct zfse *t, unsigned *log, unsigned max_log,
              unsigned max_sym, const char **why);

/* A Huffman decoding table: indexed by the next max_bits bits, the symbol and its code length. */
struct zhuf {
    struct {
        uint8_t sym, bits;
    } cell[1u << HUF_MAX_BITS];
    unsigned max_bits;
    bool ok;                            /* set: a treeless literals block may reuse it */
};

/* The Huffman tree description at p[0, n) (*used bytes of it) into h. */
int zhuf_read(struct zhuf *h, const uint8_t *p, size_t n, size_t *used, const char **why);
/* Huffman-coded literals p[0, n) (1 stream, or 4 after a jump table) to out[0, regen). */
int zhuf_decode(const struct zhuf *h, const uint8_t *p, size_t n, uint8_t *out, size_t regen, bool four,
                const char **why);

#endif
