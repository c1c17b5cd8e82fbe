/* cpu.c: CPU feature detection and per-CPU tables: GDT window, TSS with IST stacks, %gs base. */
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/panic.h"
#include "shim/sections.h"
#include "shim/stats.h"
#include "shim/x86.h"
#include "shim/xstate.h"
#include "shim/xerrno.h"

struct cpu_features cpu_has;
bool cpuid_faulting_on;

#define MSR_PLATFORM_INFO           0xce
#define MSR_MISC_FEATURES_ENABLES   0x140

/*
 * CPUID faulting (Intel's MSR pair, which Xen offers its HVM guests on any CPU since their CPUID
 * exits anyway): on, the guest's CPUID faults to the shim in every ring, so its user mode and
 * its native CPUID get the PV policy as its enlightened CPUID does, and the shim can offer the
 * guest the same faulting for its own user mode (Xen's PV rule).
 */
void cpu_cpuid_faulting_init(int enable)
{
    uint64_t v;

    cpu_has.cpuid_faulting = rdmsr_safe(MSR_PLATFORM_INFO, &v) && (v & (1ull << 31));
    cpuid_faulting_on = cpu_has.cpuid_faulting && enable != 0;
}

static void cpuid_faulting_cpu(void)
{
    uint64_t v;

    if (cpuid_faulting_on && !(rdmsr_safe(MSR_MISC_FEATURES_ENABLES, &v) &&
                               wrmsr_safe(MSR_MISC_FEATURES_ENABLES, v | 1)))
        panic("CPUID faulting was offered, but MSR_MISC_FEATURES_ENABLES refuses it");
}
struct cpu *cpus[MAX_CPUS];
unsigned nr_cpus_online;
struct cpu bsp_cpu __aligned(4096);
uint64_t gdt_zero_pa;

void cpu_features_init(void)
{
    uint32_t a, b, c, d, max, maxext;

    cpuid(0, &max, &b, &c, &d);
    memcpy(cpu_has.vendor + 0, &b, 4);
    memcpy(cpu_has.vendor + 4, &d, 4);
    memcpy(cpu_has.vendor + 8, &c, 4);
    cpu_has.vendor[12] = '\0';
    cpu_has.amd = !strcmp(cpu_has.vendor, "AuthenticAMD") || !strcmp(cpu_has.vendor, "HygonGenuine");
    cpu_has.intel = !strcmp(cpu_has.vendor, "GenuineIntel") || !strcmp(cpu_has.vendor, "CentaurHauls") ||
                    !strcmp(cpu_has.vendor, "  Shanghai  ");
    cpuid(1, &a, &b, &c, &d);
    cpu_has.family = (a >> 8) & 0xf;
    cpu_has.model = (a >> 4) & 0xf;
    if (cpu_has.family == 0xf)
        cpu_has.family += (a >> 20) & 0xff;
    if (cpu_has.family >= 6)
        cpu_has.model |= ((a >> 16) & 0xf) << 4;
    cpu_has.stepping = a & 0xf;
    cpu_has.apic = d & (1u << 9);
    cpu_has.x2apic = c & (1u << 21);
    cpu_has.tsc_deadline = c & (1u << 24);
    cpu_has.hypervisor = c & (1u << 31);
    cpuid(0x80000000, &maxext, &b, &c, &d);
    if (maxext >= 0x80000001) {
        cpuid(0x80000001, &a, &b, &c, &d);
        cpu_has.nx = d & (1u << 20);
        cpu_has.pdpe1gb = d & (1u << 26);
    }
    if (maxext >= 0x80000007)
        cpu_has.invariant_tsc = cpuid_edx(0x80000007) & (1u << 8);
}

/* Before paging_init: enough for exceptions to be reported on the BSP. */
void cpu_early_init(struct cpu *c)
{
    c->self = c;
    c->stack.bottom = (uintptr_t)boot_stack_bottom;
    c->stack.top = (uintptr_t)boot_stack_top;
    wrmsr(MSR_GS_BASE, (uintptr_t)c);
    if (cpu_has.nx)
        wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);    /* paging_init's tables use NX */
    idt_init(0x08);                     /* head.S's boot GDT until cpu_load_tables */
    idt_load();
}

