/* layout.h: the 32-bit guest's structures, from Debian's libxen-dev (xen/foreign/x86_32.h, packed
 * as the i386 ABI lays them out), and the few offsets into shared_info the shim touches. */
#ifndef COMPAT_LAYOUT_H
#define COMPAT_LAYOUT_H

#include "xen-abi.h"
/* (the foreign header defines xen_wc_sec_hi for i386 readers; the native one's is ours) */
#pragma push_macro("xen_wc_sec_hi")
#undef xen_wc_sec_hi
#include <xen/foreign/x86_32.h>
#pragma pop_macro("xen_wc_sec_hi")

#include "shim/lib.h"

/* vcpu.h has no foreign form: its runstate record as i386 lays it out (uint64_t 4-aligned) */
struct vcpu_runstate_info_x86_32 {
    int32_t state;
    uint64_t state_entry_time;
    uint64_t time[4];
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct vcpu_runstate_info_x86_32) == 44, "i386's vcpu_runstate_info");

_Static_assert(sizeof(struct vcpu_info_x86_32) == 64, "a compat vcpu_info is 64 bytes, as the native one");
_Static_assert(offsetof(struct vcpu_info_x86_32, time) == offsetof(struct vcpu_info, time),
               "the pvclock sits where the native one does");
_Static_assert(offsetof(struct shared_info_x86_32, evtchn_pending) == offsetof(struct shared_info, evtchn_pending),
               "the pending bitmap starts where the native one does (so its bit n is the same byte)");

#endif
