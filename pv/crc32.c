/* crc32.c: CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320), as gzip and xz use it. */
#include "decompress.h"

uint32_t crc32_le(const uint8_t *p, size_t n)
{
    static uint32_t table[256];

    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}