struct cpu *cpu_alloc(unsigned id, uint32_t apic_id)
{
    BUILD_BUG_ON(sizeof(struct cpu) > PAGE_SIZE);
    BUILD_BUG_ON(offsetof(struct cpu, self) != 0);
    BUILD_BUG_ON(offsetof(struct cpu, entry_sp) != CPU_OFF_ENTRY_SP);
    BUILD_BUG_ON(sizeof(struct cpu_regs) != CPU_REGS_SIZE);
    BUILD_BUG_ON(offsetof(struct cpu, scratch) != CPU_OFF_SCRATCH);
    BUILD_BUG_ON(offsetof(struct cpu, xpti_guest_cr3) != CPU_OFF_XPTI_GUEST_CR3);
    BUILD_BUG_ON(offsetof(struct cpu, xpti_shim_cr3) != CPU_OFF_XPTI_SHIM_CR3);
    BUILD_BUG_ON(offsetof(struct cpu, l0_vcpu_area) % 64 != 0);
    ASSERT(id < MAX_CPUS);
    struct cpu *c = id == 0 ? &bsp_cpu : alloc_page_va();
    if (!c)
        return NULL;
    c->self = c;
    c->id = id;
    c->apic_id = apic_id;
    cpus[id] = c;
    return c;
}

static uint64_t seg_desc(uint32_t base, uint32_t limit, unsigned type, unsigned dpl, bool l, bool db, bool g)
{
    return (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)type << 40) |
           (1ull << 44) | ((uint64_t)dpl << 45) | (1ull << 47) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
           ((uint64_t)l << 53) | ((uint64_t)db << 54) | ((uint64_t)g << 55) | ((uint64_t)(base >> 24) << 56);
}

int cpu_alloc_tables(struct cpu *c)
{
    uintptr_t top;

    top = vmap_alloc_stack(STACK_PAGES);
    if (!top)
        return ERR(-XEN_ENOMEM);
    c->stack = (struct stack_range){ top - STACK_PAGES * PAGE_SIZE, top };
    for (int i = 0; i < NR_IST; i++) {
        top = vmap_alloc_stack(IST_PAGES);
        if (!top)
            return ERR(-XEN_ENOMEM);
        c->ist[i] = (struct stack_range){ top - IST_PAGES * PAGE_SIZE, top };
        /* the frame starts 16 bytes down (kept 16-aligned): above it, this CPU's struct cpu, which
         * the NMI/#DF/#MC entry compares with the GS base it finds (shim/entry.S) */
        *(struct cpu **)(top - 16) = c;
        c->tss.ist[i] = top - 16;       /* ist[0] is IST1 */
    }
    c->tss.iomap_base = sizeof(c->tss); /* no I/O bitmap */

    /*
     * A 16-page GDT window, as in Xen: pages 0-13 hold the PV guest's GDT frames (set_gdt), read as
     * zeros (not-present descriptors) while it has none there; page 14 (selector 0xe000) holds
     * ours; page 15 is zeros. A 16-page LDT window beside it is filled by pv/desc.c.
     */
    if (!gdt_zero_pa) {
        int64_t z = alloc_frame();
        if (z < 0)
            return ERR(-XEN_ENOMEM);
        gdt_zero_pa = (uint64_t)z << PAGE_SHIFT;
    }
    uintptr_t win = vmap_reserve(GDT_WINDOW_PAGES), ldt = vmap_reserve(LDT_WINDOW_PAGES);
    int64_t pfn = alloc_frame();
    if (!win || !ldt || pfn < 0)
        return ERR(-XEN_ENOMEM);
    int rc = 0;
    for (unsigned i = 0; i < GDT_WINDOW_PAGES && !rc; i++) {
        bool ours = i == GDT_FIRST_SHIM / PAGE_SIZE;
        rc = vmap_set_page(win + i * PAGE_SIZE, ours ? (uint64_t)pfn << PAGE_SHIFT : gdt_zero_pa, ours ? PTE_RW : PTE_RO);
    }
    for (unsigned i = 0; i < LDT_WINDOW_PAGES && !rc; i++)
        rc = vmap_set_page(ldt + i * PAGE_SIZE, 0, 0);
    if (rc)
        return rc;
    c->ldt = (uint64_t *)ldt;
    c->gdt = (uint64_t *)win;
    uint64_t *g = &c->gdt[GDT_FIRST_SHIM >> 3];
    memset(g, 0, PAGE_SIZE);
    g[SEL_CS64 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 0, true, false, true);
    g[SEL_DS >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0x3, 0, false, true, true);
    g[SEL_RING3_CS32 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 3, false, true, true);
    g[SEL_RING3_DS >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0x3, 3, false, true, true);
    g[SEL_RING3_CS64 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 3, true, false, true);
    g[SEL_CS32 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 0, false, true, true);
    uint64_t tss = (uintptr_t)&c->tss;
    g[SEL_TSS >> 3 & 0x1ff] = (sizeof(c->tss) - 1) | ((tss & 0xffffff) << 16) | (0x9ull << 40) |
                              (1ull << 47) | (((tss >> 24) & 0xff) << 56);
    g[(SEL_TSS >> 3 & 0x1ff) + 1] = tss >> 32;
    return 0;
}

