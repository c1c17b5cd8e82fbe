/* probe.c: turn a fault inside a probe (probe.S) into a recorded result (see probe.h). */
#include "guest.h"
#include "probe.h"
#include "traps.h"

/* Where the probe running now recovers (probe.S sets and clears it); 0 outside probes. */
unsigned long probe_fixup;
volatile struct probe_fault probe_fault;

/* Called by trap_entry() for every trap (traps.c): true if a probe expected it. */
bool probe_recover(struct trap_frame *f);

bool probe_recover(struct trap_frame *f)
{
	if (!probe_fixup)
		return false;
	probe_fault.vector = f->vector;
	probe_fault.error = f->error_code;
	probe_fault.rip = f->rip;
	/* A PV guest reads the fault address from vcpu_info, not CR2. */
	probe_fault.cr2 = f->vector == 14 && shared_info ? shared_info->vcpu_info[0].arch.cr2 : 0;
	probe_fault.count++;
	f->rip = probe_fixup;
	probe_fixup = 0;	/* one fault per probe: a second one (the way back failed) is fatal */
	return true;
}
