/* pit.h: the 8254 PIT, used standalone to measure the TSC frequency. */
#ifndef L0_PIT_H
#define L0_PIT_H

#include "shim/lib.h"

#define PIT_HZ 1193182

/* TSC ticks per second, measured against PIT channel 2 (0 if the PIT does not count). */
uint64_t pit_calibrate_tsc(void);

#endif
