/*
 * segdesc.h: which segment descriptors a 64-bit PV guest may install in its GDT or LDT (Xen's
 * check_descriptor), hardware-free: compiled into the shim and the host unit tests.
 */
#ifndef PV_SEGDESC_H
#define PV_SEGDESC_H

#include "shim/lib.h"

#define SEGDESC_PER_PAGE 512

extern bool segdesc_compat;             /* a 32-bit guest's rules (ring-1 kernel) */

/* Check one descriptor; true if allowed, with *d rewritten to the form that is stored. */
bool segdesc_check(uint64_t *d);

/* Check (and fix up in place, as Xen does) all 512 descriptors of a page: 0 or -XEN_EINVAL. */
int segdesc_check_page(uint64_t *page);

#endif
