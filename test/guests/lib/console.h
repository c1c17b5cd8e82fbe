/*
 * console.h: the guest's two ways out.
 *  - the console ring (start_info console.domU.mfn/evtchn): what xenconsoled logs on the host.
 *    On a release-build Xen a domU's console_io is dropped, so verdicts always go here.
 *  - CONSOLEIO_write: Xen's own console (the L0's serial, or the shim's log, if allowed at all).
 * console_write() uses the ring once it is up (and console_io before that, or if there is none).
 */
#ifndef GUEST_CONSOLE_H
#define GUEST_CONSOLE_H

#include <stddef.h>
#include <stdbool.h>

/* Map the ring page and use it from now on; 0 or a negative errno from the mapping. */
long console_ring_init(void);
bool console_ring_ready(void);

void console_write(const char *s, size_t n);
/* Before the guest goes: wait for the backend to take all it was given, then linger so that
 * xenconsoled reads the last lines (see console.c). */
void console_linger(void);
/* One CONSOLEIO_write of exactly these bytes; returns Xen's result. */
long console_io_write(const char *s, size_t n);

#endif
