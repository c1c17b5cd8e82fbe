/* console.h: the guest's console ring, answered by the shim (drained to its log, fed typed input). */
#ifndef PV_DEVICES_CONSOLE_H
#define PV_DEVICES_CONSOLE_H
#include "shim/lib.h"

void pv_console_kick(void);             /* the guest sent on its console port: drain its ring */
void pv_console_init(void);             /* typed input (the L0 console's) goes to the guest's ring */
void pv_console_flush(void);
void pv_console_output(const char *s, size_t n);     /* a line of the guest's, to the shim's log */            /* what the guest wrote, out to the shim's log */

#endif
