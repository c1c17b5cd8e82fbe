/*
 * xpti.h: the guest's user mode runs on page tables that do not map the shim (XPTI-like, as Xen's
 * XPTI for PV guests). Without it, every guest L4 holds the shim's slots (the image, the vmap
 * area and the direct map of all RAM, supervisor-only), so on a CPU affected by Meltdown
 * (rogue data cache load) a guest user process could read the guest kernel's memory and the
 * shim's through the direct map. With it, returning to guest user mode loads a per-CPU copy of
 * the user L4 whose shim slots map only what an entry from ring 3 needs before it switches back:
 * the shim's text, the IDT, this CPU's struct cpu (its TSS), GDT and LDT windows and stacks.
 *
 * The copy follows the guest's L4: it is made again when the user L4 changes, and a write to an
 * L4 entry (under the MMU lock) updates every copy of that L4 at once, so no CPU runs on a stale
 * entry after the guest flushed. The guest kernel runs on its own L4 as before: it is the
 * shim's guest, not a process to keep out.
 */
#ifndef SHIM_XPTI_H
#define SHIM_XPTI_H

#include "shim/lib.h"

struct cpu;

extern bool xpti_on;

/* Decide from xpti=on|off (-1: on where the CPU may be affected: Intel without ARCH_CAPABILITIES
 * RDCL_NO; AMD and Hygon are not). Before the first xpti_cpu_init. */
void xpti_init(int opt);
/* The CPU's copy of an L4 and its tables for the shim's slots; after cpu_alloc_tables. */
int xpti_cpu_init(struct cpu *c);
/* paging.c: a vmap page changed (GDT and LDT windows): the copies that map it follow. */
void xpti_vmap_changed(uintptr_t va, uint64_t pte);
/* Going to guest user mode on l4 (frame mfn, a validated L4): entries from ring 3 switch to l4,
 * returns to ring 3 to the copy, refreshed if it was of another L4. */
void xpti_to_user(struct cpu *c, const uint64_t *l4, uint64_t mfn);
/* Leaving guest user mode: no switches. */
void xpti_to_kernel(struct cpu *c);
/* An entry of the L4 frame mfn was written (under the MMU lock): every copy of it follows. */
void xpti_l4_written(uint64_t mfn, unsigned slot, uint64_t val);

#endif
