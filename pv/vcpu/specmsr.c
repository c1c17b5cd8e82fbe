/*
 * specmsr.c: the speculation-control MSRs of a PV guest (SPEC_CTRL, PRED_CMD, FLUSH_CMD,
 * ARCH_CAPABILITIES; AMD's VIRT_SPEC_CTRL only if VIRT_SSBD shows, which cpuid.c hides: L0's
 * handling of it can bring the host down), there exactly when its CPUID policy names the
 * feature behind them, with Xen's checks on the values (msr.c's guest_rdmsr/guest_wrmsr and
 * msr_spec_ctrl_valid_bits). A policy that shows a mitigation whose MSR then faults lets Linux
 * report a protection it does not have ("Speculative Store Bypass disabled via prctl" whose
 * writes go nowhere). The values go to the CPU's own MSRs: one guest vCPU runs per CPU and the
 * shim never sets these itself, so there is nothing to switch; L0 (or the CPU) checks them again.
 */
#include "pv/vcpu/traps.h"
#include "shim/x86.h"

#define MSR_SPEC_CTRL           0x48
#define MSR_PRED_CMD            0x49
#define MSR_ARCH_CAPABILITIES   0x10a
#define MSR_FLUSH_CMD           0x10b
#define MSR_VIRT_SPEC_CTRL      0xc001011f

#define SPEC_CTRL_IBRS  (1ull << 0)
#define SPEC_CTRL_STIBP (1ull << 1)
#define SPEC_CTRL_SSBD  (1ull << 2)
#define SPEC_CTRL_PSFD  (1ull << 7)

struct spec_policy {
    bool spec_ctrl, ibpb, arch_caps, l1d_flush, virt_ssbd;
    uint64_t spec_ctrl_bits;            /* what SPEC_CTRL takes */
};

/* From the guest's CPUID policy, once (each CPUID exits to L0); a race between CPUs asking
 * first only computes the same thing twice. */
static const struct spec_policy *policy(void)
{
    static struct spec_policy p;
    static bool known;
    uint32_t max, a, b, c, d, l7d = 0, x8b = 0;

    if (__atomic_load_n(&known, __ATOMIC_ACQUIRE))
        return &p;
    pv_cpuid(0, 0, &max, &b, &c, &d);
    if (max >= 7)
        pv_cpuid(7, 0, &a, &b, &c, &l7d);
    pv_cpuid(0x80000000, 0, &max, &b, &c, &d);
    if (max >= 0x80000008)
        pv_cpuid(0x80000008, 0, &a, &x8b, &c, &d);
    bool ibrsb = l7d & (1u << 26), ssbd = l7d & (1u << 31);
    bool amd_ibpb = x8b & (1u << 12), amd_ibrs = x8b & (1u << 14), amd_ssbd = x8b & (1u << 24);
    bool psfd = x8b & (1u << 28);
    p = (struct spec_policy){
        .spec_ctrl = ibrsb || amd_ibrs,
        .ibpb = ibrsb || amd_ibpb,
        .arch_caps = l7d & (1u << 29),
        .l1d_flush = l7d & (1u << 28),
        .virt_ssbd = x8b & (1u << 25),
        /* Xen's valid bits: IBRS and STIBP always (STIBP is defined as ignored without the
         * feature), SSBD and PSFD with theirs */
        .spec_ctrl_bits = SPEC_CTRL_IBRS | SPEC_CTRL_STIBP | (ssbd || amd_ssbd ? SPEC_CTRL_SSBD : 0) |
                          (psfd ? SPEC_CTRL_PSFD : 0),
    };
    __atomic_store_n(&known, true, __ATOMIC_RELEASE);
    return &p;
}

bool pv_spec_msr_read(uint32_t msr, uint64_t *v)
{
    const struct spec_policy *p = policy();

    switch (msr) {
    case MSR_SPEC_CTRL:
        return p->spec_ctrl && rdmsr_safe(msr, v);
    case MSR_ARCH_CAPABILITIES:
        return p->arch_caps && rdmsr_safe(msr, v);
    case MSR_VIRT_SPEC_CTRL:
        return p->virt_ssbd && rdmsr_safe(msr, v);
    default:                            /* PRED_CMD and FLUSH_CMD are write-only */
        return false;
    }
}

bool pv_spec_msr_write(uint32_t msr, uint64_t v)
{
    const struct spec_policy *p = policy();

    switch (msr) {
    case MSR_SPEC_CTRL:
        return p->spec_ctrl && !(v & ~p->spec_ctrl_bits) && wrmsr_safe(msr, v);
    case MSR_PRED_CMD:                  /* IBPB */
        return p->ibpb && !(v & ~1ull) && wrmsr_safe(msr, v);
    case MSR_FLUSH_CMD:                 /* L1D flush */
        return p->l1d_flush && !(v & ~1ull) && wrmsr_safe(msr, v);
    case MSR_VIRT_SPEC_CTRL:            /* its SSBD only */
        return p->virt_ssbd && !(v & ~SPEC_CTRL_SSBD) && wrmsr_safe(msr, v);
    default:                            /* ARCH_CAPABILITIES is read-only */
        return false;
    }
}
