/* test_xenstore.c: pv/devices/xenstore.c, the standalone store answerer, driven through a ring page the way a
 * guest drives it: requests in pieces, indices near the 32-bit wrap, a full response ring, a
 * request longer than a ring, malformed arguments, and a guest that breaks the protocol. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pv/devices/xenstore.h"

static struct xs_srv srv;
static struct xenstore_domain_interface ring;

/* The guest's side: write what fits of n bytes, read what is there. */
static uint32_t gwrite(const void *p, uint32_t n)
{
    uint32_t room = XENSTORE_RING_SIZE - (ring.req_prod - ring.req_cons), k = n < room ? n : room;

    for (uint32_t i = 0; i < k; i++)
        ring.req[MASK_XENSTORE_IDX(ring.req_prod + i)] = ((const char *)p)[i];
    ring.req_prod += k;
    return k;
}

static uint32_t gread(void *p, uint32_t max)
{
    uint32_t k = ring.rsp_prod - ring.rsp_cons;

    if (k > max)
        k = max;
    for (uint32_t i = 0; i < k; i++)
        ((char *)p)[i] = ring.rsp[MASK_XENSTORE_IDX(ring.rsp_cons + i)];
    ring.rsp_cons += k;
    return k;
}

static void reset(uint32_t start)
{
    memset(&ring, 0, sizeof(ring));
    ring.req_cons = ring.req_prod = ring.rsp_cons = ring.rsp_prod = start;
    xs_init(&srv, &ring);
}

/* Queue one request (header and payload); false if it did not fit at once. */
static bool request(uint32_t type, uint32_t req_id, uint32_t tx, const void *body, uint32_t len)
{
    struct xsd_sockmsg h = { .type = type, .req_id = req_id, .tx_id = tx, .len = len };

    return gwrite(&h, sizeof(h)) == sizeof(h) && gwrite(body, len) == len;
}

struct msg {
    struct xsd_sockmsg h;
    char body[XENSTORE_PAYLOAD_MAX + 1];
};

/* One whole answer from the response ring, or false. */
static bool answer(struct msg *m)
{
    if (ring.rsp_prod - ring.rsp_cons < sizeof(m->h))
        return false;
    gread(&m->h, sizeof(m->h));
    if (m->h.len > XENSTORE_PAYLOAD_MAX || gread(m->body, m->h.len) != m->h.len)
        return false;
    m->body[m->h.len] = '\0';
    return true;
}

/* The answer is type t with exactly this payload (NULs included). */
static bool is(const struct msg *m, uint32_t t, uint32_t req_id, const char *body, uint32_t len)
{
    return m->h.type == t && m->h.req_id == req_id && m->h.len == len && !memcmp(m->body, body, len);
}

#define S(lit) lit, (uint32_t)sizeof(lit)       /* a literal with its NUL */

