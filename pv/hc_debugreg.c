/*
 * hc_debugreg.c: __HYPERVISOR_set_debugreg / get_debugreg. The values are kept per vCPU and read
 * back, as Linux does at boot and for ptrace; they are not loaded into the hardware yet (the
 * shim does not switch debug registers), so hardware breakpoints do not fire: a known gap.
 * Addresses must be guest addresses and DR7 may not enable what Xen refuses (I/O breakpoints,
 * general detect), as Xen checks.
 */
#include "domain.h"
#include "debug.h"
#include "hypercall.h"
#include "xerrno.h"

#define DR7_GD       (1ul << 13)
#define DR7_RW_IO    2ul

static uint64_t dr[8];                  /* one vCPU today; per vCPU with SMP */

static bool guest_va(uint64_t va)
{
    return (uint64_t)((int64_t)(va << 16) >> 16) == va && !(va >= PV_HOLE_START && va < PV_HOLE_END);
}

long hc_set_debugreg(uint64_t reg, uint64_t value, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (reg) {
    case 0: case 1: case 2: case 3:
        if (!guest_va(value))
            return ERR(-XEN_EPERM);
        break;
    case 6:
        value = (value & 0xffffefffull) | 0xffff0ff0ull;    /* the bits that read as 1 */
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
    dr[reg] = value;
    return 0;
}

long hc_get_debugreg(uint64_t reg, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (reg) {
    case 0: case 1: case 2: case 3: case 7:
        return (long)dr[reg];
    case 6:
        return (long)(dr[6] ? dr[6] : 0xffff0ff0ull);
    case 4:
        return (long)(dr[6] ? dr[6] : 0xffff0ff0ull);   /* DR4 aliases DR6 */
    case 5:
        return (long)dr[7];                              /* DR5 aliases DR7 */
    default:
        return ERR(-XEN_EINVAL);
    }
}
