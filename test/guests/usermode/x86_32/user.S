/*
 * x86_32/user.S: the ring-3 side of the usermode test and the kernel's entry points for it, in
 * the 32-bit PAE build (see ../user.S, the 64-bit ones). System calls are int $0x80 through a
 * DPL-3 trap gate (no CALLBACKTYPE_syscall for 32-bit guests), eax = number, edi = argument;
 * SYSCALL itself is checked apart, through the syscall32 callback (sc32_callback); Xen
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
    .globl sc32_count, sc32_eax, sc32_ecx, sc32_frame_eip, sc32_frame_cs, sc32_frame_eflags
    .globl sc32_frame_esp, sc32_frame_ss, sc32_kernel_esp, sc32_user_eax, sc32_user_ecx, sc32_done
    .globl sc32gp_count, sc32gp_frame_err, sc32gp_frame_rip, sc32gp_frame_cs
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
/* SYSCALL from ring 3 (user_sc32_entry): the callback's registers and frame, what ring 3 saw after
 * the return, and the #GP taken while no syscall32 callback is registered */
sc32_count: .long 0
sc32_eax: .long 0
sc32_ecx: .long 0
sc32_frame_eip: .long 0
sc32_frame_cs: .long 0
sc32_frame_eflags: .long 0
sc32_frame_esp: .long 0
sc32_frame_ss: .long 0
sc32_kernel_esp: .long 0
sc32_user_eax: .long 0
sc32_user_ecx: .long 0
sc32_done: .long 0
sc32gp_count: .long 0
sc32gp_frame_err: .long 0
sc32gp_frame_rip: .long 0
sc32gp_frame_cs: .long 0

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

/*
 * The syscall32 callback (compat_syscall): entered in ring 1 on the stack_switch stack with
 * [eip, cs, eflags, esp, ss], ecx the return eip (SYSCALL's), the other registers the user's.
 * Keeps the frame of the first call and returns its "result" by iret to the same frame.
 */
    .globl sc32_callback
sc32_callback:
    cmpl $0, sc32_count
    jne 1f
    movl %esp, sc32_kernel_esp
    movl %eax, sc32_eax
    movl %ecx, sc32_ecx
    pushl %ecx
    movl 4(%esp), %ecx
    movl %ecx, sc32_frame_eip
    movl 8(%esp), %ecx
    movl %ecx, sc32_frame_cs
    movl 12(%esp), %ecx
    movl %ecx, sc32_frame_eflags
    movl 16(%esp), %ecx
    movl %ecx, sc32_frame_esp
    movl 20(%esp), %ecx
    movl %ecx, sc32_frame_ss
    popl %ecx
1:  incl sc32_count
    addl $1000, %eax                /* the "result" */
    jmp user_iret

/* #GP of the SYSCALL made with no syscall32 callback: eip at the instruction; step over it. */
    .globl sc32gp_handler
sc32gp_handler:
    incl sc32gp_count
    pushl %ecx
    movl 4(%esp), %ecx
    movl %ecx, sc32gp_frame_err
    movl 8(%esp), %ecx
    movl %ecx, sc32gp_frame_rip
    movl 12(%esp), %ecx
    movl %ecx, sc32gp_frame_cs
    addl $2, 8(%esp)
    popl %ecx
    addl $4, %esp
    jmp user_iret

/*
 * Ring 3, the second and third runs: SYSCALL (2 bytes). In the second no callback is registered:
 * #GP at user_sc32_gp_at, which sc32gp_handler steps over (eax stays 5). In the third it reaches
 * sc32_callback, which adds 1000; ring 3 keeps eax and ecx as it got them back, makes a second
 * call to check that the first one left a usable state, and leaves by int $0x80 (exit).
 */
    .globl user_sc32_entry, user_sc32_gp_at, user_sc32_ret
user_sc32_entry:
    movl $5, %eax
    movl $0x5c5c, %ecx
user_sc32_gp_at:
    syscall
user_sc32_ret:
    movl %eax, sc32_user_eax
    movl %ecx, sc32_user_ecx
    cmpl $5, %eax                   /* the #GP run: nothing more */
    je 2f
    movl $6, %eax
    syscall
    cmpl $1006, %eax
    jne 2f
    movl $1, sc32_done
2:  movl $60, %eax
    int $0x80
    ud2

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
