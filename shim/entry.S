/* entry.S: the IDT stubs (one per vector), the common trap frame save/restore, stack switching. */
#include "shim/asm-regs.h"
#include "shim/config.h"

/* vectors whose exceptions push an error code */
#define HAS_ERR(v) (((v) == 8) | (((v) >= 10) & ((v) <= 14)) | ((v) == 17) | ((v) == 21) | ((v) == 29) | ((v) == 30))

    .text
    .balign 16
    .globl trap_stubs
trap_stubs:
    .set vec, 0
    .rept 256
    .balign 16
    .if HAS_ERR(vec) == 0
    pushq $0
    .endif
    pushq $vec
    jmp trap_common
    .set vec, vec + 1
    .endr

/* struct cpu_regs: r15 .. rax, vector, error_code, then the hardware frame (rip at 136, cs at 144) */
trap_common:
    cld
    SAVE_GPRS
    testb $3, 144(%rsp)                 /* from a PV guest (ring 1 or 3): switch GS */
    jnz 3f
    movq 120(%rsp), %rax
    cmpq $2, %rax                       /* NMI, #DF, #MC: they interrupt any instruction */
    je 7f
    cmpq $8, %rax
    je 7f
    cmpq $18, %rax
    je 7f
    movq 136(%rsp), %rax
    cmpq $1, 120(%rsp)
    jne 4f
    /* A #DB in ring 0 at the first instruction of a guest entry, before its swapgs: the trap of
     * the guest's own last instruction (a single-stepped SYSCALL or INT, a watched MOV SS before
     * one: XSA-260), delivered as the CPU entered us. GS is still the guest's, so nothing here
     * may use it: the entry goes on, as on Xen ("#DB in Xen context"), DR6 kept for the guest. */
    leaq pv_syscall_entry(%rip), %rbx
    cmpq %rbx, %rax
    je 5f
    leaq pv_syscall_entry_compat(%rip), %rbx
    cmpq %rbx, %rax
    je 5f
    leaq trap_stubs(%rip), %rbx
    subq %rbx, %rax
    cmpq $TRAP_STUBS_SIZE, %rax
    jb 5f
    movq 136(%rsp), %rax
    /* A fault at our own iretq to the guest (pv_iret_fault: #NP, #SS, #GP or #PF; an NMI or #MC
     * there is not the iretq's): trap_return had already switched to the guest's GS, and under
     * xpti to its CR3. */
4:  leaq trap_return_iret(%rip), %rbx
    cmpq %rbx, %rax
    jne 1f
    movq 120(%rsp), %rax
    subq $11, %rax
    cmpq $3, %rax
    ja 1f
    movq 160(%rsp), %rax                /* the frame it was loading: a guest's? */
    testb $3, 8(%rax)
    jz 1f
3:  swapgs
    /* guest user mode ran on tables without the shim (shim/xpti.h): back to the full ones */
    movq %gs:CPU_OFF_XPTI_SHIM_CR3, %rax
    testq %rax, %rax
    jz 6f
    movq %rax, %cr3
    /* A #DB from the guest came on its IST stack: it moves to this CPU's entry stack, where the
     * guest's other traps land, so that a #DB its handling trips (a guest watchpoint on the stack
     * it is bounced to) cannot overwrite it. */
6:  cmpq $1, 120(%rsp)
    jne 1f
    movq %gs:CPU_OFF_ENTRY_SP, %rdi
    subq $CPU_REGS_SIZE, %rdi
    movq %rdi, %rbx
    movq %rsp, %rsi
    movl $CPU_REGS_SIZE / 8, %ecx
    rep movsq
    movq %rbx, %rsp
1:  movq %rsp, %rdi
    call do_trap
    .globl trap_return
trap_return:
    testb $3, 144(%rsp)
    jz 2f
    /* to guest user mode under xpti: its copy of the L4 (this code and stack are mapped there) */
    movq %gs:CPU_OFF_XPTI_GUEST_CR3, %rax
    swapgs
    testq %rax, %rax
    jz 2f
    movq %rax, %cr3
2:  RESTORE_GPRS
    addq $16, %rsp
    .globl trap_return_iret
trap_return_iret:
    iretq

/*
 * An NMI (`xl trigger DOM nmi`), #DF or #MC in ring 0 can land where GS is still, or already, the
 * guest's: an IDT stub or a SYSCALL entry before its swapgs, trap_return after its own. Under
 * xpti CR3 may be the guest's user tables too (between a swapgs and its CR3 write). GS is ours
 * when its base is this CPU's struct cpu, which sits just above the IST frame (cpu_alloc_tables);
 * what we change here is put back before the iretq. A guest can set its GS base to that same
 * value, but then both bases are ours and nothing needs swapping.
 */
7:  xorl %r12d, %r12d                   /* r12 = 1: we did a swapgs */
    xorl %r13d, %r13d                   /* r13 = the CR3 to put back, or 0 */
    movl $0xc0000101, %ecx              /* MSR_GS_BASE */
    rdmsr
    shlq $32, %rdx
    orq %rdx, %rax
    cmpq CPU_REGS_SIZE(%rsp), %rax
    je 8f
    swapgs
    movl $1, %r12d
8:  movq %gs:CPU_OFF_XPTI_GUEST_CR3, %rax
    testq %rax, %rax
    jz 9f
    movq %cr3, %rbx
    cmpq %rax, %rbx
    jne 9f
    movq %gs:CPU_OFF_XPTI_SHIM_CR3, %rax
    movq %rax, %cr3
    movq %rbx, %r13
9:  movq %rsp, %rdi
    call do_trap                        /* r12, r13 are callee-saved */
    testq %r13, %r13
    jz 10f
    movq %r13, %cr3
10: testl %r12d, %r12d
    jz 5f
    swapgs

/* the #DB of a guest entry (above): back to that entry at once */
5:  RESTORE_GPRS
    addq $16, %rsp
    iretq

/* void call_on_stack(uintptr_t sp, void (*fn)(void *), void *arg): never returns */
    .globl call_on_stack
call_on_stack:
    movq %rdi, %rsp
    movq %rdx, %rdi
    xorl %ebp, %ebp
    call *%rsi
    ud2

    .section .note.GNU-stack, "", @progbits
