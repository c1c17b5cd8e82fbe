/*
 * xstate.h: the XSAVE state components (XCR0) a guest may enable, and each CPU's XCR0.
 *
 * The shim runs one guest vCPU per CPU and never touches an x87, SSE or AVX register itself, so
 * it has no FPU state of its own to switch: the CPU's XCR0 and registers are that vCPU's, and L0
 * (or the hardware) keeps them across its own scheduling. What the shim owns is the policy: which
 * components a guest sees in CPUID and may turn on with XSETBV.
 */
#ifndef SHIM_XSTATE_H
#define SHIM_XSTATE_H

#include <stdbool.h>
#include <stdint.h>

#define XSTATE_X87      (1ull << 0)
#define XSTATE_SSE      (1ull << 1)
#define XSTATE_YMM      (1ull << 2)         /* AVX's upper halves */
#define XSTATE_FP_SSE   (XSTATE_X87 | XSTATE_SSE)

struct xstate_policy {
    uint64_t offered;                   /* components a guest may enable; 0: no XSAVE for guests */
    uint32_t max_size;                  /* XSAVE area for all of them (CPUID 0xD.0 ECX) */
    uint32_t sub1_eax;                  /* CPUID 0xD.1 EAX as the guest sees it (no XSAVES) */
    const char *why_not;                /* when offered is 0: why */
};
extern struct xstate_policy xstate;

/* Once, on the BSP, before any CPU loads its tables: enable = the "xsave" option (-1 default). */
void xstate_init(int enable);
/* Each CPU, once its CR4 has OSXSAVE (cpu.c sets it when XSAVE is offered): XCR0 = x87|SSE, as
 * Xen starts a vCPU. Xen keeps CR4.OSXSAVE set under every PV guest, whatever the guest's own
 * view of CR4 says, and so does the shim. */
void xstate_cpu_init(void);
/* XSETBV of XCR0 for the guest: 0, or -XEN_EINVAL when Xen's rules (or the CPU) refuse the
 * value (its #GP). */
int xstate_set_xcr0(uint64_t v);

#endif
