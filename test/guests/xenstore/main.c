/*
 * xenstore: the guest's xenstore ring (public/io/xs_wire.h), as Linux's xenbus and PV GRUB use it.
 *
 * start_info gives a PV guest the ring's frame (store_mfn) and an event channel (store_evtchn).
 * The guest writes requests (struct xsd_sockmsg + payload) at req_prod and kicks the port; the
 * server answers at rsp_prod, each answer echoing the request's req_id and tx_id, and kicks back.
 * Indices are free-running and masked on use; a request may be longer than the ring, so both sides
 * move data in pieces. Linux's xenbus_probe waits for its first directory read: with
 * store_evtchn != 0 somebody must answer. On Xen that is dom0's xenstored (the shim only passes
 * kicks on); with no Xen below it our shim answers itself, as xenstored answers a domU whose store
 * is empty and whose writes go nowhere.
 *
 * Checks that hold for both servers (and so on the stock shim too, the oracle):
 *  1. the ring is quiescent at boot (each pair of indices equal); its frame is the guest's own,
 *     so its m2p entry may be set (PV GRUB moves the ring to another pfn that way);
 *  2. "domid" and "name": either both read (xenstored: then the relative node and the absolute
 *     /local/domain/<domid>/name agree, and GET_DOMAIN_PATH of our domid is that directory) or both
 *     are ENOENT (an empty store);
 *  3. GET_DOMAIN_PATH "0" is "/local/domain/0"; "device/vbd" is ENOENT for read and directory
 *     (our test guests have no disks);
 *  4. a watch is OK and fires at once with its path and token (xenstored fires every new watch
 *     once); unwatch OK;
 *  5. transaction start gives a decimal id, end "F" in it OK;
 *  6. a write to data/ is OK (and reads back on xenstored; ENOENT from the empty store), so is
 *     a 1500-byte write, longer than the ring, written in pieces; rm OK;
 *  7. answers to three pipelined requests come in order; a header split over two kicks works;
 *  8. an unknown type is ENOSYS, XS_INTRODUCE EACCES (dom0's); malformed arguments: a directory
 *     of "" EINVAL, a watch without a token EINVAL, a domain path without its NUL EINVAL, a
 *     transaction end outside a transaction ENOENT (what Xen 4.17's xenstored answers; a read
 *     without its NUL is not checked: xenstored's answer to it varies, ENOENT or EINVAL).
 *  9. last, a request longer than XENSTORE_PAYLOAD_MAX: no answer, and the page's error field
 *     says XENSTORE_ERROR_PROTO (xenstored stops serving such a guest; so does our answerer).
 * Every wait is SCHEDOP_poll on the (masked) store port with a timeout: a lost answer fails.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "events.h"
#include "mm.h"

const char test_title[] = "xenstore: requests and answers on the store ring (read, watch, transaction, write)";

static char ring_page[4096] __attribute__((aligned(4096)));
static volatile struct xenstore_domain_interface *xs;
static evtchn_port_t port;
static uint32_t next_req = 100;

#define RING XENSTORE_RING_SIZE
#define WAIT_NS 5000000000ul

struct msg {
	struct xsd_sockmsg h;
	char body[XENSTORE_PAYLOAD_MAX + 1];
};

/* Watch events that came while we waited for an answer. */
static struct msg events_got[4];
static unsigned nr_events;

static void kick(void)
{
	evtchn_send(port);
}

/* Sleep until the port fires or the deadline passes; false when past it. */
static bool wait_port(uint64_t end)
{
	if (pvclock_ns() >= end)
		return false;
	if (!port_pending(port)) {
		struct sched_poll sp = { .nr_ports = 1, .timeout = end };
		set_xen_guest_handle(sp.ports, &port);
		hypercall_sched_op(SCHEDOP_poll, &sp);
	}
	__atomic_fetch_and(&shared_info->evtchn_pending[port / 64], ~(1ul << (port % 64)), __ATOMIC_SEQ_CST);
	return true;
}

