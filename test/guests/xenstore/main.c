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
 *     are ENOENT (an empty store). The domid the store gives is the one the hypervisor under us
 *     knows us by: mmu_update's foreigndom may name the page tables' owner by it (its high half,
 *     domid + 1: do_mmu_update takes pt_owner == d as the caller, even with no requests), while
 *     DOMID_SELF + 1 and domid + 2 there are -ESRCH (no such domain inside a shim);
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
 * The 32-bit build runs the same checks (the ring and its protocol are width-independent).
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "xs.h"

const char test_title[] = "xenstore: requests and answers on the store ring (read, watch, transaction, write)";

static bool printable(const char *s, uint32_t len)
{
	if (!len)
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

static struct xs_msg m, m2;

/* mmu_update with no requests and foreigndom's high half naming the tables' owner + 1 */
static long mmu_update_pfd(unsigned long owner_plus_1)
{
	mmu_update_t req;

	return hypercall(__HYPERVISOR_mmu_update, (unsigned long)&req, 0, 0, owner_plus_1 << 16 | DOMID_SELF, 0);
}

static void pt_owner_by_number(unsigned long domid)
{
	long rc = mmu_update_pfd(domid + 1);
	check(rc == 0, "mmu_update with the page tables' owner named as domid %lu (ours) + 1: %ld %s (want 0)",
	      domid, rc, errno_name(rc));
	rc = mmu_update_pfd(DOMID_SELF + 1);
	check(rc == -XEN_ESRCH, "  and as DOMID_SELF + 1: %ld %s (want -ESRCH)", rc, errno_name(rc));
	rc = mmu_update_pfd(domid + 2);
	check(rc == -XEN_ESRCH, "  and as domid %lu (not us) + 1: %ld %s (want -ESRCH)", domid + 1, rc,
	      errno_name(rc));
}

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
		check(tn == XS_READ && printable(m.body, m.h.len), "read name: %s", xs_show(tn, &m));
		snprintf(name, sizeof(name), "%s", m.body);
		snprintf(path, sizeof(path), "/local/domain/%lu/name", domid);
		tn = xs_one(XS_READ, path, &m);
		check(tn == XS_READ && m.h.len == strlen(name) && !memcmp(m.body, name, m.h.len), "read %s: the same name: %s", path, xs_show(tn, &m));
		snprintf(path, sizeof(path), "%lu", domid);
		long t = xs_one(XS_GET_DOMAIN_PATH, path, &m);
		snprintf(path, sizeof(path), "/local/domain/%lu", domid);
		check(xs_is_reply(t, XS_GET_DOMAIN_PATH, &m, path), "get_domain_path(our domid): %s", xs_show(t, &m));
		pt_owner_by_number(domid);
		return true;
	}
	check(xs_is_error(td, &m, "ENOENT"), "read domid: ENOENT, or a number: %s", xs_show(td, &m));
	tn = xs_one(XS_READ, "name", &m);
	check(xs_is_error(tn, &m, "ENOENT"), "  an empty store: read name ENOENT too: %s", xs_show(tn, &m));
	return false;
}

/* 4. a watch fires once at once */
static void watch(void)
{
	static const char w[] = "device\0xstest-watch-1";
	long t = xs_req(XS_WATCH, 0, w, sizeof(w), &m);

	check(xs_is_reply(t, XS_WATCH, &m, "OK"), "watch device: %s", xs_show(t, &m));
	/* the event may have come before the OK or after it */
	uint64_t end = pvclock_ns() + XS_WAIT_NS;
	while (!xs_nr_events && xs_recv_msg(&m2, end))
		if (m2.h.type == XS_WATCH_EVENT)
			xs_events[xs_nr_events++] = m2;
	bool ok = xs_nr_events == 1 && xs_events[0].h.len == sizeof(w) && !memcmp(xs_events[0].body, w, sizeof(w)) &&
		  xs_events[0].h.req_id == 0;
	check(ok, "  it fired once, path 'device' token 'xstest-watch-1' (%u events, first %u bytes '%s')", xs_nr_events,
	      xs_nr_events ? xs_events[0].h.len : 0, xs_nr_events ? xs_events[0].body : "");
	t = xs_req(XS_UNWATCH, 0, w, sizeof(w), &m);
	check(xs_is_reply(t, XS_UNWATCH, &m, "OK"), "unwatch: %s", xs_show(t, &m));
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
	if (!check(num && id > 0 && id <= 0xffffffffu, "transaction start: a decimal id: %s", xs_show(t, &m)))
		return;
	t = xs_req(XS_TRANSACTION_END, (uint32_t)id, "F", 2, &m);
	check(xs_is_reply(t, XS_TRANSACTION_END, &m, "OK"), "transaction end F in %lu: %s", id, xs_show(t, &m));
}

