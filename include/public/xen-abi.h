/*
 * xen-abi.h: the one way freestanding code here (the shim, our PV test guests) includes Xen's
 * public ABI headers. They come from Debian's libxen-dev (/usr/include/xen); we never retype them.
 * We ask for the latest interface version: the shim implements it towards its guest and speaks
 * it to L0, and the test guests exercise it. Assembly files get xen.h alone (the others are C), at
 * the same version: without it, xen.h maps some hypercall numbers to their pre-3.2 compat ones.
 */
#ifndef PUBLIC_XEN_ABI_H
#define PUBLIC_XEN_ABI_H

#define __XEN_INTERFACE_VERSION__ 0x00040e00

#ifdef __ASSEMBLY__
#include <xen/xen.h>
#else
#include <stdint.h>

#include <xen/xen.h>
#include <xen/xen-compat.h>
#include <xen/elfnote.h>
#include <xen/version.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/event_channel.h>
#include <xen/grant_table.h>
#include <xen/vcpu.h>
#include <xen/callback.h>
#include <xen/physdev.h>
#include <xen/features.h>
#include <xen/nmi.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/arch-x86/cpuid.h>
#include <xen/io/console.h>
#include <xen/io/xs_wire.h>
#include <xen/errno.h>
#endif

#endif
