/* copy.S: the one copy loop that may touch guest memory; a fault in it returns instead of panicking. */

/* size_t guest_copy_raw(void *dst, const void *src, size_t n): the bytes NOT copied (0 = all done). */
    .text
    .globl guest_copy_raw
guest_copy_raw:
    movq %rdx, %rcx
1:  rep movsb
    xorl %eax, %eax
    ret
2:  movq %rcx, %rax                     /* faulted: rcx counts what is left */
    ret

    .section .fixup_table, "a", @progbits
    .balign 8
    .quad 1b, 2b

    .section .note.GNU-stack, "", @progbits
