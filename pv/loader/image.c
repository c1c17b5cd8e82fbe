/* image.c: opens boot module 0: an ELF is used in place; a bzImage is decompressed into guest frames. */
#include "pv/loader/bzimage.h"
#include "pv/loader/image.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

static int say(char *why, size_t size, int err, const char *msg)
{
    str_copy(why, msg, size);
    return ERR(err);
}

/* A buffer of n frames from the guest pool, contiguous in the shim's vmap area. */
static uint8_t *tmp_buffer(struct pv_kimage *k, uint64_t n)
{
    uintptr_t va = vmap_reserve(n + (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE);

    if (!va)
        return NULL;
    /* the frame list lives in the first pages of the window, the buffer after it */
    uint64_t list_pages = (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE;
    for (uint64_t i = 0; i < list_pages; i++) {
        int64_t f = alloc_frame();
        if (f < 0 || map_range(va + i * PAGE_SIZE, (uint64_t)f << PAGE_SHIFT, PAGE_SIZE, PTE_RW))
            return NULL;
    }
    k->tmp_mfns = (uint64_t *)va;
    uintptr_t buf = va + list_pages * PAGE_SIZE;
    for (uint64_t i = 0; i < n; i++) {
        int64_t f = frame_alloc(&guest_pool, 1, 0, 0, FRAME_HIGHEST);
        if (f < 0 || map_range(buf + i * PAGE_SIZE, (uint64_t)f << PAGE_SHIFT, PAGE_SIZE, PTE_RW))
            return NULL;
        k->tmp_mfns[k->nr_tmp++] = (uint64_t)f;
    }
    return (uint8_t *)buf;
}

int pv_image_open(struct pv_kimage *k, uint64_t pa, uint64_t len, char *why, size_t why_size)
{
    const uint8_t *img = phys_to_virt(pa);
    const char *msg = "";
    struct bzimage bz;
    int rc;

    memset(k, 0, sizeof(*k));
    k->mod_pa = pa;
    k->mod_len = len;
    k->elf = img;
    k->elf_len = len;
    if (!len)
        return say(why, why_size, -XEN_EINVAL, "the kernel module is empty");
    if ((rc = bzimage_probe(img, len, &bz, &msg)) <= 0)
        return rc ? say(why, why_size, rc, msg) : 0;
    if (bz.out_len < 64 || bz.out_len > PV_IMAGE_MAX_ELF) {
        snprintf_(why, why_size, "bzImage claims an absurd decompressed size (%lu bytes)", bz.out_len);
        return ERR(-XEN_EINVAL);
    }
    uint64_t pages = ALIGN_UP(bz.out_len, PAGE_SIZE) >> PAGE_SHIFT;
    uint64_t work_pages = ALIGN_UP(bzimage_work_size(&bz), PAGE_SIZE) >> PAGE_SHIFT;
    if (pages + work_pages + 1024 > guest_pool.free_frames) {
        snprintf_(why, why_size, "no room to decompress a %lu MiB kernel", bz.out_len >> 20);
        return ERR(-XEN_ENOMEM);
    }
    /* the decoder's work area follows its output in the same buffer, and goes with it */
    uint8_t *out = tmp_buffer(k, pages + work_pages);
    if (!out)
        return say(why, why_size, -XEN_ENOMEM, "cannot set up the decompression buffer");
    size_t n = 0;
    if ((rc = bzimage_decompress(&bz, out, pages * PAGE_SIZE, &n, work_pages ? out + pages * PAGE_SIZE : NULL, &msg))) {
        snprintf_(why, why_size, "bzImage (%s): %s", bz_format_name(bz.format),
                  msg);
        return rc;
    }
    pr_info("guest: bzImage, %s payload of %zu KiB -> %zu KiB\n", bz_format_name(bz.format),
            bz.payload_len / 1024, n / 1024);
    k->elf = out;
    k->elf_len = n;
    return 0;
}

void pv_image_close(struct pv_kimage *k)
{
    for (uint64_t i = 0; i < k->nr_tmp; i++)
        frame_free(&guest_pool, k->tmp_mfns[i], 1);
    k->nr_tmp = 0;
    uint64_t first = k->mod_pa >> PAGE_SHIFT, end = ALIGN_UP(k->mod_pa + k->mod_len, PAGE_SIZE) >> PAGE_SHIFT;
    for (uint64_t f = first; f < end; f++)
        frame_free(&guest_pool, f, 1);  /* frames the pool does not own are left alone */
    k->elf = NULL;
}
