/* asm-regs.h: push and pop the general registers in struct cpu_regs order (r15 ends lowest). */
#ifndef SHIM_ASM_REGS_H
#define SHIM_ASM_REGS_H
#ifdef __ASSEMBLY__

/* Shared by every entry that builds a struct cpu_regs: exceptions, interrupts, guest syscalls. */
.macro SAVE_GPRS
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
.endm

.macro RESTORE_GPRS
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
.endm

#endif
#endif
