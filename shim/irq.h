/* irq.h: interrupt vectors to handlers; the dispatcher sends the LAPIC EOI. */
#ifndef SHIM_IRQ_H
#define SHIM_IRQ_H

#include "shim/cpu.h"

typedef void (*irq_handler_t)(struct cpu_regs *r);

void irq_register(unsigned vector, irq_handler_t h);
void irq_dispatch(struct cpu_regs *r);

#endif
