/*
 * hvm-start-info.h: the PVH boot ABI (struct hvm_start_info, the module list and the memory map
 * table) for freestanding code. Debian's libxen-dev ships it as <xen/arch-x86/hvm/start_info.h>;
 * we include that instead of retyping it.
 */
#ifndef PUBLIC_HVM_START_INFO_H
#define PUBLIC_HVM_START_INFO_H

#include <stdint.h>
#include <xen/arch-x86/hvm/start_info.h>

#endif
