/* config.h: the shim's compile-time constants: virtual layout, limits, vectors (C and assembly). */
#ifndef SHIM_CONFIG_H
#define SHIM_CONFIG_H

/*
 * Virtual layout. The PV ABI gives the hypervisor only 0xffff800000000000-0xffff87ffffffffff
 * (PML4 slots 256-271); a 64-bit PV kernel (Linux) lives at 0xffffffff80000000, so the shim
 * cannot sit in the top 2 GiB and is built position-independent (RIP-relative) instead of with
 * -mcmodel=kernel. Slots 256-257 stay free for the guest's read-only M2P.
 *   image:      virt = phys + IMAGE_VOFFSET (first GiB of physical memory reachable this way)
 *   vmap:       ioremap, stacks with guard pages, per-CPU GDT windows
 *   direct map: all RAM, virt = phys + DIRECTMAP_BASE
 */
#define IMAGE_PHYS_BASE   0x200000
#define IMAGE_VOFFSET     0xffff82d040000000
#define VMAP_BASE         0xffff82c000000000
#define VMAP_SIZE         0x0000000040000000        /* 1 GiB */
#define DIRECTMAP_BASE    0xffff830000000000
#define DIRECTMAP_SIZE    0x0000050000000000        /* up to 0xffff880000000000: 5 TiB */

#define PAGE_SHIFT        12
#define PAGE_SIZE         (1 << PAGE_SHIFT)

#define MAX_CPUS          64
#define STACK_PAGES       4                         /* 16 KiB main stack per CPU */
#define IST_PAGES         1                         /* 4 KiB each for #DF, NMI, #MC, #DB */
#define IST_DF            1
#define IST_NMI           2
#define IST_MC            3
#define IST_DB            4
#define NR_IST            4

/* Interrupt vectors (LAPIC fixed interrupts; higher = higher priority class). */
#define VEC_PIC_BASE      0x20                      /* legacy 8259 remapped here, all masked */
#define VEC_TIMER         0xf0
#define VEC_CALL          0xf1                      /* run queued work on this CPU */
#define VEC_PING          0xf2                      /* IPI that only counts (self-test) */
#define VEC_EVTCHN        0xf3                      /* Xen event channel upcall */
#define VEC_FLUSH         0xf4                      /* flush this CPU's TLB (flush.c) */
#define VEC_KICK          0xf5                      /* the guest vCPU on this CPU has news (pv/vcpu/vcpu.c) */
#define VEC_APIC_ERROR    0xfe
#define VEC_SPURIOUS      0xff

/* GDT selectors: the same layout Xen uses, since PV guests see FLAT_RING3_* from the ABI. */
#define GDT_FIRST_SHIM    0xe000
#define SEL_CS64          0xe008
#define SEL_DS            0xe010
#define SEL_RING3_CS32    0xe023
#define SEL_RING3_DS      0xe02b
#define SEL_RING3_CS64    0xe033
#define SEL_CS32          0xe038
#define SEL_TSS           0xe040                    /* 16 bytes */
/* A 32-bit PAE guest's flat selectors (Xen's compat_gdt): 0xe018-0xe037 hold these instead. */
#define SEL_RING1_CS32    0xe019                    /* FLAT_RING1_CS: its kernel, in ring 1 */
#define SEL_RING1_DS      0xe021
#define SEL_C_RING3_CS32  0xe02b                    /* FLAT_RING3_CS of xen-x86_32.h */
#define SEL_C_RING3_DS    0xe033
#define VEC_COMPAT_HCALL  0x82                      /* int $0x82: a 32-bit guest's hypercall gate (DPL 1) */
#define SEL_LDT           0xe050                    /* 16 bytes: the guest's LDT (pv/mm/desc.c) */
#define GDT_SHIM_ENTRIES  12                        /* 0xe000..0xe05f */
#define GDT_WINDOW_PAGES  16                        /* the GDTR covers 0-0xffff */
#define LDT_WINDOW_PAGES  16                        /* 8192 entries */

/* struct cpu fields the SYSCALL entry reaches through %gs (checked in cpu.c). */
#define CPU_OFF_ENTRY_SP  8                         /* stack top for entries from the guest */
#define CPU_OFF_SCRATCH   16                        /* the guest's rsp while we switch */
#define CPU_OFF_XPTI_GUEST_CR3 24                   /* shim/xpti.h: CR3 for returns to ring 3 (0: keep) */
#define CPU_OFF_XPTI_SHIM_CR3  32                   /* and for entries from ring 3 (0: keep) */
#define CPU_REGS_SIZE     176                       /* struct cpu_regs: 15 registers, vector, error, 5-word frame */
#define TRAP_STUBS_SIZE   (256 * 16)                /* entry.S: one 16-byte stub per vector */
#define VEC_SYSCALL       0x100                     /* cpu_regs.vector of a SYSCALL entry */

#endif
