/*
 * user.S: iret-fault's code for user mode (64-bit). x_loop far-returns into the test's code
 * selector x_sel (a 64-bit DPL-3 segment of the AP's GDT), says so in x_entered, and then runs
 * forced-emulation CPUIDs until x_stop is set or x_count reaches x_limit: each one a #UD the
 * hypervisor emulates and leaves with its own iretq to CS = x_sel. Then it far-returns to
 * FLAT_USER_CS and returns. Labels around the part run in x_sel tell main.c where a fault may be.
 */
#include "xen-abi.h"

    .text
    .globl x_loop
x_loop:
    pushq %rbx                          /* cpuid writes it; the caller's */
    pushq x_sel(%rip)
    leaq x_in(%rip), %rax
    pushq %rax
    lretq
    .globl x_in
x_in:
    movl $1, x_entered(%rip)
1:  cmpl $0, x_stop(%rip)
    jne 2f
    movq x_count(%rip), %rax
    cmpq x_limit(%rip), %rax
    jae 2f
    xorl %eax, %eax                     /* leaf 0, subleaf 0 */
    xorl %ecx, %ecx
    ud2                                 /* the forced-emulation prefix: ud2; .ascii "xen" */
    .ascii "xen"
    cpuid
    .globl x_after_cpuid
x_after_cpuid:
    incq x_count(%rip)
    jmp 1b
2:  pushq $FLAT_USER_CS
    leaq x_out(%rip), %rax
    pushq %rax
    lretq
    .globl x_out
x_out:                                  /* back in FLAT_USER_CS: [x_in, x_out) ran in x_sel */
    popq %rbx
    ret

    .section .note.GNU-stack, "", @progbits
