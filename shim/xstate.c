/* xstate.c: which XSAVE components guests get, and XSETBV by Xen's rules (xstate.h). */
#include "shim/xstate.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

struct xstate_policy xstate;

static inline void xsetbv(uint32_t reg, uint64_t v)
{
    __asm__ volatile("xsetbv" :: "c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/*
 * x87, SSE and AVX: the components every x86-64 PV guest can use without more from the shim.
 * AVX-512's three and PKRU would need the guest's CPUID and CR4.PKE rules as well (Xen offers
 * them; QEMU's TCG, our test machine, has neither), MPX and the supervisor states (XSAVES) are
 * not offered to PV guests by Xen either.
 */
void xstate_init(int enable)
{
    uint32_t max, a, b, c, d;

    xstate = (struct xstate_policy){ 0 };
    cpuid(0, &max, &b, &c, &d);
    cpuid(1, &a, &b, &c, &d);
    uint32_t l1c = c;
    if (enable == 0) {
        xstate.why_not = "xsave=off";
        return;
    }
    if (!(l1c & (1u << 26)) || max < 0xd) {
        xstate.why_not = "the CPU (or L0) offers no XSAVE";
        return;
    }
    uint32_t hw_lo, hw_hi;
    cpuid_count(0xd, 0, &hw_lo, &b, &c, &hw_hi);
    uint64_t hw = (uint64_t)hw_hi << 32 | hw_lo;
    if ((hw & XSTATE_FP_SSE) != XSTATE_FP_SSE) {
        xstate.why_not = "XSAVE without x87 and SSE state";
        return;
    }
    xstate.offered = XSTATE_FP_SSE;
    xstate.max_size = 512 + 64;         /* legacy area and header */
    if ((hw & XSTATE_YMM) && (l1c & (1u << 28))) {
        cpuid_count(0xd, 2, &a, &b, &c, &d);     /* a: size, b: offset of the YMM component */
        xstate.offered |= XSTATE_YMM;
        if (b + a > xstate.max_size)
            xstate.max_size = b + a;
    }
    cpuid_count(0xd, 1, &a, &b, &c, &d);
    xstate.sub1_eax = a & 0x7;          /* XSAVEOPT, XSAVEC, XGETBV1; not XSAVES or XFD */
}

void xstate_cpu_init(void)
{
    if (!xstate.offered)
        return;
    ASSERT(read_cr4() & CR4_OSXSAVE);
    xsetbv(0, XSTATE_FP_SSE);
}

/* Xen's valid_xcr0 and handle_xsetbv: x87 always, AVX only with SSE, nothing not offered. */
int xstate_set_xcr0(uint64_t v)
{
    if (!(v & XSTATE_X87))
        return ERR(-XEN_EINVAL, "XCR0 without x87");
    if ((v & XSTATE_YMM) && !(v & XSTATE_SSE))
        return ERR(-XEN_EINVAL, "XCR0 with AVX but not SSE");
    if (v & ~xstate.offered)
        return ERR(-XEN_EINVAL, "XCR0 with components not offered");
    ASSERT(read_cr4() & CR4_OSXSAVE);
    /* a value the checks above let through cannot fault; if the CPU (or L0) thinks otherwise,
     * that is the guest's #GP, not the shim's end */
    return xsetbv_safe(0, v) ? 0 : ERR(-XEN_EINVAL, "XCR0 refused by the CPU");
}
