/* trampoline.S: the AP start-up code, copied below 1 MiB: real mode -> protected -> long mode -> C. */
#include "shim/config.h"

    .section .rodata.trampoline, "a", @progbits
    .code16
    .balign 16
    .globl trampoline_start
trampoline_start:
    cli
    cld
    movw %cs, %ax
    movw %ax, %ds
    movzwl %ax, %ebx
    shll $4, %ebx                                   /* EBX = where we were copied to */
    leal (tramp_gdt - trampoline_start)(%ebx), %eax
    movl %eax, (tramp_gdtr + 2 - trampoline_start)
    leal (tramp32 - trampoline_start)(%ebx), %eax
    movl %eax, (tramp_jmp32 - trampoline_start)
    lgdtl (tramp_gdtr - trampoline_start)
    movl %cr0, %eax
    orl $1, %eax
    movl %eax, %cr0
    ljmpl *(tramp_jmp32 - trampoline_start)

    .code32
tramp32:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl %cr4, %eax
    orl $(1 << 5), %eax                             /* PAE */
    movl %eax, %cr4
    movl (tramp_cr3 - trampoline_start)(%ebx), %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx                          /* EFER: LME, plus NXE if the BSP has it */
    rdmsr
    orl $(1 << 8), %eax
    orl (tramp_efer - trampoline_start)(%ebx), %eax
    wrmsr
    movl %cr0, %eax
    orl $0x80010001, %eax                           /* PG, WP, PE */
    movl %eax, %cr0
    leal (tramp64 - trampoline_start)(%ebx), %eax
    movl %eax, (tramp_jmp64 - trampoline_start)(%ebx)
    ljmpl *(tramp_jmp64 - trampoline_start)(%ebx)

    .code64
tramp64:
    movl %ebx, %ebx
    movq (tramp_stack - trampoline_start)(%rbx), %rsp
    movq (tramp_arg - trampoline_start)(%rbx), %rdi
    movq (tramp_entry - trampoline_start)(%rbx), %rax
    xorl %ebp, %ebp
    call *%rax
    ud2

    .balign 8
tramp_gdt:
    .quad 0
    .quad 0x00cf9a000000ffff                        /* 0x08: 32-bit code */
    .quad 0x00cf92000000ffff                        /* 0x10: data */
    .quad 0x00af9a000000ffff                        /* 0x18: 64-bit code */
tramp_gdt_end:
tramp_gdtr:
    .word tramp_gdt_end - tramp_gdt - 1
    .long 0                                         /* patched: physical address of tramp_gdt */
    .balign 4
tramp_jmp32:
    .long 0
    .word 0x08
    .balign 4
tramp_jmp64:
    .long 0
    .word 0x18

    /* Filled in by smp.c for each AP. */
    .balign 8
    .globl tramp_cr3, tramp_efer, tramp_stack, tramp_entry, tramp_arg
tramp_cr3:      .long 0
tramp_efer:     .long 0
tramp_stack:    .quad 0
tramp_entry:    .quad 0
tramp_arg:      .quad 0
    .globl trampoline_end
trampoline_end:

    .section .note.GNU-stack, "", @progbits
