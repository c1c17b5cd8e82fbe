/* entry.S: SYSCALL from the PV guest (64-bit and compat), saved as a struct cpu_regs; hypercalls. */
#include "shim/asm-regs.h"
#include "shim/config.h"

/*
 * SFMASK cleared IF, so nothing interrupts us before we are on our own stack. The frame looks like
 * an interrupt's from ring 3 (ss, rsp, rflags = r11, cs, rip = rcx), vector VEC_SYSCALL, so that
 * trap_return (shim/entry.S) takes us back with swapgs and iretq.
 */
.macro SYSCALL_ENTRY name, cs
    .globl \name
\name:
    swapgs
    movq %rsp, %gs:CPU_OFF_SCRATCH
    movq %gs:CPU_OFF_ENTRY_SP, %rsp
    pushq $SEL_RING3_DS
    pushq %gs:CPU_OFF_SCRATCH
    pushq %r11
    pushq $\cs
    pushq %rcx
    pushq $0
    pushq $VEC_SYSCALL
    cld
    SAVE_GPRS
    movq %gs:CPU_OFF_XPTI_SHIM_CR3, %rax   /* from guest user mode under xpti (shim/xpti.h) */
    testq %rax, %rax
    jz 1f
    movq %rax, %cr3
1:  xorl %ebp, %ebp
    movq %rsp, %rdi
    call pv_syscall
    jmp trap_return
.endm

    .text
SYSCALL_ENTRY pv_syscall_entry, SEL_RING3_CS64
SYSCALL_ENTRY pv_syscall_entry_compat, SEL_RING3_CS32

/* void pv_resume(struct cpu_regs *r): load the guest's state from r and return to it. */
    .globl pv_resume
pv_resume:
    movq %rdi, %rsp
    jmp trap_return

    .section .note.GNU-stack, "", @progbits
