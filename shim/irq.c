/* irq.c: external interrupt dispatch by vector, EOI, spurious and unexpected vector accounting. */
#include "shim/apic.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/irq.h"

static irq_handler_t handlers[256];

void irq_register(unsigned vector, irq_handler_t h)
{
    ASSERT(vector >= 32 && vector < 256 && !handlers[vector]);
    handlers[vector] = h;
}

void irq_dispatch(struct cpu_regs *r)
{
    unsigned v = (unsigned)r->vector;
    struct cpu *c = this_cpu();

    if (v == VEC_SPURIOUS) {
        c->nr_spurious++;               /* no EOI for the LAPIC's spurious vector */
        return;
    }
    if (v >= VEC_PIC_BASE && v < VEC_PIC_BASE + 16 && !handlers[v]) {
        c->nr_spurious++;               /* the 8259s are masked: only their spurious IRQ7/15 */
        return;
    }
    if (handlers[v])
        handlers[v](r);
    else if (c->nr_spurious++ < 4)
        printk(LOG_WARN, "CPU%u: unexpected interrupt vector %#x\n", c->id, v);
    apic_eoi();
}
