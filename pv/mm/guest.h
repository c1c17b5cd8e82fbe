/* guest.h: the guest's memory from the shim: checked ranges, fault-safe copies, frame ownership. */
#ifndef PV_MM_GUEST_H
#define PV_MM_GUEST_H

#include "shim/lib.h"

/* guest.c: -XEN_EFAULT on a bad pointer. */
int copy_from_guest(void *dst, uint64_t src, size_t n);
int copy_to_guest(uint64_t dst, const void *src, size_t n);
bool guest_range_ok(uint64_t va, size_t n);    /* Xen's guest_handle_okay: may be guest memory */
bool pv_mfn_is_guest(uint64_t mfn);     /* a frame of the guest's RAM */
bool pv_mfn_is_special(uint64_t mfn);   /* shared_info, console or store page: mappable */
bool pv_walk_l1e(uint64_t va, uint64_t *l1, uint64_t *e);   /* va's L1 table and entry */

/* copy.S: the copy loop whose faults return (the bytes not copied) instead of panicking */
size_t guest_copy_raw(void *dst, const void *src, size_t n);

#endif
