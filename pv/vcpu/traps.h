/* traps.h: the guest's CPU: exceptions, SYSCALL, iret, its kernel/user modes, virtual NMIs. */
#ifndef PV_VCPU_TRAPS_H
#define PV_VCPU_TRAPS_H

#include "shim/lib.h"

struct cpu_regs;
struct pv_vcpu;

/* entry.S: SYSCALL's entry points from the guest (64-bit and compat), and the way back: load
 * the guest's state from r and return to it */
extern char pv_syscall_entry[], pv_syscall_entry_compat[];
void pv_resume(struct cpu_regs *r) __noreturn;

/* traps.c, emulate.c, run.c, iret.c */
bool pv_trap(struct cpu_regs *r, uint64_t cr2);     /* an exception from the guest */
void pv_iret_fault(struct cpu_regs *r, uint64_t cr2) __noreturn;  /* one at our iretq to it */
bool pv_emulate(struct cpu_regs *r);                /* emulate.c: #GP/#UD it could answer */
void pv_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d);
/* pv_cpuid with the guest kernel's view of OSXSAVE (cpuid.c): what the forced-emulation prefix
 * gives the kernel (user: the caller is in user mode, which sees the architectural bit) */
void pv_cpuid_kernel(bool user, uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d);
void pv_syscall(struct cpu_regs *r);                /* run.c: SYSCALL from the guest */
void pv_iret(struct cpu_regs *r);                   /* iret.c: __HYPERVISOR_iret */
void pv_syscall_from_user(struct cpu_regs *r);      /* traps.c */
/* Build an exception/event frame on the guest kernel stack and enter addr (error_code < 0: none). */
void pv_bounce(struct cpu_regs *r, uint64_t addr, bool mask_events, int64_t error_code);
void pv_set_cr2(uint64_t cr2);                      /* the guest's vcpu_info arch.cr2, in its layout */
uint64_t pv_get_cr2(void);

/* mode.c */
void pv_to_kernel_mode(void);
bool pv_to_user_mode(void);                         /* false: no user page tables */

/* hypercall/cpu.c, hypercall/debugreg.c */
void pv_set_fpu_ts(bool ts);                        /* the virtual CR0.TS, on this CPU */
void pv_debugreg_load(const uint64_t dr[8]);        /* a starting vCPU's DR0-3, 6, 7 */
bool pv_debug_in_shim(void);                        /* a #DB in the shim was the guest's watchpoint */
void pv_debug_note_step(void);                      /* DR6.BS for a single step we raise */
void pv_sysret_step(struct cpu_regs *r);            /* traps.c: the #DB a SYSRET with TF raises */
/* debug register reg by Xen's rules (hypercall/debugreg.c): 0, or -ENODEV (no such register:
 * #UD for an instruction), -EPERM or -EINVAL (a value refused: #GP) */
long pv_set_debugreg(unsigned reg, uint64_t value);
long pv_get_debugreg(unsigned reg, uint64_t *val);
/* specmsr.c: the speculation-control MSRs, as the CPUID policy offers them (false: #GP) */
bool pv_spec_msr_read(uint32_t msr, uint64_t *v);
bool pv_spec_msr_write(uint32_t msr, uint64_t v);
uint64_t pv_guest_cr4(void);                        /* cpuid.c: CR4 as the guest sees it */

/* nmi.c: virtual NMIs */
long pv_nmi_send(struct pv_vcpu *v, uint64_t arg);     /* VCPUOP_send_nmi */
long pv_nmi_register(uint64_t address);               /* CALLBACKOP and nmi_op: trap vector 2 */
long pv_nmi_unregister(void);
void pv_nmi_deliver(struct cpu_regs *r);               /* on the way back to the guest */

#endif
