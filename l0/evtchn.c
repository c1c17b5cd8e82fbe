/* evtchn.c: per-port handler table for events the L0 delivers; unknown ports are counted. */
#include "l0/evtchn.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

static struct {
    l0_port_handler_t fn;
    void *arg;
} table[EVTCHN_PORTS];
uint64_t evtchn_unhandled;

int evtchn_register(uint32_t port, l0_port_handler_t h, void *arg)
{
    if (port >= EVTCHN_PORTS || !h)
        return ERR(-XEN_EINVAL);
    if (table[port].fn)
        return ERR(-XEN_EBUSY);
    table[port].arg = arg;
    __atomic_store_n(&table[port].fn, h, __ATOMIC_RELEASE);
    return 0;
}

void evtchn_unregister(uint32_t port)
{
    if (port < EVTCHN_PORTS)
        __atomic_store_n(&table[port].fn, NULL, __ATOMIC_RELEASE);
}

void evtchn_unregister_all(void)
{
    for (uint32_t p = 0; p < EVTCHN_PORTS; p++)
        evtchn_unregister(p);
}

void evtchn_dispatch(uint32_t port)
{
    l0_port_handler_t h = port < EVTCHN_PORTS ? __atomic_load_n(&table[port].fn, __ATOMIC_ACQUIRE) : NULL;

    if (h)
        h(port, table[port].arg);
    else
        evtchn_unhandled++;
}
