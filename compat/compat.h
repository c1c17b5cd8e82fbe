/*
 * compat.h: 32-bit PAE PV guests (Xen's "compat" guests). Such a kernel runs in ring 1 in
 * compatibility mode on PAE page tables that the shim hangs below an L4 of its own (slot 0), makes
 * hypercalls with int $0x82 (arguments in ebx, ecx, edx, esi, edi) and sees the 32-bit layouts of
 * start_info, shared_info and every hypercall structure (Debian's xen/foreign/x86_32.h). What
 * differs is translated here into the 64-bit handlers of pv/, which never include this header;
 * pv/ only asks pv_dom.compat which way to go at the few places the two ABIs part (the builder,
 * the bounce frame, iret, the hypercall gate).
 */
#ifndef COMPAT_COMPAT_H
#define COMPAT_COMPAT_H

#include "shim/lib.h"

struct boot_info;
struct cpu_regs;
struct pv_vcpu;

#define COMPAT_HV_START     0xF5800000u     /* HYPERVISOR_COMPAT_VIRT_START: the hole below 4 GiB */
#define COMPAT_M2P_END      0xFFE00000u     /* MACH2PHYS_COMPAT_VIRT_END */
#define COMPAT_L2_XEN_FIRST 428u            /* the slot-3 L2's first entry of the hole */
#define COMPAT_NR_PORTS     1024u           /* 2-level event channels: 32 words of 32 bits */

/* A 32-bit guest's list below its hole (Xen's compat_handle_okay, which the compat translations
 * use; the 64-bit handlers check with the 64-bit rules, as Xen's do for such a guest too). */
static inline bool compat_range_ok(uint64_t va, uint64_t n)
{
    return va + n >= va && va + n <= COMPAT_HV_START;
}

/* build.c: the domain builder's 32-bit parts */
int compat_m2p_init(void);                  /* the 4-byte m2p (before the guest's frames are taken) */
uint64_t compat_tables_for(uint64_t v_start, uint64_t v_end);   /* bootstrap tables needed */
void compat_build_page_tables(void);        /* PAE tables; vCPU 0's L3 */
void compat_fill_hypercall_page(uint8_t *p);
void compat_fill_start_info(const struct boot_info *bi);
void compat_l2_xen_slots(uint64_t *l2);    /* the hole's entries of a slot-3 L2 (the m2p) */

/* cr3.c: a vCPU's L4 of ours over the guest's L3 */
int compat_set_l3(struct pv_vcpu *v, uint64_t l3_mfn);    /* slot 0 := l3 (no type work) */
uint64_t compat_cr3_value(const struct pv_vcpu *v);       /* what a CR3 read gives the guest */

/* entry.c: int $0x82, exceptions and events on the compat frame, the compat iret */
void compat_hypercall(struct cpu_regs *r);
void compat_syscall(struct cpu_regs *r);   /* SYSCALL from the guest: its syscall32 callback */
void compat_bounce(struct cpu_regs *r, uint64_t addr, bool mask_events, int64_t error_code);
void compat_iret(struct cpu_regs *r);
void compat_enter_regs(struct cpu_regs *r, uint64_t rip, uint64_t rsp, uint64_t rsi);
/* a started vCPU's frame and segment registers from its context's cs, ss, ds, es, fs, gs and
 * eflags (a selector that cannot be loaded: cs and ss flat, the others null) */
void compat_start_regs(struct cpu_regs *r, const uint16_t seg[6], uint64_t rflags);

/* context.c: VCPUOP_initialise's context, widened to the 64-bit layout (0 or -EFAULT) */
struct vcpu_guest_context;
int compat_read_context(uint64_t va, struct vcpu_guest_context *n, uint16_t *event_cs);

/* table.c: the 32-bit hypercall table; a multicall entry's call */
long compat_hypercall_call(struct cpu_regs *r, uint32_t nr, const uint32_t a[6]);

#endif
