/* panic.h: fatal errors end in a one-screen diagnostic and SHUTDOWN_crash, never in a hang. */
#ifndef SHIM_PANIC_H
#define SHIM_PANIC_H

#include "shim/lib.h"

void panic(const char *fmt, ...) __printf(1, 2) __noreturn;
/* For fatal exceptions: returns false if another CPU is already panicking (then we stop). */
bool panic_begin(void);
void panic_end(void) __noreturn;
bool panic_in_progress(void);
/* Orderly end: flush the console, then tell the L0 (SHUTDOWN_poweroff, _crash, ...). */
void shim_shutdown(unsigned reason) __noreturn;
void cpu_stop_here(void) __noreturn;

#endif
