/* head.S: the two entry points (multiboot1 from QEMU/GRUB, PVH from Xen), long mode, jump to C. */
#include "shim/config.h"

#define PA(x)           ((x) - IMAGE_VOFFSET)
#define MB_MAGIC        0x1BADB002
#define MB_FLAGS        ((1 << 0) | (1 << 1) | (1 << 16))   /* page-align mods, mem info, a.out kludge */
#define MB_BOOT_MAGIC   0x2BADB002
#define BOOT_MULTIBOOT  1
#define BOOT_PVH        2
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define PML4_SLOT(va)   (((va) >> 39) & 511)
#define L3_SLOT(va)     (((va) >> 30) & 511)

    .section .text.head, "ax", @progbits
    .code32

    /* Multiboot1 header with the address fields: QEMU refuses a 64-bit ELF without them. */
    .balign 4
mb_header:
    .long MB_MAGIC
    .long MB_FLAGS
    .long (-(MB_MAGIC + MB_FLAGS)) & 0xffffffff
    .long PA(mb_header)
    .long PA(__image_start)
    .long PA(__load_end)
    .long PA(__bss_end)
    .long PA(mb_entry)

    /* Multiboot: EAX = 0x2BADB002, EBX = multiboot info, flat 32-bit protected mode, no paging. */
    .globl mb_entry
mb_entry:
    cli
    cld
    cmpl $MB_BOOT_MAGIC, %eax
    jne no_boot
    movl $BOOT_MULTIBOOT, %esi
    jmp common32

    /* PVH: EBX = hvm_start_info, flat 32-bit protected mode, no paging, no stack. */
    .globl pvh_entry
pvh_entry:
    cli
    cld
    movl $BOOT_PVH, %esi

common32:
    movl %esi, PA(boot_kind)
    movl %ebx, PA(boot_info_pa)

    /* zero .bss: the boot page tables and stack live there */
    movl $PA(__bss_start), %edi
    movl $PA(__bss_end), %ecx
    subl %edi, %ecx
    xorl %eax, %eax
    rep stosb

    /* long mode? */
    movl $0x80000000, %eax
    cpuid
    cmpl $0x80000001, %eax
    jb no_boot
    movl $0x80000001, %eax
    cpuid
    btl $29, %edx
    jnc no_boot

    /* boot_l2: 2048 2 MiB mappings of 0-4 GiB (present, writable, large) */
    movl $PA(boot_l2), %edi
    movl $0x83, %eax
    xorl %edx, %edx
    movl $2048, %ecx
1:  movl %eax, (%edi)
    movl %edx, 4(%edi)
    addl $0x200000, %eax
    adcl $0, %edx
    addl $8, %edi
    loop 1b

    /* boot_l3_low: 0-4 GiB identity (for the switch), boot_l3_high: first GiB at IMAGE_VOFFSET */
    movl $PA(boot_l2) + 3, %eax
    movl %eax, PA(boot_l3_low)
    addl $0x1000, %eax
    movl %eax, PA(boot_l3_low) + 8
    addl $0x1000, %eax
    movl %eax, PA(boot_l3_low) + 16
    addl $0x1000, %eax
    movl %eax, PA(boot_l3_low) + 24
    movl $PA(boot_l2) + 3, PA(boot_l3_high) + 8 * L3_SLOT(IMAGE_VOFFSET)
    movl $PA(boot_l3_low) + 3, PA(boot_pml4)
    movl $PA(boot_l3_high) + 3, PA(boot_pml4) + 8 * PML4_SLOT(IMAGE_VOFFSET)

    movl %cr4, %eax
    orl $(1 << 5), %eax                 /* PAE */
    movl %eax, %cr4
    movl $PA(boot_pml4), %eax
    movl %eax, %cr3
    movl $0xc0000080, %ecx              /* EFER.LME */
    rdmsr
    orl $(1 << 8), %eax
    wrmsr
    movl %cr0, %eax
    orl $0x80010001, %eax               /* PG, WP, PE */
    movl %eax, %cr0
    lgdt PA(boot_gdtr)
    ljmp $0x08, $PA(start64_low)

no_boot:
    /* No way to report yet: tell a QEMU isa-debug-exit "crash" (3), else triple-fault (an HVM
     * L0 crashes the domain, a PC resets), rather than hang. */
    movb $3, %al
    outb %al, $0xf4
    lidt PA(null_idtr)
    int3
2:  hlt
    jmp 2b

    .code64
start64_low:
    movl $0x10, %eax
    movl %eax, %ds
    movl %eax, %es
    movl %eax, %ss
    movl %eax, %fs
    movl %eax, %gs
    movabsq $start64, %rax
    jmp *%rax

    .text
start64:
    leaq boot_stack_top(%rip), %rsp
    xorl %ebp, %ebp
    movl boot_kind(%rip), %edi
    movl boot_info_pa(%rip), %esi
    call start_shim
3:  hlt
    jmp 3b

    .section .rodata, "a", @progbits
    .balign 8
boot_gdt:
    .quad 0
    .quad 0x00af9a000000ffff            /* 0x08: 64-bit code */
    .quad 0x00cf92000000ffff            /* 0x10: data */
boot_gdt_end:
boot_gdtr:
    .word boot_gdt_end - boot_gdt - 1
    .long PA(boot_gdt)
null_idtr:
    .word 0
    .long 0

    .data
    .balign 4
    .globl boot_kind, boot_info_pa
boot_kind:      .long 0
boot_info_pa:   .long 0

    .section .bss.boot, "aw", @nobits
    .balign 4096
    .globl boot_pml4
boot_pml4:      .skip 4096
boot_l3_low:    .skip 4096
boot_l3_high:   .skip 4096
boot_l2:        .skip 4 * 4096
    .globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
    .skip STACK_PAGES * 4096
boot_stack_top:

    /* PVH entry point for Xen's domain builder. */
    .section .note.Xen, "a", @note
    .balign 4
    .long 4, 4, XEN_ELFNOTE_PHYS32_ENTRY
    .asciz "Xen"
    .long PA(pvh_entry)

    .section .note.GNU-stack, "", @progbits
