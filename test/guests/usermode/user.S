/* user.S: the user-mode side of the usermode test and the kernel's entry points for it. */
#include "xen-abi.h"

#define SET_IOPL 6                  /* PHYSDEVOP_set_iopl (xen/physdev.h is C only; main.c checks) */

    .data
    .globl sc_count, sc_last_rax, sc_last_rdi, sc_frame_cs, sc_frame_rip, sc_frame_rsp, sc_kernel_rsp
    .globl ud_count, ud_frame_cs, ud_frame_rip, user_gs_seen, user_done
    .globl int80_count, int80_frame_cs, int80_frame_rip, gp_count, gp_frame_err, gp_frame_rip
sc_count: .quad 0
sc_last_rax: .quad 0
sc_last_rdi: .quad 0
sc_frame_cs: .quad 0
sc_frame_rip: .quad 0
sc_frame_rsp: .quad 0
sc_kernel_rsp: .quad 0
ud_count: .quad 0
ud_frame_cs: .quad 0
ud_frame_rip: .quad 0
int80_count: .quad 0
int80_frame_cs: .quad 0
int80_frame_rip: .quad 0
gp_count: .quad 0
gp_frame_err: .quad 0
gp_frame_rip: .quad 0
user_gs_seen: .quad 0
    .globl user_inb
user_inb: .quad 0
iopl3: .long 3                      /* struct physdev_set_iopl */
user_done: .quad 0
    .globl gs_magic
gs_magic: .quad 0x5a5a5a5a

    .text
/* The syscall callback: [rcx, r11, rip, cs, rflags, rsp, ss] on the kernel stack. */
    .globl syscall_callback
syscall_callback:
    movq %rsp, sc_kernel_rsp(%rip)
    incq sc_count(%rip)
    movq %rax, sc_last_rax(%rip)
    movq %rdi, sc_last_rdi(%rip)
    cmpq $2, %rax                   /* the frame of the second call is the one checked */
    jne 1f
    movq 16(%rsp), %r8
    movq %r8, sc_frame_rip(%rip)
    movq 24(%rsp), %r8
    movq %r8, sc_frame_cs(%rip)
    movq 40(%rsp), %r8
    movq %r8, sc_frame_rsp(%rip)
1:  cmpq $7, %rax                   /* "give me IOPL 3": physdev_op(set_iopl), a hypercall */
    jne 3f
    pushq %rdi
    pushq %rsi
    movl $SET_IOPL, %edi
    leaq iopl3(%rip), %rsi
    movl $__HYPERVISOR_physdev_op, %eax
    syscall
    popq %rsi
    popq %rdi
3:  cmpq $60, %rax
    je user_return                 /* exit: leave user mode for good (lib/user.S) */
    addq $1000, %rax                /* the "result" */
    popq %rcx
    popq %r11
    pushq $VGCF_in_syscall
    jmp user_iret

/*
 * A kernel handler for a trap from user mode, on [rcx, r11, (error code), rip, cs, ...]: counts
 * itself in <name>_count, keeps the frame's rip in <name>_frame_rip and its cs (what=cs) or its
 * error code (err=1, what=err) in <name>_frame_<what>, moves rip on by skip and returns by iret.
 */
.macro USER_TRAP name:req, what:req, err:req, skip:req
    .globl \name\()_handler
\name\()_handler:
    incq \name\()_count(%rip)
    movq (16 + 8 * \err)(%rsp), %r8
    movq %r8, \name\()_frame_rip(%rip)
    movq (24 - 8 * \err)(%rsp), %r8      /* cs, or (err) the error code below rip */
    movq %r8, \name\()_frame_\what(%rip)
    addq $\skip, (16 + 8 * \err)(%rsp)
    popq %rcx
    popq %r11
    .if \err
    addq $8, %rsp
    .endif
    pushq $0
    jmp user_iret
.endm

/* #UD: resume after the ud2. */
USER_TRAP ud, cs, 0, 2
/* int $0x80 (its trap is DPL 3): rip is already after the int. */
USER_TRAP int80, cs, 0, 0
/* #GP: int $0x90 (DPL 1, kernel only); resume after the two-byte int. */
USER_TRAP gp, err, 1, 2

/* User mode. */
    .globl user_entry, user_syscall_ret, user_ud_at, user_int80_ret, user_int90_at
user_entry:
    movq %gs:0, %rax                /* GS_USER's base points at gs_magic */
    movq %rax, user_gs_seen(%rip)
    movl $1, %eax
    movl $0x1111, %edi
    syscall
    movl $2, %eax
    movl $0x1234, %edi
    syscall
user_syscall_ret:
    cmpq $1002, %rax
    jne 2f
user_ud_at:
    ud2
    inb $0x80, %al                  /* IOPL 0: #GP, which gp_handler steps over */
    movl $7, %eax
    syscall                         /* the kernel sets IOPL 3 */
    xorl %eax, %eax
    inb $0x80, %al                  /* IOPL 3: user mode may do port I/O (nobody's port: 0xff) */
    movq %rax, user_inb(%rip)
    int $0x80
user_int80_ret:
user_int90_at:
    int $0x90
    movq $1, user_done(%rip)
2:  movl $60, %eax
    syscall
    ud2
