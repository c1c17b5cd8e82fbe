/*
 * hypercall.h: the two ways a 64-bit PV guest kernel calls Xen, and typed wrappers. (The 32-bit
 * build, x86_32/, has int 0x82 where this says syscall: eax = number, args in ebx..edi.)
 *  - HC_SYSCALL: a raw `syscall` with rax = number, args in rdi, rsi, rdx, r10, r8 (what Debian's
 *    Linux 6.1 does; no hypercall page needed). syscall itself clobbers rcx and r11.
 *  - HC_PAGE: `call hypercall_page + nr*32`, the stubs the loader writes into the page named by
 *    XEN_ELFNOTE_HYPERCALL_PAGE (XTF, Mini-OS). Only there if the test asked for the page.
 * Which one is used can change at run time; every wrapper goes through the current one.
 */
#ifndef GUEST_HYPERCALL_H
#define GUEST_HYPERCALL_H

#include <stdbool.h>
#include "xen-abi.h"

enum hc_path { HC_SYSCALL, HC_PAGE };

/*
 * A test that wants the hypercall page says GUEST_USE_HYPERCALL_PAGE(); at file scope: the
 * undefined symbol makes the linker pull hcpage.o (page + ELF note) out of the library.
 */
#define GUEST_USE_HYPERCALL_PAGE() __asm__(".globl want_hypercall_page")

bool hypercall_page_present(void);
/* Switch paths; false (and no change) if HC_PAGE is asked for without a page. */
bool hypercall_set_path(enum hc_path path);
enum hc_path hypercall_get_path(void);
const char *hypercall_path_name(enum hc_path path);

long hypercall(unsigned int nr, unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long a5);

#define HC(nr, a1, a2, a3) hypercall((nr), (unsigned long)(a1), (unsigned long)(a2), \
				     (unsigned long)(a3), 0, 0)

static inline long hypercall_set_trap_table(const struct trap_info *t)
{ return HC(__HYPERVISOR_set_trap_table, t, 0, 0); }
/* A descriptor at machine address maddr; a 32-bit guest passes both as two halves, low first
 * (compat_update_descriptor). */
static inline long hypercall_update_descriptor(uint64_t maddr, uint64_t d)
{
#ifdef __i386__
	return hypercall(__HYPERVISOR_update_descriptor, (uint32_t)maddr, (uint32_t)(maddr >> 32), (uint32_t)d,
			 (uint32_t)(d >> 32), 0);
#else
	return HC(__HYPERVISOR_update_descriptor, maddr, d, 0);
#endif
}
/* A 32-bit guest passes the 64-bit PAE entry in two registers, low half first. */
static inline long hypercall_update_va_mapping(unsigned long va, uint64_t pte, unsigned long fl)
{
#ifdef __i386__
	return hypercall(__HYPERVISOR_update_va_mapping, va, (uint32_t)pte, (uint32_t)(pte >> 32), fl, 0);
#else
	return HC(__HYPERVISOR_update_va_mapping, va, pte, fl);
#endif
}
static inline long hypercall_console_io(int cmd, unsigned int count, const char *buf)
{ return HC(__HYPERVISOR_console_io, cmd, count, buf); }
static inline long hypercall_xen_version(int cmd, void *arg)
{ return HC(__HYPERVISOR_xen_version, cmd, arg, 0); }
static inline long hypercall_memory_op(unsigned int cmd, void *arg)
{ return HC(__HYPERVISOR_memory_op, cmd, arg, 0); }
static inline long hypercall_sched_op(int cmd, void *arg)
{ return HC(__HYPERVISOR_sched_op, cmd, arg, 0); }
static inline long hypercall_event_channel_op(int cmd, void *arg)
{ return HC(__HYPERVISOR_event_channel_op, cmd, arg, 0); }

#endif
