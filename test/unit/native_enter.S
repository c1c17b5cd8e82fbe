/* native_enter.S: loads a struct insn_regs into the CPU and jumps to an instruction (test only). */

/* struct insn_regs: gpr[16] at 0, rip at 128, rflags at 136. */
#define ARITH_FLAGS 0x8d5       /* CF PF AF ZF SF OF: never TF, AC or DF, which would change more */

    .text
    .globl native_enter
    .type native_enter, @function
/*
 * void native_enter(const struct insn_regs *r, const void *code): never returns. Nothing past the
 * jump may use the stack or a register, as every one of them holds a test value; the fault that
 * ends the run (native.c) brings the host back with siglongjmp.
 */
native_enter:
    mov     %rsi, target(%rip)
    mov     136(%rdi), %rax
    and     $ARITH_FLAGS, %eax
    or      $2, %eax                /* bit 1 is always set */
    push    %rax
    popfq
    mov     0(%rdi), %rax
    mov     8(%rdi), %rcx
    mov     16(%rdi), %rdx
    mov     24(%rdi), %rbx
    mov     32(%rdi), %rsp
    mov     40(%rdi), %rbp
    mov     48(%rdi), %rsi
    mov     64(%rdi), %r8
    mov     72(%rdi), %r9
    mov     80(%rdi), %r10
    mov     88(%rdi), %r11
    mov     96(%rdi), %r12
    mov     104(%rdi), %r13
    mov     112(%rdi), %r14
    mov     120(%rdi), %r15
    mov     56(%rdi), %rdi
    jmp     *target(%rip)
    .size native_enter, . - native_enter

    .bss
    .balign 8
target:
    .quad   0

    .section .note.GNU-stack, "", @progbits
