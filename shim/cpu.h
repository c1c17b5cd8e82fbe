/* cpu.h: per-CPU data (reached through %gs), the trap frame, CPU features, per-CPU table setup. */
#ifndef SHIM_CPU_H
#define SHIM_CPU_H

#include "shim/config.h"
#include "shim/lib.h"
#include "shim/timer.h"

struct cpu_regs {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code;
    uint64_t rip, cs, rflags, rsp, ss;              /* pushed by the CPU */
};

struct __packed tss64 {
    uint32_t rsvd0;
    uint64_t rsp[3];
    uint64_t rsvd1;
    uint64_t ist[7];
    uint64_t rsvd2;
    uint16_t rsvd3;
    uint16_t iomap_base;
};

struct stack_range {
    uintptr_t bottom, top;
};

struct cpu {
    struct cpu *self;                   /* must be first: this_cpu() reads %gs:0 */
    uintptr_t entry_sp;                 /* CPU_OFF_ENTRY_SP: stack top for SYSCALL from the guest */
    uint64_t scratch;                   /* CPU_OFF_SCRATCH */
    uint64_t xpti_guest_cr3;            /* CPU_OFF_XPTI_GUEST_CR3 (shim/xpti.c) */
    uint64_t xpti_shim_cr3;             /* CPU_OFF_XPTI_SHIM_CR3 */
    uint64_t *xpti_l4;                  /* this CPU's copy of a user L4 (NULL: xpti off) */
    uint64_t xpti_src;                  /* the L4 frame it copies, +1 (0: none) */
    unsigned id;                        /* our index, 0 = BSP */
    uint32_t apic_id;
    uint32_t vcpu_id;                   /* the L0's number for this vCPU */
    volatile bool online;
    volatile bool in_panic;
    uint8_t l0_vcpu_area[64] __aligned(64);     /* Xen: this CPU's registered vcpu_info */
    void *l0_vcpu_info;                 /* Xen: the vcpu_info in use (registered, or in shared_info) */
    void *l0_time;                      /* Xen: the vcpu_time_info in use */

    struct stack_range stack;           /* main stack */
    struct stack_range ist[NR_IST];     /* IST_DF, IST_NMI, IST_MC, IST_DB (index = IST_x - 1) */
    struct tss64 tss __aligned(16);
    uint64_t *gdt;                      /* the descriptor at selector S is gdt[S >> 3] */
    uint64_t *ldt;                      /* the window LDTR points at (pv/mm/desc.c maps its pages) */

    struct timer_queue timers;
    volatile uint32_t tlb_time;         /* flush.c: the TLB-flush clock when this CPU last flushed */

    /* work for this CPU's idle loop (smp_call) */
    void (*volatile call_fn)(void *);
    void *volatile call_arg;
    volatile unsigned call_seq, call_done_seq;

    /* what arrived */
    volatile uint64_t nr_timer_irqs, nr_calls, nr_pings, nr_upcalls, nr_spurious;
};

static inline struct cpu *this_cpu(void)
{
    struct cpu *c;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(c));
    return c;
}

struct cpu_features {
    bool amd, intel;                    /* vendor, for vmcall vs vmmcall */
    bool nx, pdpe1gb, x2apic, tsc_deadline, invariant_tsc, hypervisor, apic;
    bool cpuid_faulting;                /* MSR_PLATFORM_INFO says so (cpu_cpuid_faulting_init) */
    char vendor[13];
    uint32_t family, model, stepping;
};

extern struct cpu_features cpu_has;
extern bool cpuid_faulting_on;          /* every CPU faults the guest's CPUID to the shim */

/* Once on the BSP, IDT loaded: probe CPUID faulting; enable = the cpuid-faulting option (-1
 * default: on where offered). cpu_load_tables then turns it on on each CPU. */
void cpu_cpuid_faulting_init(int enable);
extern struct cpu *cpus[MAX_CPUS];
extern unsigned nr_cpus_online;
extern struct cpu bsp_cpu;
extern uint64_t gdt_zero_pa;           /* a page of zeros: GDT window pages with no frame */

void cpu_features_init(void);
void cpu_early_init(struct cpu *c);         /* BSP before paging: %gs and the IDT */
struct cpu *cpu_alloc(unsigned id, uint32_t apic_id);
int cpu_alloc_tables(struct cpu *c);        /* stacks, IST stacks, GDT window */
void cpu_load_tables(struct cpu *c);        /* on c itself: GDT, TSS, IDT, %gs, control registers */
void cpu_gdt_compat(struct cpu *c);         /* a 32-bit guest's flat selectors in c's GDT */
void call_on_stack(uintptr_t sp, void (*fn)(void *), void *arg) __noreturn;

/* idt.c */
void idt_init(uint16_t cs);
void idt_enable_ist(void);
void idt_load(void);
void idt_compat_gate(void);             /* int $0x82 open to ring 1 (a 32-bit guest's hypercalls) */
const void *idt_table(void);            /* the IDT's address (xpti.c maps it) */

/* traps.c */
void do_trap(struct cpu_regs *r);
void show_regs(const struct cpu_regs *r);
void backtrace_from(uint64_t rip, uint64_t rbp);
void backtrace_here(void);

#endif
