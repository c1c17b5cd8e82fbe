/*
 * x86_32/user.S: iret-fault's code for ring 3 in the 32-bit build, as ../user.S: a far return
 * into x_sel (a flat 32-bit DPL-3 segment of the AP's GDT), forced-emulation CPUIDs until x_stop
 * or x_limit, each left by the hypervisor's iretq to CS = x_sel, then a far return to
 * FLAT_USER_CS.
 */
#include "xen-abi.h"

    .text
    .code32
    .globl x_loop
x_loop:
    pushl %ebx                          /* cpuid writes it; callee-saved */
    pushl x_sel
    pushl $x_in
    lret
    .globl x_in
x_in:
    movl $1, x_entered
1:  cmpl $0, x_stop
    jne 2f
    movl x_count, %eax
    cmpl x_limit, %eax
    jae 2f
    xorl %eax, %eax                     /* leaf 0, subleaf 0 */
    xorl %ecx, %ecx
    ud2                                 /* the forced-emulation prefix: ud2; .ascii "xen" */
    .ascii "xen"
    cpuid
    .globl x_after_cpuid
x_after_cpuid:
    incl x_count
    jmp 1b
2:  pushl $FLAT_USER_CS
    pushl $x_out
    lret
    .globl x_out
x_out:                                  /* back in FLAT_USER_CS: [x_in, x_out) ran in x_sel */
    popl %ebx
    ret

    .section .note.GNU-stack, "", @progbits
