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
    /* A fault at our own iretq to the guest (pv_iret_fault): trap_return had already switched
     * to the guest's GS, and under xpti to its CR3. */
    leaq trap_return_iret(%rip), %rax
    cmpq %rax, 136(%rsp)
    jne 1f
    movq 160(%rsp), %rax                /* the frame it was loading: a guest's? */
    testb $3, 8(%rax)
    jz 1f
3:  swapgs
    /* guest user mode ran on tables without the shim (shim/xpti.h): back to the full ones */
    movq %gs:CPU_OFF_XPTI_SHIM_CR3, %rax
    testq %rax, %rax
    jz 1f
    movq %rax, %cr3
1:  movq %rsp, %rdi
    call do_trap
/* Return through the struct cpu_regs at %rsp (also how a PV guest is entered and resumed). */
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

/* void call_on_stack(uintptr_t sp, void (*fn)(void *), void *arg): never returns */
    .globl call_on_stack
call_on_stack:
    movq %rdi, %rsp
    movq %rdx, %rdi
    xorl %ebp, %ebp
    call *%rsi
    ud2

    .section .note.GNU-stack, "", @progbits