/* A 32-bit PAE guest's flat selectors in place of the 64-bit ones (Xen's compat_gdt): ring-1
 * code and data at 0xe018/0xe020, ring-3 code and data at 0xe028/0xe030, all 4 GiB flat (the
 * hypervisor's hole above 0xF5800000 is kept by paging). The shim's own entries stay. */
void cpu_gdt_compat(struct cpu *c)
{
    uint64_t *g = &c->gdt[GDT_FIRST_SHIM >> 3];

    g[SEL_RING1_CS32 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 1, false, true, true);
    g[SEL_RING1_DS >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0x3, 1, false, true, true);
    g[SEL_C_RING3_CS32 >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0xb, 3, false, true, true);
    g[SEL_C_RING3_DS >> 3 & 0x1ff] = seg_desc(0, 0xfffff, 0x3, 3, false, true, true);
}

void cpu_load_tables(struct cpu *c)
{
    struct desc_ptr gdtr = { GDT_WINDOW_PAGES * PAGE_SIZE - 1, (uintptr_t)c->gdt };

    __asm__ volatile("lgdt %0" :: "m"(gdtr));
    __asm__ volatile("pushq %0\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n"
                     "1:"
                     :: "i"(SEL_CS64) : "rax", "memory");
    __asm__ volatile("movl %0, %%ss\n\t"
                     "movl %1, %%ds\n\t"
                     "movl %1, %%es\n\t"
                     "movl %1, %%fs\n\t"
                     "movl %1, %%gs"
                     :: "r"(SEL_DS), "r"(0) : "memory");
    wrmsr(MSR_GS_BASE, (uintptr_t)c);
    wrmsr(MSR_KERNEL_GS_BASE, 0);
    __asm__ volatile("ltr %w0" :: "r"(SEL_TSS));
    __asm__ volatile("lldt %w0" :: "r"(0));
    if (c->id == 0)
        idt_enable_ist();               /* gates now name 0xe008 and the IST stacks */
    idt_load();

    /* no global pages unless global-pages=on (seed 002), write-protect in ring 0, native FPU
     * errors, SSE for guests */
    write_cr0((read_cr0() | CR0_WP | CR0_NE | CR0_MP) & ~(CR0_EM | CR0_TS | CR0_AM));
    STAT_INC(cr4_writes);
    uint64_t cr4 = read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT | (xstate.offered ? CR4_OSXSAVE : 0);
    write_cr4(paging_global ? cr4 | CR4_PGE : cr4 & ~CR4_PGE);
    xstate_cpu_init();
    cpuid_faulting_cpu();
    if (cpu_has.nx)
        wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
}