/* 6. writes (one longer than the ring) */
static char big[1 + sizeof("data/pvshim-xstest-big") + 1500];

static void writes(bool full_store)
{
	static const char wr[] = "data/pvshim-xstest\0" "42";
	long t = xs_req(XS_WRITE, 0, wr, sizeof(wr) - 1, &m);

	check(xs_is_reply(t, XS_WRITE, &m, "OK"), "write data/pvshim-xstest: %s", xs_show(t, &m));
	t = xs_one(XS_READ, "data/pvshim-xstest", &m);
	if (full_store)
		check(t == XS_READ && m.h.len == 2 && !memcmp(m.body, "42", 2), "  reads back '42': %s", xs_show(t, &m));
	else
		check(xs_is_error(t, &m, "ENOENT"), "  the empty store keeps nothing: ENOENT: %s", xs_show(t, &m));
	t = xs_one(XS_RM, "data/pvshim-xstest", &m);
	check(xs_is_reply(t, XS_RM, &m, "OK"), "rm it: %s", xs_show(t, &m));

	uint32_t n = (uint32_t)sizeof("data/pvshim-xstest-big");
	memcpy(big, "data/pvshim-xstest-big", n);
	for (uint32_t i = 0; i < 1500; i++)
		big[n + i] = (char)('a' + i % 26);
	t = xs_req(XS_WRITE, 0, big, n + 1500, &m);
	check(xs_is_reply(t, XS_WRITE, &m, "OK"), "write 1500 bytes (more than a ring): %s", xs_show(t, &m));
	if (full_store) {
		t = xs_one(XS_READ, "data/pvshim-xstest-big", &m);
		check(t == XS_READ && m.h.len == 1500 && !memcmp(m.body, big + n, 1500), "  reads back: %s", xs_show(t, &m));
	}
	t = xs_one(XS_RM, "data/pvshim-xstest-big", &m);
	check(xs_is_reply(t, XS_RM, &m, "OK"), "rm it: %s", xs_show(t, &m));
}

/* 7. three requests before any answer is read; a header in two pieces */
static void pipelined(void)
{
	uint32_t id = xs_next_req;

	xs_next_req += 3;
	bool sent = xs_send_req(XS_READ, id, 0, "device/vbd", 11) && xs_send_req(XS_GET_DOMAIN_PATH, id + 1, 0, "3", 2) &&
		    xs_send_req(XS_DIRECTORY, id + 2, 0, "device/vbd", 11);
	bool ok = sent && xs_answer_to(id, &m) && xs_is_error((long)m.h.type, &m, "ENOENT");
	ok = ok && xs_answer_to(id + 1, &m) && xs_is_reply((long)m.h.type, XS_GET_DOMAIN_PATH, &m, "/local/domain/3");
	ok = ok && xs_answer_to(id + 2, &m) && xs_is_error((long)m.h.type, &m, "ENOENT");
	check(ok, "three pipelined requests answered in order");

	struct xsd_sockmsg h = { .type = XS_GET_DOMAIN_PATH, .req_id = xs_next_req++, .len = 2 };
	uint64_t end = pvclock_ns() + 200000000ul;
	xs_send_bytes(&h, 8);
	bool early = xs_recv_msg(&m, end);		/* nothing may come for half a header */
	ok = !early && xs_send_bytes((char *)&h + 8, sizeof(h) - 8) && xs_send_bytes("5", 2) && xs_answer_to(h.req_id, &m) &&
	     xs_is_reply((long)m.h.type, XS_GET_DOMAIN_PATH, &m, "/local/domain/5");
	check(ok, "a header sent in two pieces, kicked after each: one answer%s", early ? " (an early one came)" : "");
}

