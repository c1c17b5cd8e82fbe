/* traps.h: the exception frame our entry stubs build, and trap setup. */
#ifndef GUEST_TRAPS_H
#define GUEST_TRAPS_H

#include <stdint.h>
#include "xen-abi.h"

#ifdef __i386__
/* The 32-bit build (x86_32/entry.S): pusha's registers, under the 64-bit names so that a test's
 * source builds both ways (rax is eax, rip is eip). rsp and ss are there only for a trap from
 * ring 3; from the ring-1 kernel the stack went on where the frame ends (trap_sp). */
struct trap_frame {
	unsigned long rdi, rsi, rbp, pusha_sp, rbx, rdx, rcx, rax;
	unsigned long vector, error_code;
	unsigned long rip, cs, rflags, rsp, ss;
};
static inline unsigned long trap_sp(const struct trap_frame *f)
{
	return (f->cs & 3) == 3 ? f->rsp : (unsigned long)&f->rsp;
}
#else
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};
static inline unsigned long trap_sp(const struct trap_frame *f)
{
	return f->rsp;
}
#endif

/* Register the trap table with Xen; returns the hypercall's result. */
long traps_init(void);

/* The same table as a vcpu_guest_context wants it for another vCPU: indexed by vector. */
void traps_copy(struct trap_info ctxt[256]);

/*
 * Called by every entry stub: returns if a probe expected the fault (probe.c, linked only by tests
 * that use probes), after which the stub resumes at the frame's rip; else trap_fatal().
 */
void trap_entry(struct trap_frame *f);

/*
 * A test that provokes traps itself (test/guests/traps) defines trap_hook: it sees every trap
 * first and returns true to resume at f->rip (which it may move, as it may change f->rflags);
 * false hands the trap on (a probe's, else fatal). Weak: NULL in the tests that have none.
 */
bool trap_hook(struct trap_frame *f) __attribute__((weak));

/* HYPERVISOR_iret returned (rc) instead of resuming a probe: end the test as a crash. */
_Noreturn void trap_iret_failed(long rc);

/* nmientry.S: an NMI handler entry that runs the test's nmi_handler(frame), frame pointing at
 * [rip, cs, rflags, rsp, ss] of Xen's NMI frame; a test that uses nmi_entry defines it. */
extern char nmi_entry[];
void nmi_handler(const uint64_t *frame);

/* Print the frame and end the test as a crash. */
_Noreturn void trap_fatal(const struct trap_frame *f);

#endif
