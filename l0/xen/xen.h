/* xen.h: what the parts of the Xen L0 (xen.c, events.c, time.c, memory.c, console.c) share. Only
 * xen.c's operations table (l0_xen) is seen outside l0/xen/. */
#ifndef L0_XEN_XEN_H
#define L0_XEN_XEN_H

#include "l0/xen/hcall.h"

struct clock_line;
struct cpu;
struct cpu_regs;

/* xen.c */
extern struct shared_info *xen_shared;
extern uint64_t xen_shared_gpfn;        /* where shared_info sits in our physical map */
extern uint32_t xen_domid_self;         /* our domain id (CPUID leaf 4), DOMID_SELF if not told */

/* console.c */
void xen_console_early(void);           /* console_io sink, and the ring through the identity map */
void xen_console_init(void);            /* the ring through ioremap */
void xen_console_resume(void);          /* a new domain: the ring (cleared by the restore), a new port */
void xen_console_report(void);

/* events.c */
void xen_upcall(struct cpu_regs *r);    /* the upcall vector: dispatch every pending, unmasked port */
int xen_evtchn_bind_ipi(uint32_t vcpu, uint32_t *port);
int xen_evtchn_send(uint32_t port);
int xen_evtchn_unmask(uint32_t port);
int xen_evtchn_close(uint32_t port);
int xen_evtchn_alloc_unbound(uint16_t remote_dom, uint32_t *port);
int xen_evtchn_bind_interdomain(uint16_t remote_dom, uint32_t remote_port, uint32_t *port);
int xen_evtchn_status(uint32_t port, uint32_t *status, uint16_t *rdom, uint32_t *rport);

/* time.c */
void xen_clock_line(struct clock_line *l);
uint64_t xen_now_ns(void);
uint32_t xen_clock_gen(void);
uint64_t xen_tsc_hz(void);
uint64_t xen_wallclock_base(void);
uint64_t xen_stolen_ns(unsigned cpu);
void xen_runstate_register(struct cpu *c);  /* L0 keeps c's runstate in our memory (steal time) */
bool xen_runstate_on(const struct cpu *c);
void xen_runstate_forget(struct cpu *c);

/* memory.c */
int xen_store_ring(uint64_t move_to, uint64_t *pfn, uint32_t *port);
int xen_store_ring_home(uint64_t from);
int xen_grant_query_size(uint16_t dom, uint32_t *nr_frames, uint32_t *max_frames, int16_t *status);
int xen_grant_frame(unsigned idx, uint64_t gfn, bool status);
int xen_grant_set_version(uint32_t *version);
unsigned xen_release_frames(const uint64_t *gfns, unsigned n);
unsigned xen_populate_frames(const uint64_t *gfns, unsigned n);

#endif
