/* zstd.h: the zstd decoder's state, shared by its frame and block layer (unzstd.c) and its
 * sequences (zstd_seq.c); the entropy decoders are zstd_entropy.h's. */
#ifndef PV_LOADER_ZSTD_H
#define PV_LOADER_ZSTD_H

#include "pv/loader/zstd_entropy.h"

#define SEQ_MAX_LOG 9

/* A sequence code's decoding table, kept for a later block's repeat mode. */
struct seq_table {
    struct zfse cell[1u << SEQ_MAX_LOG];
    unsigned log;
    bool ok;
};

/* The output and what a frame's blocks pass on: 10 KiB, not on the stack (one decoder at a
 * time; unzstd.c). */
struct zstd {
    uint8_t *out;
    size_t pos, cap;
    size_t frame;                       /* where this frame's output starts */
    size_t block_max;
    size_t end;                         /* a compressed block's output ends by: cap, or its maximum */
    size_t rep[3];
    struct seq_table ll, of, ml;
    struct zhuf huf;
};

/* A block's literals not yet used: in the input (raw) or at the end of the output buffer. */
struct lits {
    const uint8_t *p;
    size_t left;
};

extern struct zstd zstd_dec;

/* The sequences section in[0, n) of a compressed block, executed into the output as they come. */
int zstd_sequences(const uint8_t *in, size_t n, struct lits *lit, const char **why);

#endif
