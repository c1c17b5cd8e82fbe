/*
 * x86_32/user.S: the ring-3 side of the usermode test and the kernel's entry points for it, in
 * the 32-bit PAE build (see ../user.S, the 64-bit ones). System calls are int $0x80 through a
 * DPL-3 trap gate (no SYSCALL callback for 32-bit guests), eax = number, edi = argument; Xen
 * bounces every trap from ring 3 onto the stack_switch stack as [(error code,) eip, cs, eflags,
 * esp, ss] (compat_create_bounce_frame), and each handler leaves through the compat iret
 * (lib/x86_32/user.S's user_iret).
 */
#include "xen-abi.h"

#define SET_IOPL 6                  /* PHYSDEVOP_set_iopl (xen/physdev.h is C only; main.c checks) */

    .data
    .globl sc_count, sc_last_rax, sc_last_rdi, sc_frame_cs, sc_frame_rip, sc_frame_rsp, sc_kernel_rsp
    .globl ud_count, ud_frame_cs, ud_frame_rip, user_done
    .globl int80_count, int80_frame_cs, int80_frame_rip, gp_count, gp_frame_err, gp_frame_rip
    .globl pf_count, pf_frame_err, pf_frame_rip
sc_count: .long 0
sc_last_rax: .long 0
sc_last_rdi: .long 0
sc_frame_cs: .long 0
sc_frame_rip: .long 0
sc_frame_rsp: .long 0
sc_kernel_rsp: .long 0
ud_count: .long 0
ud_frame_cs: .long 0
ud_frame_rip: .long 0
int80_count: .long 0
int80_frame_cs: .long 0
int80_frame_rip: .long 0
gp_count: .long 0
gp_frame_err: .long 0
gp_frame_rip: .long 0
pf_count: .long 0
pf_frame_err: .long 0
pf_frame_rip: .long 0
    .globl user_inb
user_inb: .long 0
iopl3: .long 3                      /* struct physdev_set_iopl */
user_done: .long 0

/* A page main.c leaves without _PAGE_USER: ring 3 may not read it. */
    .bss
    .balign 4096
    .globl kernel_only_page
kernel_only_page: .skip 4096

    .text
    .code32
/* The system call, int $0x80: [eip, cs, eflags, esp, ss] on the kernel stack. */
    .globl syscall_callback
syscall_callback:
    movl %esp, sc_kernel_rsp
    incl sc_count
    movl %eax, sc_last_rax
    movl %edi, sc_last_rdi
    pushl %ecx
    cmpl $2, %eax                   /* the frame of the second call is the one checked */
    jne 1f
    movl 4(%esp), %ecx
    movl %ecx, sc_frame_rip
    movl 8(%esp), %ecx
    movl %ecx, sc_frame_cs
    movl 16(%esp), %ecx
    movl %ecx, sc_frame_rsp
1:  cmpl $7, %eax                   /* "give me IOPL 3": physdev_op(set_iopl), a hypercall */
    jne 3f
    pushl %ebx
    movl $SET_IOPL, %ebx
    movl $iopl3, %ecx
    movl $__HYPERVISOR_physdev_op, %eax
    int $0x82
    popl %ebx
3:  popl %ecx
    cmpl $60, %eax
    je user_return                  /* exit: leave user mode for good (lib/x86_32/user.S) */
    addl $1000, %eax                /* the "result" */
    jmp user_iret

/*
 * A kernel handler for a trap from ring 3, on [(error code,) eip, cs, ...]: counts itself in
 * <name>_count, keeps the frame's eip in <name>_frame_rip and its cs (what=cs) or its error code
 * (err=1, what=err) in <name>_frame_<what>, moves eip on by skip and returns by iret.
 */
.macro USER_TRAP name:req, what:req, err:req, skip:req
    .globl \name\()_handler
\name\()_handler:
    incl \name\()_count
    pushl %ecx
    movl (4 + 4 * \err)(%esp), %ecx
    movl %ecx, \name\()_frame_rip
    movl (8 - 4 * \err)(%esp), %ecx      /* cs, or (err) the error code below eip */
    movl %ecx, \name\()_frame_\what
    addl $\skip, (4 + 4 * \err)(%esp)
    popl %ecx
    .if \err
    addl $4, %esp
    .endif
    jmp user_iret
.endm

/* #UD: resume after the ud2. */
USER_TRAP ud, cs, 0, 2
/* 0x90's handler, which ring 3 must not reach (DPL 1): rip is already after the int. */
USER_TRAP int80, cs, 0, 0
/* #GP: an inb without I/O privilege or int $0x90; resume after the two-byte instruction. */
USER_TRAP gp, err, 1, 2
/* #PF: the read of kernel_only_page, two bytes. */
USER_TRAP pf, err, 1, 2

/* Ring 3. */
    .globl user_entry, user_syscall_ret, user_ud_at, user_pf_at, user_int90_at
user_entry:
    movl $1, %eax
    movl $0x1111, %edi
    int $0x80
    movl $2, %eax
    movl $0x1234, %edi
    int $0x80
user_syscall_ret:
    cmpl $1002, %eax
    jne 2f
user_ud_at:
    ud2
    inb $0x80, %al                  /* IOPL 0: #GP, which gp_handler steps over */
    movl $7, %eax
    int $0x80                       /* the kernel sets IOPL 3 */
    xorl %eax, %eax
    inb $0x80, %al                  /* IOPL 3: user mode may do port I/O (nobody's port: 0xff) */
    movl %eax, user_inb
    movl $kernel_only_page, %ecx
user_pf_at:
    movl (%ecx), %eax               /* no _PAGE_USER: #PF, which pf_handler steps over */
user_int90_at:
    int $0x90
    movl $1, user_done
2:  movl $60, %eax
    int $0x80
    ud2

    .section .note.GNU-stack, "", @progbits
