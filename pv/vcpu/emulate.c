/*
 * emulate.c: privileged instructions a 64-bit PV kernel (running in ring 3) executes and a
 * hypervisor answers, as Xen does for PV guests: reads of CR0/CR2/CR3/CR4, rdmsr/wrmsr of the
 * segment-base MSRs and a few read-only ones, CPUID behind the forced-emulation prefix
 * (ud2; .ascii "xen"; cpuid) with the PV CPUID policy (cpuid.c), and any CPUID where the
 * hardware faults it (CPUID faulting: then also the guest's own faulting for its user mode, via
 * MSR_MISC_FEATURES_ENABLES), XSETBV, wbinvd, clts, and cli/sti (skipped: Xen 4.17 leaves the
 * upcall mask alone, a popf could not undo it) and port I/O to ports nobody has, both under the
 * virtual IOPL (iopl_ok). Anything else
 * is the guest's #GP or #UD, bounced to it (rdmsr_safe
 * and friends rely on that). hlt too is #GP(0): Xen 4.17's PV emulator does not take it, so the
 * stock shim faults it, and a kernel that hlts by mistake should be told, not hang (guests idle
 * with SCHEDOP_block; test/guests/nmi checks the #GP on both shims).
 */
#include "compat/compat.h"
#include "pv/domain/domain.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/vcpu/traps.h"
#include "shim/config.h"
#include "shim/cpu.h"
#include "shim/x86.h"
#include "shim/xstate.h"

#define MSR_EFER_ 0xc0000080
#define MSR_TSC_AUX 0xc0000103
#define MSR_IA32_TSC 0x10
#define MSR_PLATFORM_INFO 0xce
#define MSR_MISC_FEATURES_ENABLES 0x140

static uint64_t *gpr(struct cpu_regs *r, unsigned n)
{
    uint64_t *const regs[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                                 &r->r8,  &r->r9,  &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };
    return regs[n & 15];
}

/* The guest's segment bases. While the shim runs, swapgs has put the guest's active GS base
 * in MSR_KERNEL_GS_BASE; the guest kernel's "shadow" (user) GS base is kept per vCPU (gs_base_user).
 * A 32-bit guest has none of the three: #GP, as Xen's read_msr/write_msr for a compat domain. */
static bool seg_base_msr(uint32_t msr)
{
    return msr == MSR_FS_BASE || msr == MSR_GS_BASE || msr == MSR_KERNEL_GS_BASE;
}

static bool read_msr(uint32_t msr, uint64_t *v)
{
    if (pv_dom.compat && seg_base_msr(msr))
        return false;
    switch (msr) {
    case MSR_FS_BASE:
        *v = rdmsr(MSR_FS_BASE);
        return true;
    case MSR_GS_BASE:
        *v = rdmsr(MSR_KERNEL_GS_BASE);
        return true;
    case MSR_KERNEL_GS_BASE:
        *v = pv_current()->gs_base_user;
        return true;
    case MSR_EFER_:
        *v = rdmsr(MSR_EFER_);          /* LME, LMA, SCE, NXE: what the guest runs with */
        return true;
    case MSR_IA32_TSC:
        *v = rdtsc();
        return true;
    case MSR_TSC_AUX:
        *v = 0;
        return true;
    case MSR_PLATFORM_INFO:             /* as Xen's PV policy: only whether CPUID faulting is offered */
        *v = cpuid_faulting_on ? 1ull << 31 : 0;
        return true;
    case MSR_MISC_FEATURES_ENABLES:
        *v = pv_current()->cpuid_faulting;
        return true;
    default:                            /* speculation controls as CPUID says, else #GP, as Xen
                                         * for MSRs outside its PV policy */
        return pv_spec_msr_read(msr, v);
    }
}

static bool write_msr(uint32_t msr, uint64_t v)
{
    if (pv_dom.compat && seg_base_msr(msr))
        return false;
    switch (msr) {
    case MSR_FS_BASE:
        if (!is_canonical(v))
            return false;
        wrmsr(MSR_FS_BASE, v);
        return true;
    case MSR_GS_BASE:
        if (!is_canonical(v))
            return false;
        wrmsr(MSR_KERNEL_GS_BASE, v);   /* becomes the active GS base at swapgs on the way out */
        return true;
    case MSR_KERNEL_GS_BASE:
        if (!is_canonical(v))
            return false;
        pv_current()->gs_base_user = v;
        return true;
    case MSR_MISC_FEATURES_ENABLES:     /* CPUID faulting, and only where offered */
        if (v & ~(cpuid_faulting_on ? 1ull : 0))
            return false;
        pv_current()->cpuid_faulting = v & 1;
        return true;
    default:
        return pv_spec_msr_write(msr, v);
    }
}

