/* xs.c: the xenstore ring's client (xs.h). */
#include "guest.h"
#include "events.h"
#include "xs.h"

static char ring_page[4096] __attribute__((aligned(4096)));
volatile struct xenstore_domain_interface *xs_ring;
evtchn_port_t xs_port;
uint32_t xs_next_req = 100;

#define RING XENSTORE_RING_SIZE

struct xs_msg xs_events[4];
unsigned xs_nr_events;

static void kick(void)
{
	evtchn_send(xs_port);
}

/* Sleep until the xs_port fires or the deadline passes; false when past it. */
bool xs_wait_port(uint64_t end)
{
	if (pvclock_ns() >= end)
		return false;
	if (!port_pending(xs_port)) {
		struct sched_poll sp = { .nr_ports = 1, .timeout = end };
		set_xen_guest_handle(sp.ports, &xs_port);
		hypercall_sched_op(SCHEDOP_poll, &sp);
	}
	__atomic_fetch_and(&shared_info->evtchn_pending[xs_port / (8 * sizeof(xen_ulong_t))],
			 ~(1ul << (xs_port % (8 * sizeof(xen_ulong_t)))), __ATOMIC_SEQ_CST);
	return true;
}

/* Put n bytes in the request ring, as much at a time as fits; kick after each piece. */
bool xs_send_bytes(const void *p, uint32_t n)
{
	uint64_t end = pvclock_ns() + XS_WAIT_NS;

	while (n) {
		uint32_t cons = __atomic_load_n(&xs_ring->req_cons, __ATOMIC_ACQUIRE), prod = xs_ring->req_prod;
		uint32_t k = RING - (prod - cons);
		if (!k) {
			kick();
			if (!xs_wait_port(end))
				return false;
			continue;
		}
		k = k < n ? k : n;
		for (uint32_t i = 0; i < k; i++)
			xs_ring->req[MASK_XENSTORE_IDX(prod + i)] = ((const char *)p)[i];
		__atomic_store_n(&xs_ring->req_prod, prod + k, __ATOMIC_RELEASE);
		kick();
		p = (const char *)p + k;
		n -= k;
	}
	return true;
}

static bool recv_bytes(void *p, uint32_t n, uint64_t end)
{
	while (n) {
		uint32_t prod = __atomic_load_n(&xs_ring->rsp_prod, __ATOMIC_ACQUIRE), cons = xs_ring->rsp_cons;
		uint32_t k = prod - cons;
		if (!k) {
			if (!xs_wait_port(end))
				return false;
			continue;
		}
		k = k < n ? k : n;
		for (uint32_t i = 0; i < k; i++)
			((char *)p)[i] = xs_ring->rsp[MASK_XENSTORE_IDX(cons + i)];
		__atomic_store_n(&xs_ring->rsp_cons, cons + k, __ATOMIC_RELEASE);
		kick();			/* room in the response ring */
		p = (char *)p + k;
		n -= k;
	}
	return true;
}

bool xs_recv_msg(struct xs_msg *m, uint64_t end)
{
	if (!recv_bytes(&m->h, sizeof(m->h), end))
		return false;
	if (m->h.len > XENSTORE_PAYLOAD_MAX)
		test_fail("an answer of %u bytes", m->h.len);
	if (!recv_bytes(m->body, m->h.len, end))
		return false;
	m->body[m->h.len] = '\0';
	return true;
}

bool xs_send_req(uint32_t type, uint32_t req_id, uint32_t tx, const void *body, uint32_t len)
{
	struct xsd_sockmsg h = { .type = type, .req_id = req_id, .tx_id = tx, .len = len };

	return xs_send_bytes(&h, sizeof(h)) && xs_send_bytes(body, len);
}

/* The answer to req_id (watch events on the way are kept); false on a timeout. */
bool xs_answer_to(uint32_t req_id, struct xs_msg *m)
{
	uint64_t end = pvclock_ns() + XS_WAIT_NS;

	for (;;) {
		if (!xs_recv_msg(m, end))
			return false;
		if (m->h.type != XS_WATCH_EVENT) {
			if (m->h.req_id != req_id)
				test_fail("answer for req_id %u while waiting for %u", m->h.req_id, req_id);
			return true;
		}
		if (xs_nr_events < ARRAY_SIZE(xs_events))
			xs_events[xs_nr_events++] = *m;
	}
}

/* One request, its answer in *m: the answer's type (XS_ERROR for an error), or -1 on a timeout. */
long xs_req(uint32_t type, uint32_t tx, const void *body, uint32_t len, struct xs_msg *m)
{
	uint32_t id = xs_next_req++;

	if (!xs_send_req(type, id, tx, body, len) || !xs_answer_to(id, m))
		return -1;
	if (m->h.tx_id != tx)
		test_fail("answer to req_id %u has tx_id %u, not %u", id, m->h.tx_id, tx);
	return m->h.type;
}

/* A request with one string argument (its NUL sent too). */
long xs_one(uint32_t type, const char *arg, struct xs_msg *m)
{
	return xs_req(type, 0, arg, (uint32_t)strlen(arg) + 1, m);
}

bool xs_is_error(long t, const struct xs_msg *m, const char *ename)
{
	return t == XS_ERROR && m->h.len == strlen(ename) + 1 && !strncmp(m->body, ename, m->h.len);
}

bool xs_is_reply(long t, uint32_t type, const struct xs_msg *m, const char *s)
{
	return t == (long)type && m->h.len == strlen(s) + 1 && !strncmp(m->body, s, m->h.len);
}

const char *xs_show(long t, const struct xs_msg *m)
{
	static char buf[80];

	if (t < 0)
		return "(no answer)";
	snprintf(buf, sizeof(buf), "type %ld '%.50s' (%u bytes)", t, m->body, m->h.len);
	return buf;
}

long xs_init(void)
{
	if (!start_info->store_mfn || !start_info->store_evtchn)
		return -XEN_ENOENT;
	uint64_t pte = ((uint64_t)start_info->store_mfn << 12) | PTE_PRESENT | PTE_RW | PTE_USER | PTE_ACCESSED |
		       PTE_DIRTY;
	long rc = hypercall_update_va_mapping((unsigned long)ring_page, pte, UVMF_INVLPG);
	if (rc)
		return rc;
	xs_ring = (volatile struct xenstore_domain_interface *)ring_page;
	xs_port = start_info->store_evtchn;
	port_mask(xs_port);	/* events stay off: every wait is a poll on the port */
	return 0;
}