/* Put n bytes in the request ring, as much at a time as fits; kick after each piece. */
static bool send_bytes(const void *p, uint32_t n)
{
	uint64_t end = pvclock_ns() + WAIT_NS;

	while (n) {
		uint32_t cons = __atomic_load_n(&xs->req_cons, __ATOMIC_ACQUIRE), prod = xs->req_prod;
		uint32_t k = RING - (prod - cons);
		if (!k) {
			kick();
			if (!wait_port(end))
				return false;
			continue;
		}
		k = k < n ? k : n;
		for (uint32_t i = 0; i < k; i++)
			xs->req[MASK_XENSTORE_IDX(prod + i)] = ((const char *)p)[i];
		__atomic_store_n(&xs->req_prod, prod + k, __ATOMIC_RELEASE);
		kick();
		p = (const char *)p + k;
		n -= k;
	}
	return true;
}

static bool recv_bytes(void *p, uint32_t n, uint64_t end)
{
	while (n) {
		uint32_t prod = __atomic_load_n(&xs->rsp_prod, __ATOMIC_ACQUIRE), cons = xs->rsp_cons;
		uint32_t k = prod - cons;
		if (!k) {
			if (!wait_port(end))
				return false;
			continue;
		}
		k = k < n ? k : n;
		for (uint32_t i = 0; i < k; i++)
			((char *)p)[i] = xs->rsp[MASK_XENSTORE_IDX(cons + i)];
		__atomic_store_n(&xs->rsp_cons, cons + k, __ATOMIC_RELEASE);
		kick();			/* room in the response ring */
		p = (char *)p + k;
		n -= k;
	}
	return true;
}

static bool recv_msg(struct msg *m, uint64_t end)
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

static bool send_req(uint32_t type, uint32_t req_id, uint32_t tx, const void *body, uint32_t len)
{
	struct xsd_sockmsg h = { .type = type, .req_id = req_id, .tx_id = tx, .len = len };

	return send_bytes(&h, sizeof(h)) && send_bytes(body, len);
}

/* The answer to req_id (watch events on the way are kept); false on a timeout. */
static bool answer_to(uint32_t req_id, struct msg *m)
{
	uint64_t end = pvclock_ns() + WAIT_NS;

	for (;;) {
		if (!recv_msg(m, end))
			return false;
		if (m->h.type != XS_WATCH_EVENT) {
			if (m->h.req_id != req_id)
				test_fail("answer for req_id %u while waiting for %u", m->h.req_id, req_id);
			return true;
		}
		if (nr_events < ARRAY_SIZE(events_got))
			events_got[nr_events++] = *m;
	}
}

/* One request, its answer in *m: the answer's type (XS_ERROR for an error), or -1 on a timeout. */
static long xs_req(uint32_t type, uint32_t tx, const void *body, uint32_t len, struct msg *m)
{
	uint32_t id = next_req++;

	if (!send_req(type, id, tx, body, len) || !answer_to(id, m))
		return -1;
	if (m->h.tx_id != tx)
		test_fail("answer to req_id %u has tx_id %u, not %u", id, m->h.tx_id, tx);
	return m->h.type;
}

/* A request with one string argument (its NUL sent too). */
static long xs_one(uint32_t type, const char *arg, struct msg *m)
{
	return xs_req(type, 0, arg, (uint32_t)strlen(arg) + 1, m);
}

static bool is_error(long t, const struct msg *m, const char *ename)
{
	return t == XS_ERROR && m->h.len == strlen(ename) + 1 && !strncmp(m->body, ename, m->h.len);
}

static bool is_reply(long t, uint32_t type, const struct msg *m, const char *s)
{
	return t == (long)type && m->h.len == strlen(s) + 1 && !strncmp(m->body, s, m->h.len);
}

static const char *show(long t, const struct msg *m)
{
	static char buf[80];

	if (t < 0)
		return "(no answer)";
	snprintf(buf, sizeof(buf), "type %ld '%.50s' (%u bytes)", t, m->body, m->h.len);
	return buf;
}

