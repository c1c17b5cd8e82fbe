/*
 * unlz4.c: the LZ4 payload of a Linux bzImage built with CONFIG_KERNEL_LZ4: the legacy frame
 * (`lz4 -l`: the magic 0x184c2102, then chunks of a 32-bit little-endian compressed size and an
 * LZ4 block of at most 8 MiB of output, each on its own; a magic again between chunks starts a
 * concatenated stream) followed by the 4-byte little-endian size the kernel build appends. The
 * frame has no end mark or checksum, so that size is what says the stream is whole: the output
 * must come to exactly it.
 *
 * An LZ4 block is sequences of a token (literal count in its high nibble, match length - 4 in
 * its low one, 15 meaning "more bytes follow, each adding up to 255"), the literals, then a
 * 16-bit little-endian offset back into the block's output and the match; the last sequence has
 * literals only. Every length and offset is checked against the buffers.
 */
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_CHUNK (8u << 20)     /* a chunk's output, at most */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A length with its 255-byte extensions; false if the input ends inside it. */
static bool ext_len(const uint8_t *in, size_t n, size_t *i, size_t *len)
{
    uint8_t b;

    do {
        if (*i >= n)
            return false;
        b = in[(*i)++];
        *len += b;
    } while (b == 255);
    return true;
}

/* One block in[0, n) to out[*pos, cap), its matches within this block's output (from start). */
static int block(const uint8_t *in, size_t n, uint8_t *out, size_t start, size_t cap, size_t *pos,
                 const char **why)
{
    size_t i = 0, o = *pos;

    while (i < n) {
        uint8_t token = in[i++];
        size_t lit = token >> 4, match = (token & 15u) + 4;
        if (lit == 15 && !ext_len(in, n, &i, &lit))
            goto corrupt;
        if (lit > n - i)
            goto corrupt;
        if (lit > cap - o) {
            *why = "lz4: output larger than its buffer";
            return ERR(-XEN_ENOSPC);
        }
        memcpy(out + o, in + i, lit);
        i += lit;
        o += lit;
        if (i == n)
            break;                      /* the last sequence: literals only */
        if (n - i < 2)
            goto corrupt;
        size_t off = (size_t)in[i] | (size_t)in[i + 1] << 8;
        i += 2;
        if ((token & 15u) == 15 && !ext_len(in, n, &i, &match))
            goto corrupt;
        if (off == 0 || off > o - start)
            goto corrupt;
        if (match > cap - o) {
            *why = "lz4: output larger than its buffer";
            return ERR(-XEN_ENOSPC);
        }
        for (size_t k = 0; k < match; k++, o++)     /* byte by byte: a match may overlap itself */
            out[o] = out[o - off];
        if (o - start > LZ4_LEGACY_CHUNK)
            goto corrupt;
    }
    if (o - start > LZ4_LEGACY_CHUNK)
        goto corrupt;
    *pos = o;
    return 0;
corrupt:
    *why = "lz4: corrupt block";
    return ERR(-XEN_EINVAL);
}

int unlz4(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *out_len, const char **why)
{
    size_t i = 4, o = 0;

    *out_len = 0;
    if (in_len < 8 || le32(in) != LZ4_LEGACY_MAGIC) {
        *why = "lz4: not a legacy-format stream with its size";
        return ERR(-XEN_EINVAL);
    }
    size_t n = in_len - 4;              /* the stream; the appended size after it */
    uint32_t want = le32(in + n);
    if (want > out_cap) {
        *why = "lz4: output larger than its buffer";
        return ERR(-XEN_ENOSPC);
    }
    while (i < n) {
        if (n - i < 4)
            goto corrupt;
        uint32_t csize = le32(in + i);
        i += 4;
        if (csize == LZ4_LEGACY_MAGIC)
            continue;                   /* a concatenated stream begins */
        if (csize == 0 || csize > n - i)
            goto corrupt;
        int rc = block(in + i, csize, out, o, out_cap, &o, why);
        if (rc)
            return rc;
        i += csize;
    }
    if (o != want) {
        *why = "lz4: the output is not the size the image gives";
        return ERR(-XEN_EINVAL);
    }
    *out_len = o;
    return 0;
corrupt:
    *why = "lz4: corrupt chunk header";
    return ERR(-XEN_EINVAL);
}
