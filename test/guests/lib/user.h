/*
 * user.h: run a function in the guest's user mode, as XTF's exec_user. A 64-bit PV kernel gets
 * user mode from the hypervisor: HYPERVISOR_iret to a frame with RPL 3 switches to the user L4
 * (MMUEXT_NEW_USER_BASEPTR, here a copy of the kernel's guest mappings), and a SYSCALL or an
 * exception in user mode comes back to the kernel on the stack_switch stack. user_run(fn) enters
 * fn in user mode with events masked; fn returning, or any exception it takes, ends the run.
 *
 * The 32-bit build (x86_32/user.S): the ring-1 kernel and ring 3 share one set of page tables
 * (compat_mmuext_op refuses MMUEXT_NEW_USER_BASEPTR), so user_init gives the image's pages
 * _PAGE_USER, which Xen's builder leaves out of a 32-bit kernel's L1 entries (dom0_construct_pv,
 * COMPAT_L1_PROT). There is no SYSCALL callback (compat_register_guest_callback knows syscall32
 * and sysenter only, both vendor-bound): the end of a run is int $0x80, a DPL-3 trap gate
 * user_init registers for vector 0x80, as Linux does for 32-bit processes. Ring 3 also needs data
 * segments it may use: user_enter loads FLAT_USER_DS (a DPL-1 one turns null at the iret to
 * ring 3) and user_return puts the kernel's back.
 */
#ifndef GUEST_USER_H
#define GUEST_USER_H

#include <stdint.h>

/* What ended a run that faulted: vector and error code (0 when fn returned). */
#ifdef __i386__
/* 32 bits: the vector in bits 16-23 and the low 16 bits of the error code (all an exception's
 * error code has: #PF's flags, a selector or IDT index) */
#define USER_FAULT(vector, error) (1ul << 31 | (unsigned long)(vector) << 16 | (uint16_t)(error))
#else
#define USER_FAULT(vector, error) (1ul << 63 | (unsigned long)(vector) << 32 | (uint32_t)(error))
#endif

/* Once: the user L4, the kernel stack for user mode's traps, the syscall callback (32-bit: the
 * image's pages for ring 3, the kernel stack, the int $0x80 gate). */
void user_init(void);
unsigned long user_run(void (*fn)(void));
/* Where the last run that faulted took its fault (the frame's rip) */
extern volatile unsigned long user_fault_rip;

#ifdef __i386__
/* Give ring 3 the pages of [start, end) that are mapped: _PAGE_USER added to their L1 entries,
 * the rest kept. 0, or the first error of update_va_mapping (or of the TLB flush). */
long user_pages(const void *start, const void *end);
#endif

#endif