/*
 * The virtual IOPL (physdev set_iopl; with VMASST_TYPE_architectural_iopl also iret's rflags)
 * against the mode's privilege, as Xen's iopl_ok: user mode is ring 3; the kernel counts as
 * ring 1, or as ring 0 (always allowed) once the guest asked for the architectural behaviour.
 */
static bool iopl_ok(const struct cpu_regs *r)
{
    unsigned cpl = pv_user_ctx(r) ? 3 : (pv_dom.vm_assist & (1ull << VMASST_TYPE_architectural_iopl)) ? 0 : 1;

    return cpl <= pv_current()->iopl;
}

/*
 * in/out that the virtual IOPL allows (iopl_ok): the guest owns no port, so, as
 * Xen does for ports a domain has no access to, reads give all ones and writes go nowhere (Linux
 * probes PCI configuration ports this way). Without the IOPL it is the guest's #GP.
 */
static bool port_io(struct cpu_regs *r, const uint8_t *b)
{
    unsigned len = 0, size = 4;

    if (b[0] == 0x66) {
        size = 2;
        len = 1;
    }
    uint8_t op = b[len];
    bool imm = op >= 0xe4 && op <= 0xe7, dx = op >= 0xec && op <= 0xef;
    if ((!imm && !dx) || !iopl_ok(r))
        return false;
    if (!(op & 1))
        size = 1;
    if (!(op & 2)) {                    /* in: all ones of the operand's size into al/ax/eax */
        uint64_t ones = size == 4 ? 0xffffffffull : (1ull << (size * 8)) - 1;
        r->rax = size == 4 ? ones : (r->rax & ~ones) | ones;
    }
    r->rip += len + 1 + (imm ? 1 : 0);
    pv_dom.nr_emulated++;
    return true;
}

/*
 * A CPUID the hardware faulted (cpuid_faulting_on): the PV policy, in any ring, with OSXSAVE as
 * the guest's CR4 says (Xen tells a faulted CPUID from an emulated one this way); in user mode
 * with the guest's own faulting on, the #GP is the guest's.
 */
static bool native_cpuid(struct cpu_regs *r)
{
    uint32_t a, b, c, d;

    if (pv_user_ctx(r) && pv_current()->cpuid_faulting)
        return false;
    pv_cpuid((uint32_t)r->rax, (uint32_t)r->rcx, &a, &b, &c, &d);
    r->rax = a, r->rbx = b, r->rcx = c, r->rdx = d;
    r->rip += 2;
    pv_dom.nr_emulated++;
    return true;
}

/*
 * XSETBV by the guest kernel, as Xen's emulator: #UD unless the guest's own CR4 has OSXSAVE (the
 * real one always has), then #GP for any register but XCR0 or a value Xen would refuse
 * (xstate_set_xcr0). The CPU's XCR0 is the vCPU's (xstate.h). false: the fault goes to the guest.
 */
static bool xsetbv(struct cpu_regs *r)
{
    if (!(pv_guest_cr4() & CR4_OSXSAVE)) {
        r->vector = 6;
        r->error_code = 0;
        return false;
    }
    return (uint32_t)r->rcx == 0 && !xstate_set_xcr0((r->rdx << 32) | (uint32_t)r->rax);
}

/* The faulting instruction: optional REX, then the opcode. Returns true if emulated. From user
 * mode only port I/O and cli/sti are looked at, under the IOPL as from the kernel. */
