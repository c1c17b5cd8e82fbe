/*
 * evtchn_port.h: the guest's event channels, 2-level ABI: the port table (what each port is bound to)
 * and the pending/mask/selector logic on shared_info and vcpu_info. Hardware-free: compiled into
 * the shim and into the host unit tests. Callers serialise changes to one table; the bitmap
 * operations are atomic, since the guest changes the same words at any time.
 */
#ifndef PV_EVTCHN_PORT_H
#define PV_EVTCHN_PORT_H

#include "shim/lib.h"
#include "xen-abi.h"

/* The 2-level ABI's limit for a 64-bit guest, and L0's for the shim domain, whose own events are
 * 2-level: under Xen every guest port number is one of ours at L0, so a lower max_event_channels
 * in the xl config is L0's to enforce, as for the stock shim. Standalone, all of them. */
#define EV_NR_PORTS   4096
#define EV_MAX_VCPUS  32                /* XEN_LEGACY_MAX_VCPUS: vcpu_info slots in shared_info */

enum ev_state { EV_FREE, EV_UNBOUND, EV_INTERDOMAIN, EV_VIRQ, EV_IPI };

/* The shim's own end of an interdomain port (the guest sees an ordinary interdomain port). */
enum ev_special { EV_NONE, EV_CONSOLE, EV_STORE };

struct ev_port {
    uint8_t state;                      /* enum ev_state */
    uint8_t special;                    /* enum ev_special */
    uint16_t vcpu;                      /* the vCPU it notifies */
    uint16_t virq;                      /* EV_VIRQ */
    uint16_t remote_dom;                /* EV_UNBOUND, EV_INTERDOMAIN */
    uint32_t remote_port;               /* EV_INTERDOMAIN */
    uint32_t l0_port;                   /* forwarded to this L0 port (0: a local port) */
    uint8_t held;                       /* a local port whose number we hold at L0 (hypercall/evtchn.c) */
    uint8_t priority;                   /* FIFO queue (evtchn_fifo.c): the default at each bind */
};

struct ev_table {
    struct ev_port port[EV_NR_PORTS];   /* port 0 is never used */
    uint16_t virq_port[EV_MAX_VCPUS][NR_VIRQS];
    unsigned nr_vcpus;
};

void ev_init(struct ev_table *t, unsigned nr_vcpus);
unsigned ev_nr_ports(void);             /* EV_NR_PORTS, or a 32-bit guest's 1024 */
/* A port now in `state` and notifying vCPU 0: port `at`, or the lowest free one when at is 0 (on
 * Xen the numbers are L0's: hypercall/evtchn.c). > 0, or -XEN_ENOSPC, or -XEN_EBUSY (`at` is taken). */
int ev_alloc(struct ev_table *t, enum ev_state state, unsigned at);
/* Binds (at: as for ev_alloc); a port number or Xen's errno (-EINVAL, -ENOENT, -EEXIST, -ENOSPC,
 * -EBUSY). */
int ev_bind_virq(struct ev_table *t, unsigned virq, unsigned vcpu, unsigned at);
int ev_bind_ipi(struct ev_table *t, unsigned vcpu, unsigned at);
/* Free the port; *was gets what it was (for undoing the L0 side). 0 or -XEN_EINVAL. */
int ev_close(struct ev_table *t, unsigned port, struct ev_port *was);
int ev_status(const struct ev_table *t, unsigned port, struct evtchn_status *st);
int ev_bind_vcpu(struct ev_table *t, unsigned port, unsigned vcpu);
/* The port a vCPU's VIRQ is bound to (0: none), and the guest port forwarded to an L0 port. */
unsigned ev_virq_port(const struct ev_table *t, unsigned vcpu, unsigned virq);
unsigned ev_port_of_l0(const struct ev_table *t, uint32_t l0_port);
static inline const struct ev_port *ev_get(const struct ev_table *t, unsigned port)
{
    return port && port < ev_nr_ports() && t->port[port].state != EV_FREE ? &t->port[port] : NULL;
}

/*
 * 2-level bitmaps. set_pending and unmask return true when the vCPU must be told (its
 * evtchn_upcall_pending went 0 -> 1): the caller then delivers the upcall.
 */
bool ev_2l_set_pending(struct shared_info *s, struct vcpu_info *vi, unsigned port);
bool ev_2l_unmask(struct shared_info *s, struct vcpu_info *vi, unsigned port);
void ev_2l_clear_pending(struct shared_info *s, unsigned port);
void ev_2l_mask(struct shared_info *s, unsigned port);
bool ev_2l_is_pending(const struct shared_info *s, unsigned port);
bool ev_2l_is_masked(const struct shared_info *s, unsigned port);
/* Everything pending in a vcpu_info that Xen marks on VCPUOP_register_vcpu_info. */
void ev_2l_mark_all(struct vcpu_info *vi);
void ev_2l_compat(bool on);
void ev_2l_reset(struct shared_info *s, unsigned nr_vcpus);    /* a restored domain's bitmaps */             /* a 32-bit guest's shared_info: 32-bit words, 1024 ports */

#endif
