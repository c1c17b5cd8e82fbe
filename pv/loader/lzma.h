/* lzma.h: the LZMA decoder's state and its core (lzma.c), shared by its two containers: LZMA2
 * chunks (lzma2.c, inside xz) and the legacy .lzma stream (unlzma.c). */
#ifndef PV_LOADER_LZMA_H
#define PV_LOADER_LZMA_H

#include "shim/lib.h"

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

extern struct lzma lzma_dec;            /* 28 KiB of model: not on the stack (one decoder at a time) */

int lzma_fail(struct lzma *z, int err, const char *why);       /* z->why = why; ERR(err) */
void lzma_reset_state(struct lzma *z);  /* every probability to its start, state and reps to 0 */
int lzma_set_props(struct lzma *z, uint8_t props);              /* lc, lp, pb from the props byte */
/* A range decoder over in[pos, end): false if its first byte is not the 0 every stream starts with. */
bool lzma_rc_start(struct rc *r, const uint8_t *in, size_t pos, size_t end);
/* One LZMA chunk: decode until chunk_end bytes of output (or, in a .lzma stream, its end
 * marker), the range decoder left where it stopped. */
int lzma_chunk(struct lzma *z, struct rc *start);

#endif