static void test_answers(void)
{
    struct msg m;

    reset(0);
    CHECK_EQ(ring.server_features, XENSTORE_SERVER_FEATURE_ERROR);
    CHECK_EQ(xs_run(&srv, &ring), 0);               /* nothing to do */

    request(XS_READ, 7, 0, S("device/vbd"));
    CHECK_EQ(xs_run(&srv, &ring), XS_MOVED);
    CHECK_EQ(ring.req_cons, ring.req_prod);
    CHECK(answer(&m) && is(&m, XS_ERROR, 7, S("ENOENT")));
    CHECK_EQ(m.h.tx_id, 0);
    request(XS_DIRECTORY, 8, 3, S("device"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_ERROR, 8, S("ENOENT")) && m.h.tx_id == 3);   /* tx_id echoed */
    request(XS_GET_PERMS, 9, 0, S("name"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_ERROR, 9, S("ENOENT")));

    /* a watch: OK, then it fires once with its path and token, outside any request */
    request(XS_WATCH, 10, 0, "device\0tok-1", sizeof("device\0tok-1"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_WATCH, 10, S("OK")));
    CHECK(answer(&m) && is(&m, XS_WATCH_EVENT, 0, "device\0tok-1", sizeof("device\0tok-1")) && m.h.tx_id == 0);
    CHECK(!answer(&m));
    request(XS_UNWATCH, 11, 0, "device\0tok-1", sizeof("device\0tok-1"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_UNWATCH, 11, S("OK")));

    /* transactions: ids from 1; end needs T or F and a transaction */
    request(XS_TRANSACTION_START, 12, 0, S(""));
    request(XS_TRANSACTION_START, 13, 0, S(""));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_TRANSACTION_START, 12, S("1")));
    CHECK(answer(&m) && is(&m, XS_TRANSACTION_START, 13, S("2")));
    request(XS_TRANSACTION_END, 14, 1, S("F"));
    request(XS_TRANSACTION_END, 15, 0, S("T"));
    request(XS_TRANSACTION_END, 16, 2, S("X"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_TRANSACTION_END, 14, S("OK")) && m.h.tx_id == 1);
    CHECK(answer(&m) && is(&m, XS_ERROR, 15, S("ENOENT")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 16, S("EINVAL")));

    /* writes go nowhere but are accepted */
    request(XS_WRITE, 17, 0, "data/x\0value", sizeof("data/x\0value") - 1);
    request(XS_MKDIR, 18, 0, S("data/d"));
    request(XS_RM, 19, 0, S("data/d"));
    request(XS_SET_PERMS, 20, 0, "data\0n1", sizeof("data\0n1"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_WRITE, 17, S("OK")));
    CHECK(answer(&m) && is(&m, XS_MKDIR, 18, S("OK")));
    CHECK(answer(&m) && is(&m, XS_RM, 19, S("OK")));
    CHECK(answer(&m) && is(&m, XS_SET_PERMS, 20, S("OK")));

    /* the domain path of the domain asked for */
    request(XS_GET_DOMAIN_PATH, 21, 0, S("7"));
    request(XS_GET_DOMAIN_PATH, 22, 0, S("65535"));
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_GET_DOMAIN_PATH, 21, S("/local/domain/7")));
    CHECK(answer(&m) && is(&m, XS_GET_DOMAIN_PATH, 22, S("/local/domain/65535")));

    /* refusals, as xenstored gives them to a domU */
    request(999, 23, 0, S("x"));
    request(XS_INTRODUCE, 24, 0, "1\0002\0003", sizeof("1\0002\0003"));
    request(XS_WATCH_EVENT, 25, 0, NULL, 0);
    request(XS_READ, 26, 0, "", 1);                         /* an empty path */
    request(XS_READ, 27, 0, "device", 6);                   /* no NUL: no such node, as xenstored */
    request(XS_WATCH, 28, 0, S("device"));                  /* no token */
    request(XS_WRITE, 29, 0, NULL, 0);                      /* no path */
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_ERROR, 23, S("ENOSYS")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 24, S("EACCES")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 25, S("ENOSYS")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 26, S("EINVAL")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 27, S("ENOENT")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 28, S("EINVAL")));
    CHECK(answer(&m) && is(&m, XS_ERROR, 29, S("EINVAL")));
    CHECK(!answer(&m));
    CHECK_EQ(srv.error, XENSTORE_ERROR_NONE);
}

/* Requests in pieces, and indices that wrap. */
static void test_pieces(void)
{
    struct xsd_sockmsg h = { .type = XS_READ, .req_id = 5, .len = sizeof("name") };
    struct msg m;

    reset(0xfffffff0u);
    gwrite(&h, 6);
    CHECK_EQ(xs_run(&srv, &ring), XS_MOVED);        /* taken, but not whole */
    CHECK_EQ(ring.req_cons, 0xfffffff6u);
    CHECK_EQ(ring.rsp_prod, 0xfffffff0u);
    gwrite((char *)&h + 6, sizeof(h) - 6);
    gwrite("na", 2);
    xs_run(&srv, &ring);
    CHECK(!answer(&m));
    gwrite("me", 3);
    xs_run(&srv, &ring);
    CHECK(answer(&m) && is(&m, XS_ERROR, 5, S("ENOENT")));
    CHECK(ring.req_cons < 0x100 && ring.rsp_prod < 0x100);     /* both wrapped */
    CHECK_EQ(xs_run(&srv, &ring), 0);
}

