/*
 * cpuid.c: the CPUID a PV guest gets behind Xen's forced-emulation prefix (ud2; .ascii "xen";
 * cpuid), and the CR4 it sees, which follows that policy (Xen 4.17's guest_cpuid and
 * pv_fixup_guest_cr4).
 */
#include "pv/domain/domain.h"
#include "pv/vcpu/traps.h"
#include "shim/config.h"
#include "shim/cpuid_cache.h"
#include "shim/x86.h"
#include "shim/xstate.h"

#define CPUID_HYPERVISOR_BASE 0x40000000u

/* Leaf 1 ECX and leaf 7.0 EBX/ECX bits that need AVX's state (Xen's feature dependencies):
 * FMA F16C; AVX2 and AVX-512's EBX bits; VAES VPCLMULQDQ and AVX-512's ECX bits. */
#define L1C_NEEDS_YMM   ((1u << 12) | (1u << 29))
#define L7B_NEEDS_YMM   ((1u << 5) | (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | \
                         (1u << 28) | (1u << 30) | (1u << 31))
#define L7C_NEEDS_YMM   ((1u << 1) | (1u << 6) | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12) | (1u << 14))
#define L7D_AVX512      ((1u << 2) | (1u << 3) | (1u << 8) | (1u << 23))

/* The XSAVE leaf for the components offered (xstate.h), as Xen builds it for PV guests. */
static void cpuid_xstate(uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    if (!xstate.offered || sub >= 63) {
        *a = *b = *c = *d = 0;
        return;
    }
    switch (sub) {
    case 0:                             /* EBX: the size for the XCR0 in use, which is the guest's */
        *a = (uint32_t)xstate.offered;
        *d = (uint32_t)(xstate.offered >> 32);
        *c = xstate.max_size;
        break;
    case 1:
        *a = xstate.sub1_eax;
        *b = *c = *d = 0;
        break;
    default:                            /* a component's size and offset, if it is offered */
        if (!(xstate.offered & (1ull << sub)))
            *a = *b = *c = *d = 0;
        break;
    }
}

/* The PV CPUID policy: the host's view minus what a PV guest cannot use (it has no APIC, no
 * VMX/SVM, no MONITOR, cannot set CR4 bits such as PCID, SMEP or SMAP, and gets only the XSAVE
 * components of xstate.offered), plus the hypervisor bit and Xen's leaves. OSXSAVE follows the
 * guest's CR4 (pv_cpuid_osxsave). */
void pv_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    bool ymm = xstate.offered & XSTATE_YMM;

    if (leaf >= CPUID_HYPERVISOR_BASE && leaf < CPUID_HYPERVISOR_BASE + 0x10000) {
        *a = *b = *c = *d = 0;
        switch (leaf - CPUID_HYPERVISOR_BASE) {
        case 0:
            *a = CPUID_HYPERVISOR_BASE + 2;
            memcpy(b, "XenV", 4);
            memcpy(c, "MMXe", 4);
            memcpy(d, "nVMM", 4);
            break;
        case 1:
            *a = SHIM_XEN_MAJOR << 16 | SHIM_XEN_MINOR;
            break;
        case 2:
            *a = 1;                     /* hypercall pages; a PV guest gets them by its note */
            *b = CPUID_HYPERVISOR_BASE;
            break;
        }
        return;
    }
    cpuid_cached(leaf, sub, a, b, c, d);
    switch (leaf) {
    case 1:
        *c &= ~((1u << 3) | (1u << 5) | (1u << 6) | (1u << 17) | (1u << 21) | (1u << 24) |
                (1u << 27));            /* MONITOR VMX SMX PCID x2APIC TSC-deadline OSXSAVE */
        if (!xstate.offered)
            *c &= ~(1u << 26);          /* XSAVE */
        if (!ymm)
            *c &= ~((1u << 28) | L1C_NEEDS_YMM);    /* AVX */
        if (xstate.offered && (pv_current()->guest_cr4 & CR4_OSXSAVE))
            *c |= 1u << 27;             /* (pv_guest_cr4's rule, which asks this policy) */
        *c |= 1u << 31;                 /* hypervisor */
        /* VME PSE MCE APIC MTRR MCA PSE36 ACPI TM PBE: no superpages for a PV guest, no APIC,
         * MTRRs or machine-check MSRs (Linux reads those without a fixup) */
        *d &= ~((1u << 1) | (1u << 3) | (1u << 7) | (1u << 9) | (1u << 12) | (1u << 14) | (1u << 17) | (1u << 22) |
                (1u << 29) | (1u << 31));
        break;
    case 7:
        if (sub == 0) {
            *b &= ~((1u << 0) | (1u << 7) | (1u << 10) | (1u << 20));  /* FSGSBASE SMEP INVPCID SMAP */
            *c &= ~((1u << 2) | (1u << 3) | (1u << 4) | (1u << 22));  /* UMIP PKU OSPKE RDPID */
            /* AVX-512 is never offered (xstate.c); AVX2 and friends only with AVX's state */
            *b &= ~(L7B_NEEDS_YMM & ~(ymm ? 1u << 5 : 0));
            *c &= ~(L7C_NEEDS_YMM & ~(ymm ? (1u << 9) | (1u << 10) : 0));
            *d &= ~L7D_AVX512;
            *d &= ~(1u << 30);          /* CORE_CAPABILITIES: its MSR is not offered (specmsr.c) */
        } else {
            *a = *b = *c = *d = 0;
        }
        break;
    case 0xd:
        cpuid_xstate(sub, a, b, c, d);
        break;
    case 0x80000008:
        /* VIRT_SSBD: not offered (specmsr.c), as the stock shim does not: the Xen 4.17 L0 here
         * takes a write of VIRT_SPEC_CTRL.SSBD from its HVM guest to amd_set_legacy_ssbd and
         * dies there (BUG at arch/x86/cpu/amd.c:814), so a guest could bring its host down */
        *b &= ~(1u << 25);
        break;
    case 0x80000001:
        *c &= ~((1u << 2) | (1u << 3)); /* SVM, ExtApicSpace */
        /* 1 GiB pages; RDTSCP: TSC_AUX is not the guest's to set here, and an L0 that emulates
         * the TSC traps RDTSCP (QEMU's SVM reports it as RDTSC, and Xen then cannot complete it) */
        *d &= ~((1u << 26) | (1u << 27));
        break;
    default:
        break;
    }
}

