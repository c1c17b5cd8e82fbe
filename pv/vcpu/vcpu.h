/* vcpu.h: the guest's vCPUs' life cycle on the shim's CPUs (vCPU n runs on CPU n). */
#ifndef PV_VCPU_VCPU_H
#define PV_VCPU_VCPU_H

#include "shim/lib.h"

struct cpu_regs;
struct pv_vcpu;

extern unsigned pv_test_drop_kicks;     /* vcpu.c: test-drop-kicks=N (fault injection), 0 = off */

/* run.c: entering the guest */
void pv_enter(void) __noreturn;         /* vCPU 0, once the domain is built */
void pv_vcpu_enter(struct pv_vcpu *v, struct cpu_regs *r) __noreturn;   /* on v's CPU */
struct cpu_regs *pv_entry_frame(void);  /* where a vCPU's first frame goes */
void pv_time_update(void);              /* this vCPU's pvclock from its CPU's clock line */

/* vcpu.c */
void pv_vcpu_init_smp(void);            /* vectors, on the BSP before the guest starts */
long pv_vcpu_initialise(struct pv_vcpu *v, uint64_t ctx_va);
long pv_vcpu_up(struct pv_vcpu *v);
long pv_vcpu_down(struct pv_vcpu *v);
bool pv_vcpu_is_up(const struct pv_vcpu *v);
void pv_vcpu_kick(struct pv_vcpu *v);   /* make v's CPU look at v (no-op for this CPU's own) */
void pv_vcpu_park(struct pv_vcpu *v);   /* on its way back to the guest: stay while it is down */

#endif
