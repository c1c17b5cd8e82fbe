/*
 * x86_32/user.S: the way in and out of ring 3 for the 32-bit build (see ../user.S and user.h):
 * the compat iret hypercall with a frame [eip, cs, eflags, esp, ss] for ring 3, and back by
 * int $0x80, the DPL-3 trap gate user_init registers (no SYSCALL callback for 32-bit guests).
 */
#include "xen-abi.h"

#define USER_EXIT 60                    /* the "system call" that ends a run */

    .data
user_saved_esp: .long 0
    .globl user_fn
user_fn: .long 0

    .text
    .code32
/* The hypervisor's iret (compat_iret): push eax on the frame [eip, cs, eflags(, esp, ss)] and
 * trap. A trap handler ends with its frame on top of the stack and the eax to return in eax. */
    .globl user_iret
user_iret:
    pushl %eax
    movl $__HYPERVISOR_iret, %eax
    int $0x82
    ud2

/*
 * void user_enter(unsigned long eip, unsigned long esp): iret to ring 3 at eip on stack esp,
 * events masked; returns when a handler jumps to user_return. The data segment registers get
 * FLAT_USER_DS first: the iret to ring 3 turns the kernel's DPL-1 ones null (and a null DS
 * faults in 32-bit code); ring 1 may use the DPL-3 ones too. user_return puts them back.
 */
    .globl user_enter
user_enter:
    pushl %ebx
    pushl %ebp
    pushl %esi
    pushl %edi
    pushl %ds
    pushl %es
    pushl %fs
    pushl %gs
    movl %esp, user_saved_esp
    movl 36(%esp), %eax                 /* eip: above the 8 saved and the return address */
    movl 40(%esp), %ecx                 /* esp */
    movl $FLAT_USER_DS, %edx
    movl %edx, %ds
    movl %edx, %es
    movl %edx, %fs
    movl %edx, %gs
    pushl $FLAT_USER_SS                 /* ss */
    pushl %ecx                          /* esp */
    pushl $0x2                          /* eflags: events stay masked */
    pushl $FLAT_USER_CS                 /* cs, RPL 3 */
    pushl %eax                          /* eip */
    xorl %eax, %eax
    jmp user_iret
    .globl user_return
user_return:
    movl user_saved_esp, %esp
    popl %gs
    popl %fs
    popl %es
    popl %ds
    popl %edi
    popl %esi
    popl %ebp
    popl %ebx
    ret

/* user_run's code in ring 3: run the function, then leave. user_exit is also where a user
 * fault resumes (user.c). */
    .globl user_trampoline
user_trampoline:
    call *user_fn
    .globl user_exit
user_exit:
    movl $USER_EXIT, %eax
    int $0x80
    ud2

/* user_run's int $0x80 gate, on the kernel stack: only USER_EXIT is expected. */
    .globl user_syscall_entry
user_syscall_entry:
    cmpl $USER_EXIT, %eax
    je user_return
    ud2                                 /* any other call: a bug in the test */

    .section .note.GNU-stack, "", @progbits
