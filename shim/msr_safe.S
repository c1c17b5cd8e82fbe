/* msr_safe.S: rdmsr, wrmsr and xsetbv that may #GP (an MSR or a value the CPU or L0 does not
 * take): the fault returns false instead of panicking (shim.lds.S's fixup table, shim/traps.c). */

/* bool rdmsr_safe(uint32_t msr, uint64_t *val) */
    .text
    .globl rdmsr_safe
rdmsr_safe:
    movl %edi, %ecx
1:  rdmsr
    shlq $32, %rdx
    movl %eax, %eax
    orq %rdx, %rax
    movq %rax, (%rsi)
    movl $1, %eax
    ret
2:  xorl %eax, %eax
    ret

/* bool wrmsr_safe(uint32_t msr, uint64_t val) */
    .globl wrmsr_safe
wrmsr_safe:
    movl %edi, %ecx
    movl %esi, %eax
    movq %rsi, %rdx
    shrq $32, %rdx
3:  wrmsr
    movl $1, %eax
    ret
4:  xorl %eax, %eax
    ret

/* bool xsetbv_safe(uint32_t reg, uint64_t val) */
    .globl xsetbv_safe
xsetbv_safe:
    movl %edi, %ecx
    movl %esi, %eax
    movq %rsi, %rdx
    shrq $32, %rdx
5:  xsetbv
    movl $1, %eax
    ret
6:  xorl %eax, %eax
    ret

    .section .fixup_table, "a", @progbits
    .balign 8
    .quad 1b, 2b
    .quad 3b, 4b
    .quad 5b, 6b

    .section .note.GNU-stack, "", @progbits
