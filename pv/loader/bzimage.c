/* bzimage.c: the x86 boot protocol's setup header, the payload it points at, and its format. */
#include "pv/loader/bzimage.h"
#include "pv/loader/decompress.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

/* Offsets in the setup header (Documentation/x86/boot.rst). */
#define OFF_SETUP_SECTS    0x1f1
#define OFF_HEADER         0x202        /* "HdrS" */
#define OFF_VERSION        0x206
#define OFF_PAYLOAD_OFFSET 0x248
#define OFF_PAYLOAD_LENGTH 0x24c
#define MIN_VERSION        0x0208       /* payload_offset/length exist */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int bzimage_probe(const uint8_t *img, size_t len, struct bzimage *bz, const char **why)
{
    memset(bz, 0, sizeof(*bz));
    if (len < OFF_PAYLOAD_LENGTH + 4 || memcmp(img + OFF_HEADER, "HdrS", 4))
        return 0;
    uint16_t version = (uint16_t)(img[OFF_VERSION] | img[OFF_VERSION + 1] << 8);
    if (version < MIN_VERSION) {
        *why = "bzImage boot protocol older than 2.08 (no payload pointer)";
        return ERR(-XEN_EOPNOTSUPP);
    }
    uint64_t setup = ((uint64_t)(img[OFF_SETUP_SECTS] ? img[OFF_SETUP_SECTS] : 4) + 1) * 512;
    uint64_t off = setup + le32(img + OFF_PAYLOAD_OFFSET), plen = le32(img + OFF_PAYLOAD_LENGTH);
    if (off > len || plen > len - off || plen < 8) {
        *why = "bzImage payload lies outside the image";
        return ERR(-XEN_EINVAL);
    }
    bz->payload = img + off;
    bz->payload_len = plen;
    bz->out_len = le32(bz->payload + plen - 4);
    if (plen >= 2 && bz->payload[0] == 0x1f && bz->payload[1] == 0x8b)
        bz->format = BZ_GZIP;
    else if (plen >= 6 && !memcmp(bz->payload, "\3757zXZ\0", 6))
        bz->format = BZ_XZ;
    else if (!memcmp(bz->payload, "\x02\x21\x4c\x18", 4))
        bz->format = BZ_LZ4;
    else if (bz->payload[0] == 0x5d && bz->payload[1] == 0x00)   /* lzma's usual properties, as Linux tells it */
        bz->format = BZ_LZMA;
    else if (plen >= 9 && !memcmp(bz->payload, "\x89LZO\0\r\n\x1a\n", 9))
        bz->format = BZ_LZO;
    else if (!memcmp(bz->payload, "BZh", 3) && bz->payload[3] >= '1' && bz->payload[3] <= '9')
        bz->format = BZ_BZIP2;
    else if (!memcmp(bz->payload, "\x28\xb5\x2f\xfd", 4))
        bz->format = BZ_ZSTD;
    else
        bz->format = BZ_OTHER;
    return 1;
}

const char *bz_format_name(enum bz_format f)
{
    static const char *const names[] = { [BZ_GZIP] = "gzip", [BZ_XZ] = "xz", [BZ_LZMA] = "lzma", [BZ_LZ4] = "lz4",
                                         [BZ_LZO] = "lzo", [BZ_BZIP2] = "bzip2", [BZ_ZSTD] = "zstd" };

    return (unsigned)f < ARRAY_SIZE(names) && names[f] ? names[f] : "?";
}

size_t bzimage_work_size(const struct bzimage *bz)
{
    return bz->format == BZ_BZIP2 ? BUNZIP2_WORK_WORDS * sizeof(uint32_t) : 0;
}

int bzimage_decompress(const struct bzimage *bz, uint8_t *out, size_t out_cap, size_t *out_len, void *work,
                       const char **why)
{
    switch (bz->format) {
    case BZ_GZIP:
        return gunzip(bz->payload, bz->payload_len, out, out_cap, out_len, why);
    case BZ_XZ:
        /* the last 4 bytes are the size the kernel build appended, not part of the xz stream */
        return unxz(bz->payload, bz->payload_len - 4, out, out_cap, out_len, why);
    case BZ_LZMA:
        return unlzma(bz->payload, bz->payload_len - 4, out, out_cap, out_len, why);
    case BZ_LZ4:
        return unlz4(bz->payload, bz->payload_len, out, out_cap, out_len, why);  /* with its size */
    case BZ_LZO:
        return unlzo(bz->payload, bz->payload_len - 4, out, out_cap, out_len, why);
    case BZ_BZIP2:
        return bunzip2(bz->payload, bz->payload_len - 4, out, out_cap, out_len, work, BUNZIP2_WORK_WORDS, why);
    case BZ_ZSTD:
        return unzstd(bz->payload, bz->payload_len - 4, out, out_cap, out_len, why);
    default:
        *why = "bzImage payload in no format Linux builds (gzip, bzip2, lzma, xz, lzo, lz4, zstd)";
        return ERR(-XEN_EOPNOTSUPP);
    }
}
