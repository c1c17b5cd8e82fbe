/* apic.h: the local APIC (x2APIC, or xAPIC through MMIO): EOI, IPIs, INIT/SIPI, timer hardware. */
#ifndef SHIM_APIC_H
#define SHIM_APIC_H

#include "shim/lib.h"

extern bool apic_x2;                    /* x2APIC mode in use */
extern bool apic_tsc_deadline;          /* timer in TSC-deadline mode */
extern uint64_t apic_timer_khz;         /* one-shot mode: counts per ms at divide-by-1 */

int apic_bsp_init(void);                /* choose mode, map registers, enable on the BSP */
void apic_cpu_init(void);               /* enable and program the LVTs on this CPU */
uint32_t apic_id(void);
void apic_eoi(void);
void apic_send_ipi(uint32_t apic_id, unsigned vector);
void apic_send_init(uint32_t apic_id);
void apic_send_sipi(uint32_t apic_id, uint64_t page_pa);
void apic_stop_others(void);            /* NMI to every other CPU (panic) */
int apic_timer_calibrate(void);         /* one-shot mode only: counts per ns against now_ns() */
void apic_timer_program(uint64_t deadline_ns, uint64_t now);   /* deadline 0: stop; now 0: read it */
void apic_report(void);                 /* printk this CPU's timer, ISR and IRR */
const char *apic_mode_name(void);
const char *apic_timer_name(void);

#endif