/* A request longer than the ring; an answer that waits for room, and requests wait behind it. */
static void test_big(void)
{
    static char body[XENSTORE_PAYLOAD_MAX];
    struct xsd_sockmsg h = { .type = XS_WATCH, .req_id = 40, .len = sizeof(body) };
    struct msg m;
    uint32_t sent = 0, got = 0;
    char *out = malloc(2 * sizeof(struct msg));

    memset(body, 'p', 3000);
    body[3000] = '\0';
    memset(body + 3001, 't', sizeof(body) - 3002);
    body[sizeof(body) - 1] = '\0';
    reset(0x7ffffc00u);
    gwrite(&h, sizeof(h));
    while (sent < sizeof(body)) {
        sent += gwrite(body + sent, sizeof(body) - sent);
        xs_run(&srv, &ring);
        got += gread(out + got, 2 * sizeof(struct msg) - got);      /* the guest reads as it goes */
    }
    request(XS_READ, 41, 0, S("x"));
    for (int i = 0; i < 20; i++) {
        xs_run(&srv, &ring);
        got += gread(out + got, 2 * sizeof(struct msg) - got);
    }
    uint32_t ok_len = sizeof(struct xsd_sockmsg) + 3, ev_len = sizeof(struct xsd_sockmsg) + sizeof(body);
    CHECK_EQ(got, ok_len + ev_len + sizeof(struct xsd_sockmsg) + sizeof("ENOENT"));
    memcpy(&m.h, out + ok_len, sizeof(m.h));
    CHECK(m.h.type == XS_WATCH_EVENT && m.h.len == sizeof(body) && !memcmp(out + ok_len + sizeof(m.h), body, sizeof(body)));
    memcpy(&m.h, out + ok_len + ev_len, sizeof(m.h));
    CHECK(m.h.type == XS_ERROR && m.h.req_id == 41);
    free(out);

    /* the guest does not read: the answer waits, and so does the next request */
    reset(0);
    ring.rsp_prod = XENSTORE_RING_SIZE - 4;         /* 4 bytes of room left */
    request(XS_READ, 50, 0, S("x"));
    request(XS_READ, 51, 0, S("y"));
    xs_run(&srv, &ring);
    CHECK_EQ(ring.rsp_prod, XENSTORE_RING_SIZE);
    CHECK_EQ(ring.req_cons, sizeof(struct xsd_sockmsg) + 2);    /* the second one is not taken */
    ring.rsp_cons = ring.rsp_prod - 4;              /* the guest read all but our first 4 bytes */
    CHECK_EQ(xs_run(&srv, &ring), XS_MOVED);
    CHECK(answer(&m) && is(&m, XS_ERROR, 50, S("ENOENT")));    /* cut after 4 bytes, now whole */
    CHECK(answer(&m) && is(&m, XS_ERROR, 51, S("ENOENT")));
}

/* A guest that breaks the protocol is no longer served; the page says why. */
static void test_broken(void)
{
    struct xsd_sockmsg h = { .type = XS_READ, .req_id = 1, .len = XENSTORE_PAYLOAD_MAX + 1 };
    struct msg m;

    reset(0);
    gwrite(&h, sizeof(h));
    CHECK_EQ(xs_run(&srv, &ring), XS_MOVED | XS_BROKE);
    CHECK_EQ(ring.error, XENSTORE_ERROR_PROTO);
    CHECK_EQ(srv.bad_value, XENSTORE_PAYLOAD_MAX + 1);
    request(XS_READ, 2, 0, S("x"));
    CHECK_EQ(xs_run(&srv, &ring), 0);
    CHECK(!answer(&m));

    reset(0);
    ring.req_prod = XENSTORE_RING_SIZE + 1;
    CHECK_EQ(xs_run(&srv, &ring), XS_BROKE);
    CHECK_EQ(ring.error, XENSTORE_ERROR_RINGIDX);

    reset(100);
    ring.rsp_cons = 100 + 1;                        /* the guest "read" more than we wrote */
    request(XS_READ, 3, 0, S("x"));
    CHECK_EQ(xs_run(&srv, &ring), XS_BROKE);
    CHECK_EQ(ring.error, XENSTORE_ERROR_RINGIDX);

    /* exactly XENSTORE_PAYLOAD_MAX is fine */
    static char body[XENSTORE_PAYLOAD_MAX];
    memset(body, 'a', sizeof(body) - 1);
    reset(0);
    h.len = sizeof(body);
    gwrite(&h, sizeof(h));
    for (uint32_t sent = 0; sent < sizeof(body); xs_run(&srv, &ring))
        sent += gwrite(body + sent, sizeof(body) - sent);
    CHECK(answer(&m) && is(&m, XS_ERROR, 1, S("ENOENT")));
    CHECK_EQ(srv.error, XENSTORE_ERROR_NONE);
}

void test_xenstore(void)
{
    test_answers();
    test_pieces();
    test_big();
    test_broken();
}
