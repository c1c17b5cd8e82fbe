/*
 * x86_32/user.S: db-entry's ring-3 sequences for the 32-bit PAE build (see ../user.S) and the
 * kernel's entry points for them. SYSCALL from ring 3 goes to the syscall32 callback (ring 1, the
 * stack_switch stack, [eip, cs, eflags, esp, ss], ecx the return eip), which returns by the compat
 * iret. int $0x80 is both lib/x86_32/user.S's end of a run (eax = USER_EXIT) and our test call.
 * A sequence that moves esp next to the guard page keeps the caller's in ebx (saved first, as the
 * i386 ABI wants), which nothing on the way through the kernel touches.
 */
#include "xen-abi.h"

#define USER_EXIT 60
#define NR_TEST 7

    .data
    .balign 4
    .globl sc_count, sc_rip, sc_cs, sc_rflags, sc_rsp, sc_kflags, seq_sp, ss_word, guard_sp, user_rax
sc_count: .long 0
sc_rip: .long 0
sc_cs: .long 0
sc_rflags: .long 0
sc_rsp: .long 0
sc_kflags: .long 0
seq_sp: .long 0
ss_word: .long 0
guard_sp: .long 0
user_rax: .long 0

    .text
    .code32
/* The syscall32 callback: keep the frame and its own eflags, give eax + 1000 back by the compat iret. */
    .globl dbe_syscall
dbe_syscall:
    pushl %ecx
    pushfl
    popl %ecx
    movl %ecx, sc_kflags
    incl sc_count
    movl 4(%esp), %ecx
    movl %ecx, sc_rip
    movl 8(%esp), %ecx
    movl %ecx, sc_cs
    movl 12(%esp), %ecx
    movl %ecx, sc_rflags
    movl 16(%esp), %ecx
    movl %ecx, sc_rsp
    popl %ecx
    addl $1000, %eax
    jmp user_iret

/* int $0x80: the end of a run to lib/x86_32/user.S; ours to main.c's trap_hook (lib's trap_common). */
    .globl trap_0x80
trap_0x80:
    cmpl $USER_EXIT, %eax
    je user_syscall_entry
    pushl $0
    pushl $0x80
    jmp trap_common

    .globl u_ss_nop, u_ss_nop_at, u_ss_nop_ret
u_ss_nop:
    movw ss_word, %ss
u_ss_nop_at:
    nop
u_ss_nop_ret:
    nop
    ret

    .globl u_tf_syscall, u_tf_syscall_at, u_tf_syscall_ret, u_tf_syscall_next
u_tf_syscall:
    movl $NR_TEST, %eax
    movl %esp, seq_sp
    pushfl
    orl $0x100, (%esp)
    popfl
u_tf_syscall_at:
    syscall
u_tf_syscall_ret:
    nop
u_tf_syscall_next:
    movl %eax, user_rax
    ret

    .globl u_tf_syscall_guard, u_tf_syscall_guard_at, u_tf_syscall_guard_ret, u_tf_syscall_guard_next
u_tf_syscall_guard:
    pushl %ebx
    movl %esp, %ebx
    movl guard_sp, %esp
    movl $NR_TEST, %eax
    movl %esp, seq_sp
    pushfl
    orl $0x100, (%esp)
    popfl
u_tf_syscall_guard_at:
    syscall
u_tf_syscall_guard_ret:
    nop
u_tf_syscall_guard_next:
    movl %ebx, %esp
    popl %ebx
    movl %eax, user_rax
    ret

    .globl u_ss_syscall, u_ss_syscall_at, u_ss_syscall_ret
u_ss_syscall:
    movl $NR_TEST, %eax
    movl %esp, seq_sp
    movw ss_word, %ss
u_ss_syscall_at:
    syscall
u_ss_syscall_ret:
    movl %eax, user_rax
    ret

    .globl u_ss_syscall_guard, u_ss_syscall_guard_at, u_ss_syscall_guard_ret
u_ss_syscall_guard:
    pushl %ebx
    movl %esp, %ebx
    movl guard_sp, %esp
    movl $NR_TEST, %eax
    movl %esp, seq_sp
    movw ss_word, %ss
u_ss_syscall_guard_at:
    syscall
u_ss_syscall_guard_ret:
    movl %ebx, %esp
    popl %ebx
    movl %eax, user_rax
    ret

    .globl u_ss_int3, u_ss_int3_at, u_ss_int3_ret
u_ss_int3:
    movl %esp, seq_sp
    movw ss_word, %ss
u_ss_int3_at:
    int3
u_ss_int3_ret:
    ret

    .globl u_ss_int80, u_ss_int80_at, u_ss_int80_ret
u_ss_int80:
    movl $NR_TEST, %eax
    movl %esp, seq_sp
    movw ss_word, %ss
u_ss_int80_at:
    int $0x80
u_ss_int80_ret:
    ret

    .section .note.GNU-stack, "", @progbits
