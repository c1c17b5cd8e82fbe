/*
 * user.h: run a function in the guest's user mode, as XTF's exec_user. A 64-bit PV kernel gets
 * user mode from the hypervisor: HYPERVISOR_iret to a frame with RPL 3 switches to the user L4
 * (MMUEXT_NEW_USER_BASEPTR, here a copy of the kernel's guest mappings), and a SYSCALL or an
 * exception in user mode comes back to the kernel on the stack_switch stack. user_run(fn) enters
 * fn in user mode with events masked; fn returning, or any exception it takes, ends the run.
 */
#ifndef GUEST_USER_H
#define GUEST_USER_H

#include <stdint.h>

/* What ended a run that faulted: vector and error code (0 when fn returned). */
#define USER_FAULT(vector, error) (1ul << 63 | (unsigned long)(vector) << 32 | (uint32_t)(error))

/* Once: the user L4, the kernel stack for user mode's traps, the syscall callback. */
void user_init(void);
unsigned long user_run(void (*fn)(void));

#endif
