/*
 * cregs.h: a PV kernel's moves to and from CR4. It runs in ring 3, so each traps and the
 * hypervisor emulates it (Xen's pv/emul-priv-op.c): the value read is the guest's view, not the
 * hardware's.
 */
#ifndef GUEST_CREGS_H
#define GUEST_CREGS_H

static inline unsigned long read_cr4(void)
{
	unsigned long v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(unsigned long v)
{
	__asm__ volatile("mov %0, %%cr4" :: "r"(v) : "memory");
}

#endif
