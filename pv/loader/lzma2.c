/*
 * lzma2.c: LZMA2, the xz format's compressor: chunk headers (uncompressed chunks, and LZMA chunks
 * with state, property and dictionary resets) around the LZMA core (lzma.c), written from the
 * format's description.
 */
#include "pv/loader/decompress.h"
#include "pv/loader/lzma.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

int lzma2_decode(const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out, size_t out_start,
                 size_t out_cap, size_t *out_pos, const char **why)
{
    struct lzma *zp = &lzma_dec;
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
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: input ends without an end marker");
            break;
        }
        uint8_t ctl = in[p++];
        if (ctl == 0)
            break;
        if (ctl >= 3 && ctl < 0x80) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: invalid chunk control byte");
            break;
        }
        unsigned reset = ctl >= 0x80 ? (ctl >> 5) & 3 : 0;
        bool dict_reset = ctl == 1 || reset == 3;
        if (need_dict && !dict_reset) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: first chunk does not reset the dictionary");
            break;
        }
        if (dict_reset) {
            zp->dict_start = zp->out_pos;
            need_dict = false;
        }
        size_t hdr = ctl >= 0x80 ? 4 + (reset >= 2) : 2;
        if (in_len - p < hdr) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: truncated chunk header");
            break;
        }
        size_t usize = ((size_t)in[p] << 8 | in[p + 1]) + 1;
        if (ctl >= 0x80)
            usize += (size_t)(ctl & 0x1f) << 16;
        if (usize > out_cap - zp->out_pos) {
            rc = lzma_fail(zp, -XEN_ENOSPC, "lzma2: output larger than its buffer");
            break;
        }
        if (ctl < 0x80) {               /* uncompressed chunk */
            p += 2;
            if (in_len - p < usize) {
                rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: truncated uncompressed chunk");
                break;
            }
            memcpy(out + zp->out_pos, in + p, usize);
            zp->out_pos += usize;
            p += usize;
            continue;
        }
        size_t csize = ((size_t)in[p + 2] << 8 | in[p + 3]) + 1;
        if (reset >= 2 && (rc = lzma_set_props(zp, in[p + 4])))
            break;
        if (reset >= 2)
            need_props = false;
        if (need_props) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: LZMA chunk without properties");
            break;
        }
        p += hdr;
        if (in_len - p < csize || csize < 5) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma2: truncated LZMA chunk");
            break;
        }
        if (reset >= 1)
            lzma_reset_state(zp);
        struct rc r;
        if (!lzma_rc_start(&r, in, p, p + csize)) {
            rc = lzma_fail(zp, -XEN_EINVAL, "lzma: range coder does not start with 0");
            break;
        }
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
