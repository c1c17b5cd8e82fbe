/* idt.c: the interrupt descriptor table, shared by all CPUs; #DF, NMI and #MC run on IST stacks. */
#include "shim/cpu.h"
#include "shim/sections.h"
#include "shim/x86.h"

struct idt_gate {
    uint64_t lo, hi;
};

static struct idt_gate idt[256] __aligned(16);

static bool compat_gate;                /* int $0x82 is a 32-bit guest's hypercall gate */

static void set_gate(unsigned vec, uint16_t cs, unsigned ist)
{
    uint64_t a = (uintptr_t)trap_stubs + 16 * vec;
    /* int3 and int $4 may be executed by the guest (in ring 3): their gates are DPL 3, as on Xen,
     * whatever DPL the guest gave them; any other INT n from the guest is a #GP, which
     * pv/vcpu/traps.c turns into the guest's trap n when the guest allows it. A 32-bit guest's
     * kernel (ring 1) makes hypercalls with int $0x82: DPL 1. */
    uint64_t dpl = vec == 3 || vec == 4 ? 3 : vec == VEC_COMPAT_HCALL && compat_gate ? 1 : 0;

    idt[vec].lo = (a & 0xffff) | ((uint64_t)cs << 16) | ((uint64_t)ist << 32) | (0xeull << 40) | (dpl << 45) |
                  (1ull << 47) | (((a >> 16) & 0xffff) << 48);
    idt[vec].hi = a >> 32;
}

void idt_init(uint16_t cs)
{
    for (unsigned v = 0; v < 256; v++)
        set_gate(v, cs, 0);
}

/* Once every CPU that can take an exception has its TSS loaded. */
void idt_enable_ist(void)
{
    idt_init(SEL_CS64);
    set_gate(8, SEL_CS64, IST_DF);
    set_gate(2, SEL_CS64, IST_NMI);
    set_gate(18, SEL_CS64, IST_MC);
    /* #DB too, as Xen: one can arrive at the first instruction of SYSCALL's entry, where the
     * stack is still the guest's (a single-stepped SYSCALL, a watched MOV SS before it: XSA-260) */
    set_gate(1, SEL_CS64, IST_DB);
}

void idt_compat_gate(void)
{
    compat_gate = true;
    set_gate(VEC_COMPAT_HCALL, SEL_CS64, 0);
}

void idt_load(void)
{
    struct desc_ptr p = { sizeof(idt) - 1, (uintptr_t)idt };

    __asm__ volatile("lidt %0" :: "m"(p));
}

const void *idt_table(void)
{
    return idt;
}
