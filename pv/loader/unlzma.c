/* unlzma.c: the legacy .lzma stream (a bzImage built with CONFIG_KERNEL_LZMA): one LZMA stream
 * (lzma.c) after a 13-byte header. */
#include "pv/loader/decompress.h"
#include "pv/loader/lzma.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

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
    struct lzma *z = &lzma_dec;
    int rc;

    *out_len = 0;
    memset(z, 0, sizeof(*z));
    z->why = "";
    if (in_len < 13 + 5) {
        *why = "lzma: shorter than its header";
        return ERR(-XEN_EINVAL);
    }
    if ((rc = lzma_set_props(z, in[0]))) {
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
    lzma_reset_state(z);
    struct rc r;
    if (!lzma_rc_start(&r, in, 13, in_len)) {
        *why = "lzma: range coder does not start with 0";
        return ERR(-XEN_EINVAL);
    }
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