static bool printable(const char *s, uint32_t len)
{
	if (!len)
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

static struct msg m, m2;

/* 2. what the store holds about us, and the domain path; true if it is xenstored's full store */
static bool identity(void)
{
	char name[128], path[64];
	long td = xs_one(XS_READ, "domid", &m), tn;

	if (td == XS_READ) {
		unsigned long domid = 0;
		for (uint32_t i = 0; i < m.h.len && m.body[i] >= '0' && m.body[i] <= '9'; i++)
			domid = domid * 10 + (unsigned long)(m.body[i] - '0');
		check(m.h.len > 0 && domid > 0 && domid < DOMID_FIRST_RESERVED, "read domid: '%s'", m.body);
		tn = xs_one(XS_READ, "name", &m);
		check(tn == XS_READ && printable(m.body, m.h.len), "read name: %s", show(tn, &m));
		snprintf(name, sizeof(name), "%s", m.body);
		snprintf(path, sizeof(path), "/local/domain/%lu/name", domid);
		tn = xs_one(XS_READ, path, &m);
		check(tn == XS_READ && m.h.len == strlen(name) && !memcmp(m.body, name, m.h.len), "read %s: the same name: %s", path, show(tn, &m));
		snprintf(path, sizeof(path), "%lu", domid);
		long t = xs_one(XS_GET_DOMAIN_PATH, path, &m);
		snprintf(path, sizeof(path), "/local/domain/%lu", domid);
		check(is_reply(t, XS_GET_DOMAIN_PATH, &m, path), "get_domain_path(our domid): %s", show(t, &m));
		return true;
	}
	check(is_error(td, &m, "ENOENT"), "read domid: ENOENT, or a number: %s", show(td, &m));
	tn = xs_one(XS_READ, "name", &m);
	check(is_error(tn, &m, "ENOENT"), "  an empty store: read name ENOENT too: %s", show(tn, &m));
	return false;
}

/* 4. a watch fires once at once */
static void watch(void)
{
	static const char w[] = "device\0xstest-watch-1";
	long t = xs_req(XS_WATCH, 0, w, sizeof(w), &m);

	check(is_reply(t, XS_WATCH, &m, "OK"), "watch device: %s", show(t, &m));
	/* the event may have come before the OK or after it */
	uint64_t end = pvclock_ns() + WAIT_NS;
	while (!nr_events && recv_msg(&m2, end))
		if (m2.h.type == XS_WATCH_EVENT)
			events_got[nr_events++] = m2;
	bool ok = nr_events == 1 && events_got[0].h.len == sizeof(w) && !memcmp(events_got[0].body, w, sizeof(w)) &&
		  events_got[0].h.req_id == 0;
	check(ok, "  it fired once, path 'device' token 'xstest-watch-1' (%u events, first %u bytes '%s')", nr_events,
	      nr_events ? events_got[0].h.len : 0, nr_events ? events_got[0].body : "");
	t = xs_req(XS_UNWATCH, 0, w, sizeof(w), &m);
	check(is_reply(t, XS_UNWATCH, &m, "OK"), "unwatch: %s", show(t, &m));
}

/* 5. */
static void transaction(void)
{
	long t = xs_req(XS_TRANSACTION_START, 0, "", 1, &m);
	unsigned long id = 0;
	bool num = t == XS_TRANSACTION_START && m.h.len >= 2 && m.body[m.h.len - 1] == '\0';

	for (uint32_t i = 0; num && i + 1 < m.h.len; i++) {
		num = m.body[i] >= '0' && m.body[i] <= '9';
		id = id * 10 + (unsigned long)(m.body[i] - '0');
	}
	if (!check(num && id > 0 && id <= 0xffffffffu, "transaction start: a decimal id: %s", show(t, &m)))
		return;
	t = xs_req(XS_TRANSACTION_END, (uint32_t)id, "F", 2, &m);
	check(is_reply(t, XS_TRANSACTION_END, &m, "OK"), "transaction end F in %lu: %s", id, show(t, &m));
}

/* 6. writes (one longer than the ring) */
static char big[1 + sizeof("data/pvshim-xstest-big") + 1500];

static void writes(bool full_store)
{
	static const char wr[] = "data/pvshim-xstest\0" "42";
	long t = xs_req(XS_WRITE, 0, wr, sizeof(wr) - 1, &m);

	check(is_reply(t, XS_WRITE, &m, "OK"), "write data/pvshim-xstest: %s", show(t, &m));
	t = xs_one(XS_READ, "data/pvshim-xstest", &m);
	if (full_store)
		check(t == XS_READ && m.h.len == 2 && !memcmp(m.body, "42", 2), "  reads back '42': %s", show(t, &m));
	else
		check(is_error(t, &m, "ENOENT"), "  the empty store keeps nothing: ENOENT: %s", show(t, &m));
	t = xs_one(XS_RM, "data/pvshim-xstest", &m);
	check(is_reply(t, XS_RM, &m, "OK"), "rm it: %s", show(t, &m));

	uint32_t n = (uint32_t)sizeof("data/pvshim-xstest-big");
	memcpy(big, "data/pvshim-xstest-big", n);
	for (uint32_t i = 0; i < 1500; i++)
		big[n + i] = (char)('a' + i % 26);
	t = xs_req(XS_WRITE, 0, big, n + 1500, &m);
	check(is_reply(t, XS_WRITE, &m, "OK"), "write 1500 bytes (more than a ring): %s", show(t, &m));
	if (full_store) {
		t = xs_one(XS_READ, "data/pvshim-xstest-big", &m);
		check(t == XS_READ && m.h.len == 1500 && !memcmp(m.body, big + n, 1500), "  reads back: %s", show(t, &m));
	}
	t = xs_one(XS_RM, "data/pvshim-xstest-big", &m);
	check(is_reply(t, XS_RM, &m, "OK"), "rm it: %s", show(t, &m));
}

/* 7. three requests before any answer is read; a header in two pieces */
static void pipelined(void)
{
	uint32_t id = next_req;

	next_req += 3;
	bool sent = send_req(XS_READ, id, 0, "device/vbd", 11) && send_req(XS_GET_DOMAIN_PATH, id + 1, 0, "3", 2) &&
		    send_req(XS_DIRECTORY, id + 2, 0, "device/vbd", 11);
	bool ok = sent && answer_to(id, &m) && is_error((long)m.h.type, &m, "ENOENT");
	ok = ok && answer_to(id + 1, &m) && is_reply((long)m.h.type, XS_GET_DOMAIN_PATH, &m, "/local/domain/3");
	ok = ok && answer_to(id + 2, &m) && is_error((long)m.h.type, &m, "ENOENT");
	check(ok, "three pipelined requests answered in order");

	struct xsd_sockmsg h = { .type = XS_GET_DOMAIN_PATH, .req_id = next_req++, .len = 2 };
	uint64_t end = pvclock_ns() + 200000000ul;
	send_bytes(&h, 8);
	bool early = recv_msg(&m, end);		/* nothing may come for half a header */
	ok = !early && send_bytes((char *)&h + 8, sizeof(h) - 8) && send_bytes("5", 2) && answer_to(h.req_id, &m) &&
	     is_reply((long)m.h.type, XS_GET_DOMAIN_PATH, &m, "/local/domain/5");
	check(ok, "a header sent in two pieces, kicked after each: one answer%s", early ? " (an early one came)" : "");
}

/* 8. */
static void refusals(void)
{
	long t = xs_req(999, 0, "x", 2, &m);

	check(is_error(t, &m, "ENOSYS"), "unknown type 999: ENOSYS: %s", show(t, &m));
	t = xs_req(XS_INTRODUCE, 0, "1\0" "2\0" "3", 6, &m);
	check(is_error(t, &m, "EACCES"), "introduce (dom0's): EACCES: %s", show(t, &m));
	t = xs_req(XS_DIRECTORY, 0, "", 1, &m);
	check(is_error(t, &m, "EINVAL"), "directory of an empty path: EINVAL: %s", show(t, &m));
	t = xs_req(XS_WATCH, 0, "device", 7, &m);
	check(is_error(t, &m, "EINVAL"), "watch without a token: EINVAL: %s", show(t, &m));
	t = xs_req(XS_GET_DOMAIN_PATH, 0, "5", 1, &m);
	check(is_error(t, &m, "EINVAL"), "get_domain_path without its NUL: EINVAL: %s", show(t, &m));
	t = xs_req(XS_TRANSACTION_END, 0, "F", 2, &m);
	check(is_error(t, &m, "ENOENT"), "transaction end outside a transaction: ENOENT: %s", show(t, &m));
}

/* 9. last: a request longer than XENSTORE_PAYLOAD_MAX ends the service; the page says so */
static void broken(void)
{
	struct xsd_sockmsg h = { .type = XS_READ, .req_id = next_req++, .len = XENSTORE_PAYLOAD_MAX + 1 };
	uint64_t end = pvclock_ns() + 1000000000ul;

	send_bytes(&h, sizeof(h));
	while (xs->error == XENSTORE_ERROR_NONE && wait_port(end))
		;
	bool answered = recv_msg(&m, pvclock_ns() + 200000000ul);
	check(xs->error == XENSTORE_ERROR_PROTO && !answered,
	      "9. a request of %u bytes: no answer (%s), error field %u (XENSTORE_ERROR_PROTO %u)", h.len,
	      answered ? "one came" : "none", xs->error, XENSTORE_ERROR_PROTO);
}

void test_main(void)
{
	long rc;

	if (!start_info->store_mfn || !start_info->store_evtchn)
		test_fail("no store ring in start_info (mfn %#lx, port %u)", start_info->store_mfn,
			  start_info->store_evtchn);
	uint64_t pte = ((uint64_t)start_info->store_mfn << 12) | PTE_PRESENT | PTE_RW | PTE_USER | PTE_ACCESSED |
		       PTE_DIRTY;
	rc = hypercall_update_va_mapping((unsigned long)ring_page, pte, UVMF_INVLPG);
	if (rc)
		test_fail("mapping the store ring (mfn %#lx): %ld %s", start_info->store_mfn, rc, errno_name(rc));
	xs = (volatile struct xenstore_domain_interface *)ring_page;
	port = start_info->store_evtchn;
	if ((rc = events_init()))
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	port_mask(port);	/* events stay off: every wait is a poll on the port */
	printf("store ring at mfn %#lx, port %u\n", start_info->store_mfn, port);

	check(xs->req_cons == xs->req_prod && xs->rsp_cons == xs->rsp_prod,
	      "1. the ring is quiescent: req %u/%u, rsp %u/%u", xs->req_cons, xs->req_prod, xs->rsp_cons, xs->rsp_prod);
	unsigned long pfn = mfn_to_pfn(start_info->store_mfn);
	rc = mmu_update1(((uint64_t)start_info->store_mfn << 12) | MMU_MACHPHYS_UPDATE, pfn);
	check(rc == 0, "   the ring's frame is the guest's: MMU_MACHPHYS_UPDATE of it (to pfn %#lx, unchanged): %ld %s",
	      pfn, rc, errno_name(rc));

	bool full = identity();
	printf("2. %s\n", full ? "the store knows us: xenstored" : "an empty store");
	long t = xs_one(XS_GET_DOMAIN_PATH, "0", &m);
	check(is_reply(t, XS_GET_DOMAIN_PATH, &m, "/local/domain/0"), "3. get_domain_path 0: %s", show(t, &m));
	t = xs_one(XS_READ, "device/vbd", &m);
	check(is_error(t, &m, "ENOENT"), "   read device/vbd: ENOENT: %s", show(t, &m));
	t = xs_one(XS_DIRECTORY, "device/vbd", &m);
	check(is_error(t, &m, "ENOENT"), "   directory device/vbd: ENOENT: %s", show(t, &m));
	watch();
	transaction();
	writes(full);
	pipelined();
	refusals();
	check(xs->req_cons == xs->req_prod && xs->rsp_cons == xs->rsp_prod, "the ring is quiescent at the end");
	broken();
}