/* The forced-emulation CPUID of the guest kernel: leaf 1's OSXSAVE is shown whenever XSAVE is
 * offered, CR4 or not. Xen leaked its own CR4.OSXSAVE into PV guests this way until it became
 * part of the ABI: Linux (xen_check_xsave) uses XSAVE only if it sees OSXSAVE before it sets
 * CR4.OSXSAVE itself. User mode and native CPUID see the architectural bit. */
void pv_cpuid_kernel(bool user, uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    pv_cpuid(leaf, sub, a, b, c, d);
    if (leaf == 1 && xstate.offered && !user)
        *c |= 1u << 27;
}

/* The CR4 bits the guest may set, from its CPUID policy: fixed for the shim's life, so asked
 * once (each CPUID is an exit to L0), not at every CR4 access. A race between CPUs asking first
 * only stores the same value twice. */
#define CR4_ALLOWED_KNOWN (1ull << 63)
static uint64_t cr4_allowed(void)
{
    static uint64_t cached;             /* CR4_ALLOWED_KNOWN | the mask, once asked */
    uint64_t v = READ_ONCE(cached);
    uint32_t max, a, b, c, d;

    if (v & CR4_ALLOWED_KNOWN)
        return v & ~CR4_ALLOWED_KNOWN;
    pv_cpuid(0, 0, &max, &b, &c, &d);
    pv_cpuid(1, 0, &a, &b, &c, &d);
    v = (d & (1u << 4) ? CR4_TSD : 0) | (d & (1u << 2) ? CR4_DE : 0) | (c & (1u << 26) ? CR4_OSXSAVE : 0);
    if (max >= 7) {
        pv_cpuid(7, 0, &a, &b, &c, &d);
        v |= b & 1 ? CR4_FSGSBASE : 0;
    }
    WRITE_ONCE(cached, v | CR4_ALLOWED_KNOWN);
    return v;
}

/* CR4 as a PV guest sees it, by Xen's rule (pv_fixup_guest_cr4): of the bits it wrote, only TSD,
 * DE, FSGSBASE and OSXSAVE, each where its CPUID policy has the feature; of the hardware's, PAE,
 * MCE, OSFXSR and OSXMMEXCPT; nothing else. Writing other bits is no error, they just do not
 * stick. The guest's bits are its view only: the shim's own CR4 stays as it is (a TSD or DE the
 * guest sets is not enforced, as it would be under Xen). */
static uint64_t guest_cr4_view(uint64_t written)
{
    return (written & cr4_allowed()) | (read_cr4() & (CR4_PAE | CR4_MCE | CR4_OSFXSR | CR4_OSXMMEXCPT));
}

uint64_t pv_guest_cr4(void)
{
    return guest_cr4_view(pv_current()->guest_cr4);
}
