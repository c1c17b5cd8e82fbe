/*
 * debugreg.c: __HYPERVISOR_set_debugreg / get_debugreg. A vCPU owns its shim CPU, so its debug
 * registers are simply the hardware's: set_debugreg checks the value as Xen does (addresses must
 * be guest addresses; DR7 may not enable I/O breakpoints or general detect) and loads it. The
 * shim never uses debug registers itself. A #DB then reaches the guest's handler like any trap,
 * and DR6 is read back from the hardware. A data breakpoint the shim trips while it copies guest
 * memory for a hypercall leaves its status in DR6 and the copy goes on (pv_debug_in_shim).
 * As Xen's set_debugreg and x86emul_read_dr: the register number is an int, DR4 and DR5 are DR6
 * and DR7 unless the guest's CR4 has DE (then -ENODEV), DR6 and DR7 take 32-bit values
 * (-EINVAL), their reserved bits read as the CPU has them (DR7's bit 10 set), and any other
 * register is -ENODEV. The same rules serve `mov` to and from a debug register, which the
 * kernel's ring cannot execute (emulate.c: -ENODEV is #UD there, another error #GP).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/vcpu/traps.h"
#include "shim/debug.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define DR7_GD       (1ul << 13)
#define DR7_RW_IO    2ul

#define DR6_DEFAULT  0xffff0ff0ull     /* the bits that read as 1 */
#define DR7_DEFAULT  0x400ull           /* bit 10 reads as 1 */
#define DR7_ZEROS    0xd800ull          /* bits 11, 12, 14 and 15 read as 0 (no RTM) */

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

/* DR4 and DR5: DR6 and DR7's other names, unless the guest's CR4 has DE */
static bool dr45_alias(void)
{
    return !(pv_guest_cr4() & CR4_DE);
}

long pv_set_debugreg(unsigned reg, uint64_t value)
{
    if ((reg == 4 || reg == 5) && !dr45_alias())
        return ERR(-XEN_ENODEV, "DR4/DR5 with CR4.DE");
    switch (reg) {
    case 0: case 1: case 2: case 3:
        if (!pv_guest_va(value))
            return ERR(-XEN_EPERM);
        break;
    case 4: case 6:
        if (value >> 32)
            return ERR(-XEN_EINVAL);
        reg = 6;
        value = (value & 0xffffefffull) | DR6_DEFAULT;
        break;
    case 5: case 7:
        if (value >> 32)
            return ERR(-XEN_EINVAL);
        if (value & DR7_GD)
            return ERR(-XEN_EPERM);
        for (unsigned i = 0; i < 4; i++)
            if (((value >> (16 + 4 * i)) & 3) == DR7_RW_IO)
                return ERR(-XEN_EPERM);
        reg = 7;
        value = (value & ~DR7_ZEROS) | DR7_DEFAULT;
        break;
    default:
        return ERR(-XEN_ENODEV);
    }
    pv_current()->dr[reg] = value;
    write_dr(reg, value);
    return 0;
}

long hc_set_debugreg(struct cpu_regs *regs, uint64_t reg, uint64_t value, uint64_t a3, uint64_t a4,
                     uint64_t a5)
{
    return pv_set_debugreg((uint32_t)reg, value);
}

/* Load a starting vCPU's registers (VCPUOP_initialise's) on its CPU: each through
 * set_debugreg's checks, a refused value left out, as Xen's arch_set_info_guest does. */
void pv_debugreg_load(const uint64_t dr[8])
{
    for (unsigned i = 0; i < 8; i++)
        if (i != 4 && i != 5)
            (void)pv_set_debugreg(i, dr[i]);
}

/* A #DB in the shim itself: a guest data breakpoint on memory a hypercall touched. Its status
 * stays in the hardware DR6, which the guest reads next (get_debugreg reads the register); the
 * shim goes on. Anything else (no armed breakpoint hit) is not ours to swallow. */
bool pv_debug_in_shim(void)
{
    return (read_dr(7) & 0xff) && (read_dr(6) & 0xf);
}

/* A single-step trap the shim raises for the guest (pv_sysret_step): DR6.BS, as the CPU sets it,
 * the other status bits kept. */
void pv_debug_note_step(void)
{
    write_dr(6, read_dr(6) | (1ull << 14));
}

long pv_get_debugreg(unsigned reg, uint64_t *val)
{
    const uint64_t *dr = pv_current()->dr;

    if ((reg == 4 || reg == 5) && !dr45_alias())
        return ERR(-XEN_ENODEV, "DR4/DR5 with CR4.DE");
    switch (reg) {
    case 0: case 1: case 2: case 3:
        *val = dr[reg];
        return 0;
    case 4: case 6:
        *val = read_dr(6) | DR6_DEFAULT;
        return 0;
    case 5: case 7:
        *val = dr[7] | DR7_DEFAULT;
        return 0;
    default:
        return ERR(-XEN_ENODEV);
    }
}

long hc_get_debugreg(struct cpu_regs *regs, uint64_t reg, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    uint64_t v;
    long rc = pv_get_debugreg((uint32_t)reg, &v);

    return rc ? rc : (long)v;
}
