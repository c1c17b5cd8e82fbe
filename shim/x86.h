/* x86.h: thin wrappers for privileged x86-64 instructions (port I/O, MSRs, CRs, CPUID, TSC). */
#ifndef SHIM_X86_H
#define SHIM_X86_H

#include "shim/lib.h"

#define MSR_APIC_BASE       0x0000001b
#define MSR_TSC_DEADLINE    0x000006e0
#define MSR_EFER            0xc0000080
#define MSR_FS_BASE         0xc0000100
#define MSR_GS_BASE         0xc0000101
#define MSR_KERNEL_GS_BASE  0xc0000102
#define EFER_SCE            (1u << 0)
#define EFER_LME            (1u << 8)
#define EFER_NXE            (1u << 11)

#define CR0_PE  (1ul << 0)
#define CR0_MP  (1ul << 1)
#define CR0_EM  (1ul << 2)
#define CR0_TS  (1ul << 3)
#define CR0_ET  (1ul << 4)
#define CR0_NE  (1ul << 5)
#define CR0_WP  (1ul << 16)
#define CR0_AM  (1ul << 18)
#define CR0_PG  (1ul << 31)
#define CR4_TSD        (1ul << 2)
#define CR4_DE         (1ul << 3)
#define CR4_PAE        (1ul << 5)
#define CR4_MCE        (1ul << 6)
#define CR4_PGE        (1ul << 7)
#define CR4_OSFXSR     (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)
#define CR4_FSGSBASE   (1ul << 16)
#define CR4_OSXSAVE    (1ul << 18)

#define RFLAGS_IF (1ul << 9)
#define RFLAGS_IOPL (3ul << 12)
#define RFLAGS_TF (1ul << 8)

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}
/* msr_safe.S: false if the access faulted (#GP: no such MSR or value here); only once the IDT
 * is loaded */
bool rdmsr_safe(uint32_t msr, uint64_t *val);
bool wrmsr_safe(uint32_t msr, uint64_t val);
bool xsetbv_safe(uint32_t reg, uint64_t val);

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "0"(leaf), "2"(sub));
}
static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    cpuid_count(leaf, 0, a, b, c, d);
}
static inline uint32_t cpuid_eax(uint32_t l) { uint32_t a, b, c, d; cpuid(l, &a, &b, &c, &d); return a; }
static inline uint32_t cpuid_ecx(uint32_t l) { uint32_t a, b, c, d; cpuid(l, &a, &b, &c, &d); return c; }
static inline uint32_t cpuid_edx(uint32_t l) { uint32_t a, b, c, d; cpuid(l, &a, &b, &c, &d); return d; }

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

#define DEFINE_CR(n) \
    static inline uint64_t read_cr##n(void) { uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
    static inline void write_cr##n(uint64_t v) { __asm__ volatile("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline uint64_t read_rflags(void) { uint64_t f; __asm__ volatile("pushfq; popq %0" : "=r"(f)); return f; }
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void halt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
static inline void mb(void) { __asm__ volatile("mfence" ::: "memory"); }
static inline bool irqs_enabled(void) { return read_rflags() & RFLAGS_IF; }

/* A 48-bit canonical address: bits 63-47 all equal. */
static inline bool is_canonical(uint64_t va)
{
    return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}
static inline uint64_t irq_save(void) { uint64_t f = read_rflags(); cli(); return f; }
static inline void irq_restore(uint64_t f) { if (f & RFLAGS_IF) sti(); }
static inline void invlpg(uintptr_t va) { __asm__ volatile("invlpg (%0)" :: "r"(va) : "memory"); }

struct __attribute__((packed)) desc_ptr {
    uint16_t limit;
    uint64_t base;
};

#define READ_ONCE(x)     (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif
