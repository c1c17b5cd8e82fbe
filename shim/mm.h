/* mm.h: the shim's frame pools (its own and the future guest's) and page allocation. */
#ifndef SHIM_MM_H
#define SHIM_MM_H

#include "shim/frame.h"

struct boot_info;
struct shim_opts;

extern struct frame_pool shim_pool, guest_pool;
extern struct frame_map frame_map;
extern uint64_t trampoline_pa;          /* one page below 1 MiB for AP start-up */

int mm_init(const struct boot_info *bi, const struct shim_opts *o);
void mm_paging_ready(void);             /* paging_init switched: reach the frame map anew */
int64_t alloc_frame(void);              /* a zeroed shim frame, below 4 GiB */
int64_t alloc_frames(uint64_t nr);      /* nr contiguous zeroed shim frames, anywhere */
void *alloc_page_va(void);              /* the same, as a pointer */
void free_frame(uint64_t pfn);
void mm_report(void);

#endif
