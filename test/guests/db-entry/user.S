/*
 * user.S: db-entry's user-mode sequences (64-bit) and the kernel's entry points for them. Each
 * sequence is a function user_run calls in user mode: it arms a debug trap right before the
 * instruction that enters the hypervisor (TF by popf, or a MOV SS that reads the watched word
 * ss_word), keeps its stack pointer at that moment in seq_sp, and returns. The labels <name>_at
 * (the instruction) and <name>_ret (where the entry returns to) are what main.c checks frames
 * against. A sequence that moves rsp next to the not-present guard page keeps the caller's in r12,
 * which nothing on the way through the kernel touches.
 */
#include "xen-abi.h"
#include "gprs.h"

#define USER_EXIT 60                    /* lib/user.S: the call that ends a run */
#define NR_TEST 7                       /* our system call: gives back rax + 1000 */

    .data
    .balign 8
    .globl sc_count, sc_rip, sc_cs, sc_rflags, sc_rsp, sc_kflags, seq_sp, ss_word, guard_sp, user_rax
    .globl user_rcx, user_r11
sc_count: .quad 0                       /* our system calls the callback saw, and the last one's */
sc_rip: .quad 0                         /*   frame */
sc_cs: .quad 0
sc_rflags: .quad 0
sc_rsp: .quad 0
sc_kflags: .quad 0                      /* the callback's own rflags */
seq_sp: .quad 0                         /* rsp as the sequence entered the hypervisor */
ss_word: .quad 0                        /* the selector MOV SS loads: the watched word */
guard_sp: .quad 0                       /* 8 bytes above the not-present guard page */
user_rax: .quad 0                       /* rax as user mode got it back */
user_rcx: .quad 0                       /* (b): rcx and r11 as user mode got them back */
user_r11: .quad 0

    .text
/*
 * The syscall callback (CALLBACKTYPE_syscall), on the stack_switch stack with
 * [rcx, r11, rip, cs, rflags, rsp, ss]: USER_EXIT goes on to lib/user.S (the end of a run); our
 * call has its frame and the callback's own rflags kept and gets rax + 1000 back the way Linux
 * returns from a system call, HYPERVISOR_iret with VGCF_in_syscall.
 */
    .globl dbe_syscall
dbe_syscall:
    cmpq $USER_EXIT, %rax
    je user_syscall_entry
    pushfq
    popq %r8
    movq %r8, sc_kflags(%rip)
    incq sc_count(%rip)
    movq 16(%rsp), %r8
    movq %r8, sc_rip(%rip)
    movq 24(%rsp), %r8
    movq %r8, sc_cs(%rip)
    movq 32(%rsp), %r8
    movq %r8, sc_rflags(%rip)
    movq 40(%rsp), %r8
    movq %r8, sc_rsp(%rip)
    addq $1000, %rax
    popq %rcx
    popq %r11
    pushq $VGCF_in_syscall
    jmp user_iret

/* int $0x80 through its DPL-3 gate: to main.c's trap_hook, which notes it and resumes after it. */
TRAP 0x80

/* The CPU's own answer: does a MOV SS hold its data breakpoint's #DB past the next instruction? */
    .globl u_ss_nop, u_ss_nop_at, u_ss_nop_ret
u_ss_nop:
    movw ss_word(%rip), %ss
u_ss_nop_at:
    nop
u_ss_nop_ret:
    nop
    ret

/* (a) TF set by popf: the syscall is the first instruction single-stepped */
    .globl u_tf_syscall, u_tf_syscall_at, u_tf_syscall_ret, u_tf_syscall_next
u_tf_syscall:
    movl $NR_TEST, %eax
    movq %rsp, seq_sp(%rip)
    pushfq
    orl $0x100, (%rsp)
    popfq
u_tf_syscall_at:
    syscall
u_tf_syscall_ret:
    nop
u_tf_syscall_next:
    movq %rax, user_rax(%rip)
    ret

/* (a) with rsp 8 bytes above the guard page (pushfq's slot is the mapped page's first word) */
    .globl u_tf_syscall_guard, u_tf_syscall_guard_at, u_tf_syscall_guard_ret, u_tf_syscall_guard_next
u_tf_syscall_guard:
    movq %rsp, %r12
    movq guard_sp(%rip), %rsp
    movl $NR_TEST, %eax
    movq %rsp, seq_sp(%rip)
    pushfq
    orl $0x100, (%rsp)
    popfq
u_tf_syscall_guard_at:
    syscall
u_tf_syscall_guard_ret:
    nop
u_tf_syscall_guard_next:
    movq %r12, %rsp
    movq %rax, user_rax(%rip)
    ret

/* (b) XSA-260: MOV SS reads the watched word, then SYSCALL */
    .globl u_ss_syscall, u_ss_syscall_at, u_ss_syscall_ret
u_ss_syscall:
    movl $NR_TEST, %eax
    movq %rsp, seq_sp(%rip)
    movw ss_word(%rip), %ss
u_ss_syscall_at:
    syscall
u_ss_syscall_ret:
    movq %rax, user_rax(%rip)
    movq %rcx, user_rcx(%rip)
    movq %r11, user_r11(%rip)
    ret

/* (b) with rsp 8 bytes above the guard page */
    .globl u_ss_syscall_guard, u_ss_syscall_guard_at, u_ss_syscall_guard_ret
u_ss_syscall_guard:
    movq %rsp, %r12
    movq guard_sp(%rip), %rsp
    movl $NR_TEST, %eax
    movq %rsp, seq_sp(%rip)
    movw ss_word(%rip), %ss
u_ss_syscall_guard_at:
    syscall
u_ss_syscall_guard_ret:
    movq %r12, %rsp
    movq %rax, user_rax(%rip)
    ret

/* (c) MOV SS, then int3 */
    .globl u_ss_int3, u_ss_int3_at, u_ss_int3_ret
u_ss_int3:
    movq %rsp, seq_sp(%rip)
    movw ss_word(%rip), %ss
u_ss_int3_at:
    int3
u_ss_int3_ret:
    ret

/* (c) MOV SS, then int $0x80 */
    .globl u_ss_int80, u_ss_int80_at, u_ss_int80_ret
u_ss_int80:
    movl $NR_TEST, %eax
    movq %rsp, seq_sp(%rip)
    movw ss_word(%rip), %ss
u_ss_int80_at:
    int $0x80
u_ss_int80_ret:
    ret

    .section .note.GNU-stack, "", @progbits
