/* smp.h: bringing up the other CPUs, and running work on a given CPU. */
#ifndef SHIM_SMP_H
#define SHIM_SMP_H

#include "shim/cpu.h"

extern unsigned nr_cpus_present;

void smp_init(void);                                /* vectors; on the BSP, before any AP */
void smp_boot_aps(const uint32_t *apic_ids, unsigned n);
int smp_call(struct cpu *c, void (*fn)(void *), void *arg);  /* queue; c runs it from its idle loop */
bool smp_call_wait(struct cpu *c, uint64_t timeout_ns);
void cpu_idle_loop(void) __noreturn;

#endif