/* 8. */
static void refusals(void)
{
	long t = xs_req(999, 0, "x", 2, &m);

	check(xs_is_error(t, &m, "ENOSYS"), "unknown type 999: ENOSYS: %s", xs_show(t, &m));
	t = xs_req(XS_INTRODUCE, 0, "1\0" "2\0" "3", 6, &m);
	check(xs_is_error(t, &m, "EACCES"), "introduce (dom0's): EACCES: %s", xs_show(t, &m));
	t = xs_req(XS_DIRECTORY, 0, "", 1, &m);
	check(xs_is_error(t, &m, "EINVAL"), "directory of an empty path: EINVAL: %s", xs_show(t, &m));
	t = xs_req(XS_WATCH, 0, "device", 7, &m);
	check(xs_is_error(t, &m, "EINVAL"), "watch without a token: EINVAL: %s", xs_show(t, &m));
	t = xs_req(XS_GET_DOMAIN_PATH, 0, "5", 1, &m);
	check(xs_is_error(t, &m, "EINVAL"), "get_domain_path without its NUL: EINVAL: %s", xs_show(t, &m));
	t = xs_req(XS_TRANSACTION_END, 0, "F", 2, &m);
	check(xs_is_error(t, &m, "ENOENT"), "transaction end outside a transaction: ENOENT: %s", xs_show(t, &m));
}

/* 9. last: a request longer than XENSTORE_PAYLOAD_MAX ends the service; the page says so */
static void broken(void)
{
	struct xsd_sockmsg h = { .type = XS_READ, .req_id = xs_next_req++, .len = XENSTORE_PAYLOAD_MAX + 1 };
	uint64_t end = pvclock_ns() + 1000000000ul;

	xs_send_bytes(&h, sizeof(h));
	while (xs_ring->error == XENSTORE_ERROR_NONE && xs_wait_port(end))
		;
	bool answered = xs_recv_msg(&m, pvclock_ns() + 200000000ul);
	check(xs_ring->error == XENSTORE_ERROR_PROTO && !answered,
	      "9. a request of %u bytes: no answer (%s), error field %u (XENSTORE_ERROR_PROTO %u)", h.len,
	      answered ? "one came" : "none", xs_ring->error, XENSTORE_ERROR_PROTO);
}

void test_main(void)
{
	long rc;

	if ((rc = events_init()))
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	if ((rc = xs_init()))
		test_fail("mapping the store ring (mfn %#lx, port %u): %ld %s", start_info->store_mfn,
			  start_info->store_evtchn, rc, errno_name(rc));
	printf("store ring at mfn %#lx, port %u\n", start_info->store_mfn, xs_port);

	check(xs_ring->req_cons == xs_ring->req_prod && xs_ring->rsp_cons == xs_ring->rsp_prod,
	      "1. the ring is quiescent: req %u/%u, rsp %u/%u", xs_ring->req_cons, xs_ring->req_prod, xs_ring->rsp_cons, xs_ring->rsp_prod);
	unsigned long pfn = mfn_to_pfn(start_info->store_mfn);
	rc = mmu_update1(((uint64_t)start_info->store_mfn << 12) | MMU_MACHPHYS_UPDATE, pfn);
	check(rc == 0, "   the ring's frame is the guest's: MMU_MACHPHYS_UPDATE of it (to pfn %#lx, unchanged): %ld %s",
	      pfn, rc, errno_name(rc));

	bool full = identity();
	printf("2. %s\n", full ? "the store knows us: xenstored" : "an empty store");
	long t = xs_one(XS_GET_DOMAIN_PATH, "0", &m);
	check(xs_is_reply(t, XS_GET_DOMAIN_PATH, &m, "/local/domain/0"), "3. get_domain_path 0: %s", xs_show(t, &m));
	t = xs_one(XS_READ, "device/vbd", &m);
	check(xs_is_error(t, &m, "ENOENT"), "   read device/vbd: ENOENT: %s", xs_show(t, &m));
	t = xs_one(XS_DIRECTORY, "device/vbd", &m);
	check(xs_is_error(t, &m, "ENOENT"), "   directory device/vbd: ENOENT: %s", xs_show(t, &m));
	watch();
	transaction();
	writes(full);
	pipelined();
	refusals();
	check(xs_ring->req_cons == xs_ring->req_prod && xs_ring->rsp_cons == xs_ring->rsp_prod, "the ring is quiescent at the end");
	broken();
}