bool pv_emulate(struct cpu_regs *r)
{
    uint8_t b[8] = { 0 };
    unsigned len = 0, rex = 0;

    if (copy_from_guest(b, r->rip, sizeof(b)) && copy_from_guest(b, r->rip, 3))
        return false;                   /* (fewer than 8 readable bytes: the page ends) */
    if (r->vector == 6) {               /* #UD: only the forced-emulation prefix */
        static const uint8_t fep[5] = { 0x0f, 0x0b, 'x', 'e', 'n' };
        if (memcmp(b, fep, sizeof(fep)) || b[5] != 0x0f || b[6] != 0xa2)
            return false;
        if (pv_user_ctx(r) && pv_current()->cpuid_faulting) {
            /* faulting on: user mode's CPUID is #GP(0), emulated or not, at the cpuid itself
             * (Xen's emulate_forced_invalid_op moves past the prefix before it injects) */
            r->vector = 13;
            r->error_code = 0;
            r->rip += 5;
            return false;
        }
        uint32_t a, bb, c, d;
        pv_cpuid_kernel(pv_user_ctx(r), (uint32_t)r->rax, (uint32_t)r->rcx, &a, &bb, &c, &d);
        r->rax = a, r->rbx = bb, r->rcx = c, r->rdx = d;
        r->rip += 7;
        pv_dom.nr_emulated++;
        return true;
    }
    if (b[0] == 0xfa || b[0] == 0xfb) {  /* cli/sti: skipped, if the virtual IOPL allows (Xen's validate) */
        if (!iopl_ok(r))
            return false;
        r->rip += 1;
        pv_dom.nr_emulated++;
        return true;
    }
    if (port_io(r, b))
        return true;
    if (b[0] == 0x0f && b[1] == 0xa2 && cpuid_faulting_on)
        return native_cpuid(r);
    if (pv_user_ctx(r))
        return false;
    if ((b[0] & 0xf0) == 0x40) {
        rex = b[0];
        len = 1;
    }
    if (b[len] != 0x0f)
        return false;
    uint8_t op = b[len + 1];
    uint64_t v;
    switch (op) {
    case 0x20: {                        /* mov %crN, %reg */
        uint8_t m = b[len + 2];
        if ((m & 0xc0) != 0xc0)
            return false;
        unsigned cr = ((m >> 3) & 7) | ((rex & 4) ? 8 : 0), reg = (m & 7) | ((rex & 1) ? 8 : 0);
        switch (cr) {
        case 0: v = read_cr0(); break;
        case 2: v = pv_get_cr2(); break;                 /* the one we last gave it */
        case 3: v = pv_dom.compat ? compat_cr3_value(pv_current()) : pv_current()->cr3; break;
        case 4: v = pv_guest_cr4(); break;
        default: return false;
        }
        *gpr(r, reg) = v;
        len += 3;
        break;
    }
    case 0x22: {                        /* mov %reg, %crN: as Xen's PV emulation */
        uint8_t m = b[len + 2];
        if ((m & 0xc0) != 0xc0)
            return false;
        unsigned cr = ((m >> 3) & 7) | ((rex & 4) ? 8 : 0), reg = (m & 7) | ((rex & 1) ? 8 : 0);
        v = *gpr(r, reg);
        switch (cr) {
        case 0:                         /* only TS is the guest's (fpu_taskswitch) */
            pv_set_fpu_ts(v & CR0_TS);
            break;
        case 3:                         /* a new base pointer, as MMUEXT_NEW_BASEPTR */
            if (pv_new_baseptr(v >> PAGE_SHIFT))
                return false;
            break;
        case 4:                         /* any value; what it reads back is guest_cr4_view's */
            pv_current()->guest_cr4 = v;
            break;
        default:
            return false;
        }
        len += 3;
        break;
    }
    case 0x21:                          /* mov %drN, %reg */
    case 0x23: {                        /* mov %reg, %drN: Xen's set_debugreg rules */
        uint8_t m = b[len + 2];
        unsigned dr = ((m >> 3) & 7) | ((rex & 4) ? 8 : 0), reg = (m & 7) | ((rex & 1) ? 8 : 0);
        long rc;
        if (dr > 7) {
            rc = -XEN_ENODEV;           /* DR8-15 do not exist */
        } else if (op == 0x21) {
            rc = pv_get_debugreg(dr, &v);
            if (!rc)
                *gpr(r, reg) = v;
        } else {
            rc = pv_set_debugreg(dr, *gpr(r, reg));
        }
        if (rc == -XEN_ENODEV) {        /* #UD, as the CPU gives for a missing register */
            r->vector = 6;
            r->error_code = 0;
        }
        if (rc)
            return false;               /* the fault goes to the guest (a refused value: the #GP) */
        len += 3;
        break;
    }
    case 0x01:                          /* xsetbv (0f 01 d1) */
        if (b[len + 2] != 0xd1 || !xsetbv(r))
            return false;
        len += 3;
        break;
    case 0x32:                          /* rdmsr */
        if (!read_msr((uint32_t)r->rcx, &v))
            return false;
        r->rax = (uint32_t)v;
        r->rdx = v >> 32;
        len += 2;
        break;
    case 0x30:                          /* wrmsr */
        if (!write_msr((uint32_t)r->rcx, (r->rdx << 32) | (uint32_t)r->rax))
            return false;
        len += 2;
        break;
    case 0x09:                          /* wbinvd: a no-op for a guest without devices, as Xen */
    case 0x06:                          /* clts: the guest's TS is virtual (fpu_taskswitch) */
        if (op == 0x06)
            pv_set_fpu_ts(false);       /* the real TS too, or the next FPU use faults */
        len += 2;
        break;
    default:
        return false;
    }
    r->rip += len;
    pv_dom.nr_emulated++;
    return true;
}
