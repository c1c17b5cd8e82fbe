/* image.h: boot module 0 as an ELF image in shim memory: as is, or decompressed from a bzImage. */
#ifndef PV_IMAGE_H
#define PV_IMAGE_H

#include "shim/lib.h"

#define PV_IMAGE_MAX_ELF (512ull << 20)         /* a decompressed kernel larger than this is refused */

struct pv_kimage {
    const uint8_t *elf;
    size_t elf_len;
    uint64_t mod_pa, mod_len;           /* module 0 (guest-pool frames, freed by close) */
    uint64_t *tmp_mfns;                 /* decompression buffer frames (guest pool), or NULL */
    uint64_t nr_tmp;
};

int pv_image_open(struct pv_kimage *k, uint64_t pa, uint64_t len, char *why, size_t why_size);
void pv_image_close(struct pv_kimage *k);

#endif
