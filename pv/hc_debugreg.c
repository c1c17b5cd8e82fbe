/*
 * hc_debugreg.c: __HYPERVISOR_set_debugreg / get_debugreg. A vCPU owns its shim CPU, so its debug
 * registers are simply the hardware's: set_debugreg checks the value as Xen does (addresses must
 * be guest addresses; DR7 may not enable I/O breakpoints or general detect) and loads it. The
 * shim never uses debug registers itself. A #DB then reaches the guest's handler like any trap,
 * and DR6 is read back from the hardware. A data breakpoint the shim trips while it copies guest
 * memory for a hypercall leaves its status in DR6 and the copy goes on (pv_debug_in_shim).
 */
#include "domain.h"
#include "debug.h"
#include "hypercall.h"
#include "xerrno.h"

#define DR7_GD       (1ul << 13)
#define DR7_RW_IO    2ul

#define DR6_DEFAULT  0xffff0ff0ull     /* the bits that read as 1 */

static uint64_t read_dr(unsigned n)
{
    uint64_t v = 0;

    switch (n) {
    case 0: __asm__ volatile("mov %%db0, %0" : "=r"(v)); break;
    case 1: __asm__ volatile("mov %%db1, %0" : "=r"(v)); break;
    case 2: __asm__ volatile("mov %%db2, %0" : "=r"(v)); break;
    case 3: __asm__ volatile("mov %%db3, %0" : "=r"(v)); break;
    case 6: __asm__ volatile("mov %%db6, %0" : "=r"(v)); break;
    case 7: __asm__ volatile("mov %%db7, %0" : "=r"(v)); break;
    }
    return v;
}

static void write_dr(unsigned n, uint64_t v)
{
    switch (n) {
    case 0: __asm__ volatile("mov %0, %%db0" :: "r"(v)); break;
    case 1: __asm__ volatile("mov %0, %%db1" :: "r"(v)); break;
    case 2: __asm__ volatile("mov %0, %%db2" :: "r"(v)); break;
    case 3: __asm__ volatile("mov %0, %%db3" :: "r"(v)); break;
    case 6: __asm__ volatile("mov %0, %%db6" :: "r"(v)); break;
    case 7: __asm__ volatile("mov %0, %%db7" :: "r"(v)); break;
    }
}

long hc_set_debugreg(uint64_t reg, uint64_t value, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (reg) {
    case 0: case 1: case 2: case 3:
        if (!pv_guest_va(value))
            return ERR(-XEN_EPERM);
        break;
    case 6:
        value = (value & 0xffffefffull) | DR6_DEFAULT;
        break;
    case 7:
        if (value >> 32 || (value & DR7_GD))
            return ERR(-XEN_EPERM);
        for (unsigned i = 0; i < 4; i++)
            if (((value >> (16 + 4 * i)) & 3) == DR7_RW_IO)
                return ERR(-XEN_EPERM);
        break;
    default:
        return ERR(-XEN_EINVAL);
    }
    pv_current()->dr[reg] = value;
    write_dr((unsigned)reg, value);
    return 0;
}

/* Load a starting vCPU's registers (VCPUOP_initialise's) on its CPU: each through
 * set_debugreg's checks, a refused value left out, as Xen's arch_set_info_guest does. */
void pv_debugreg_load(const uint64_t dr[8])
{
    for (unsigned i = 0; i < 8; i++)
        if (i != 4 && i != 5)
            (void)hc_set_debugreg(i, dr[i], 0, 0, 0);
}

/* A #DB in the shim itself: a guest data breakpoint on memory a hypercall touched. Its status
 * stays in the hardware DR6, which the guest reads next (get_debugreg reads the register); the
 * shim goes on. Anything else (no armed breakpoint hit) is not ours to swallow. */
bool pv_debug_in_shim(void)
{
    return (read_dr(7) & 0xff) && (read_dr(6) & 0xf);
}

long hc_get_debugreg(uint64_t reg, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    const uint64_t *dr = pv_current()->dr;

    switch (reg) {
    case 0: case 1: case 2: case 3: case 7:
        return (long)dr[reg];
    case 4: case 6:                     /* DR4 aliases DR6 */
        return (long)(read_dr(6) | DR6_DEFAULT);
    case 5:
        return (long)dr[7];             /* DR5 aliases DR7 */
    default:
        return ERR(-XEN_EINVAL);
    }
}
