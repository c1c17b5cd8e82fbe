/* rtc.h: the CMOS real-time clock (standalone). */
#ifndef L0_RTC_H
#define L0_RTC_H

#include "shim/lib.h"

/* UTC in ns since the epoch at clock time 0 (now_ns() == 0); 0 if there is no usable RTC. */
uint64_t rtc_wallclock_base(void);

#endif
