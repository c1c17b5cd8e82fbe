/* user.S: the way in and out of user mode, for user.h and for tests with their own callbacks
 * (usermode). */
#include "xen-abi.h"

#define NR_IRET 23
#define USER_EXIT 60                    /* the "system call" that ends a run */

    .data
user_saved_rsp: .quad 0
    .globl user_fn
user_fn: .quad 0

    .text
/* The hypervisor's iret by raw syscall: push rcx, r11, rax (Xen's iret_context) and trap. A
 * callback ends with its frame below these three. */
    .globl user_iret
user_iret:
    pushq %rcx
    pushq %r11
    pushq %rax
    movl $NR_IRET, %eax
    syscall
    ud2

/* void user_enter(uint64_t rip, uint64_t rsp): iret to user mode at rip on stack rsp, events
 * masked; returns when a callback jumps to user_return. */
    .globl user_enter
user_enter:
    pushq %rbx
    pushq %rbp
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, user_saved_rsp(%rip)
    pushq $FLAT_USER_SS                 /* ss */
    pushq %rsi                          /* rsp */
    pushq $0x2                          /* rflags: events stay masked */
    pushq $FLAT_USER_CS                 /* cs, RPL 3 */
    pushq %rdi                          /* rip */
    pushq $0                            /* flags */
    jmp user_iret
    .globl user_return
user_return:
    movq user_saved_rsp(%rip), %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbp
    popq %rbx
    ret

/* user_run's code in user mode: run the function, then leave. user_exit is also where a user
 * fault resumes (user.c). */
    .globl user_trampoline
user_trampoline:
    call *user_fn(%rip)
    .globl user_exit
user_exit:
    movl $USER_EXIT, %eax
    syscall
    ud2

/* user_run's syscall callback, on the kernel stack: only USER_EXIT is expected. */
    .globl user_syscall_entry
user_syscall_entry:
    cmpq $USER_EXIT, %rax
    je user_return
    ud2                                 /* any other call: a bug in the test */

    .section .note.GNU-stack, "", @progbits
