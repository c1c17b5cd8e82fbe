/*
 * xs.h: a test guest's client of the xenstore ring (public/io/xs_wire.h). xs_init() maps the ring
 * named by start_info (store_mfn, store_evtchn) and masks its port: every wait is a SCHEDOP_poll
 * on it with a deadline, so a lost answer ends in a timeout, not a hang. The xenstore test checks
 * the ring's protocol with these; others (suspend) use it to talk to the toolstack. After a
 * resume that moved the ring (a restored domain), xs_init() again maps it where start_info says.
 */
#ifndef GUEST_XS_H
#define GUEST_XS_H
#include <stdbool.h>
#include <stdint.h>
#include "xen-abi.h"

#define XS_WAIT_NS 5000000000ul		/* how long a request waits for its answer */

struct xs_msg {
	struct xsd_sockmsg h;
	char body[XENSTORE_PAYLOAD_MAX + 1];	/* NUL-terminated after the payload */
};

extern volatile struct xenstore_domain_interface *xs_ring;
extern evtchn_port_t xs_port;
extern uint32_t xs_next_req;
/* Watch events that came while a request waited for its answer. */
extern struct xs_msg xs_events[4];
extern unsigned xs_nr_events;

/* Map the ring start_info names and take its port (masked; events_init() must have run). 0 or the
 * error of the mapping (-ENOENT: start_info names no ring). */
long xs_init(void);
/* Sleep until the port fires or the deadline (pvclock ns) passes; false when past it. */
bool xs_wait_port(uint64_t end);
/* Raw ring traffic: n bytes in pieces (kicking after each), a whole message, a request header
 * and body. False on a timeout. */
bool xs_send_bytes(const void *p, uint32_t n);
bool xs_recv_msg(struct xs_msg *m, uint64_t end);
bool xs_send_req(uint32_t type, uint32_t req_id, uint32_t tx, const void *body, uint32_t len);
/* The answer to req_id (watch events on the way go to xs_events); false on a timeout. */
bool xs_answer_to(uint32_t req_id, struct xs_msg *m);
/* One request, its answer in *m: the answer's type (XS_ERROR for an error), or -1 on a timeout. */
long xs_req(uint32_t type, uint32_t tx, const void *body, uint32_t len, struct xs_msg *m);
/* A request with one string argument (its NUL sent too). */
long xs_one(uint32_t type, const char *arg, struct xs_msg *m);
/* The answer is that error ("ENOENT"), or that type with exactly the string s. */
bool xs_is_error(long t, const struct xs_msg *m, const char *ename);
bool xs_is_reply(long t, uint32_t type, const struct xs_msg *m, const char *s);
/* An answer for a message: its type, body and length. */
const char *xs_show(long t, const struct xs_msg *m);
#endif
