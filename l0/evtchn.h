/* evtchn.h: the event dispatcher: which handler runs when an L0 event channel port fires. */
#ifndef L0_EVTCHN_H
#define L0_EVTCHN_H

#include "l0/l0.h"
#include "shim/lib.h"

#define EVTCHN_PORTS 4096               /* the 2-level ABI on 64-bit: 64 x 64 */

int evtchn_register(uint32_t port, l0_port_handler_t h, void *arg);
void evtchn_unregister(uint32_t port);
void evtchn_unregister_all(void);       /* a new domain after a restore: no port is ours now */
void evtchn_dispatch(uint32_t port);
extern uint64_t evtchn_unhandled;

#endif
