/* loader.h: building the PV domain from its boot modules (an ELF or a bzImage, and an initrd). */
#ifndef PV_LOADER_H
#define PV_LOADER_H

#include "shim/lib.h"

struct boot_info;

/* build.c: build the domain from boot module 0 (and 1, the initrd). */
int pv_build(const struct boot_info *bi);
const char *pv_build_error(void);       /* the one-line reason pv_build failed */
/* vCPU 0's first registers: where the image enters, its start_info, its stack */
uint64_t pv_entry_rip(void);
uint64_t pv_entry_rsi(void);
uint64_t pv_entry_rsp(void);

#endif
