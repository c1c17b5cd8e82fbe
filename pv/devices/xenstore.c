/*
 * xenstore.c: the standalone xenstore answerer (see xenstore.h): the ring transport and the answers.
 *
 * The wire rules are xs_wire.h's and xenstored's: a request is a struct xsd_sockmsg and len
 * payload bytes; each answer echoes the request's req_id and tx_id; OK, an error name and a
 * domain path are sent with their NUL; an error is XS_ERROR "<ENAME>". As xenstored, an unknown
 * type is ENOSYS, the introduce-and-control family EACCES for a domU, a malformed argument list
 * EINVAL (a read's ENOENT), and a watch fires once as soon as it is set ("we fire once up front",
 * xenstored says). Xen 4.17's xenstored gave each of these answers to test/guests/xenstore.
 * No watch is kept (nothing ever changes here), so unwatch is OK even for a watch never set,
 * where xenstored would say ENOENT.
 * Linux registers its watches (device/, control/shutdown, memory/target, ...) before it sends
 * XS_WATCH and reads the node in each handler; with an empty store the handlers find ENOENT and
 * return, so the event costs nothing there, and a client that relies on the first firing (as
 * xenstored's comment invites) is not left waiting.
 *
 * Ring indices are free-running counters, masked on use; the guest may write anything into the
 * page at any time, so each index is read once per pass and its distance checked, and request
 * bytes are copied out before they are parsed. The other side's index is loaded with acquire
 * before the bytes it covers are touched; ours is stored with release after they were read or
 * written (xs_wire.h's barriers). A length over XENSTORE_PAYLOAD_MAX or an index
 * more than a ring apart ends the service, as xenstored ignores such a connection: the page's
 * error field says which (XENSTORE_ERROR_PROTO, _RINGIDX) and the shim prints one line. The
 * guest is not crashed, so it fares as it would on Xen.
 */
#include "pv/devices/xenstore.h"

#define RING XENSTORE_RING_SIZE

static uint32_t load_acq(const uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_rel(uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void broke(struct xs_srv *s, struct xenstore_domain_interface *r, uint32_t err, const char *why,
                  uint32_t value)
{
    s->error = err;
    s->why = why;
    s->bad_value = value;
    store_rel(&r->error, err);
}

void xs_init(struct xs_srv *s, struct xenstore_domain_interface *r)
{
    s->next_tx = 1;
    s->error = XENSTORE_ERROR_NONE;
    s->why = NULL;
    s->in_len = s->out_len = s->out_done = 0;
    r->server_features = XENSTORE_SERVER_FEATURE_ERROR;
    r->connection = XENSTORE_CONNECTED;
    r->error = XENSTORE_ERROR_NONE;
}

/* ---- answers ---- */

static void put(struct xs_srv *s, const struct xsd_sockmsg *req, uint32_t type, const char *a, uint32_t alen,
                const char *b, uint32_t blen)
{
    struct xsd_sockmsg h = { .type = type, .req_id = req->req_id, .tx_id = req->tx_id, .len = alen + blen };

    if (type == XS_WATCH_EVENT)
        h.req_id = h.tx_id = 0;         /* an event belongs to no request */
    memcpy(s->out + s->out_len, &h, sizeof(h));
    memcpy(s->out + s->out_len + sizeof(h), a, alen);
    if (blen)
        memcpy(s->out + s->out_len + sizeof(h) + alen, b, blen);
    s->out_len += (uint32_t)sizeof(h) + alen + blen;
}

static void reply(struct xs_srv *s, const struct xsd_sockmsg *req, const char *str)
{
    put(s, req, req->type, str, (uint32_t)strlen(str) + 1, NULL, 0);
}

static void error(struct xs_srv *s, const struct xsd_sockmsg *req, const char *ename)
{
    put(s, req, XS_ERROR, ename, (uint32_t)strlen(ename) + 1, NULL, 0);
}

/* NUL-terminated strings from the start of the payload (xenstored's get_strings). */
static unsigned nr_strings(const char *p, uint32_t len)
{
    unsigned n = 0;

    for (uint32_t i = 0; i < len; i++)
        n += p[i] == '\0';
    return n;
}

/* Exactly one string that fills the payload (xenstored's onearg). */
static bool one_arg(const char *p, uint32_t len)
{
    return len && memchr(p, '\0', len) == p + len - 1;
}

static void answer(struct xs_srv *s)
{
    const struct xsd_sockmsg *req = &s->in.hdr;
    const char *p = (const char *)s->in.bytes + XS_HDR_SIZE;
    uint32_t len = req->len;
    char num[32];

    switch (req->type) {
    case XS_READ:
    case XS_DIRECTORY:
    case XS_GET_PERMS:
        /* the store is empty; xenstored finds no node for a malformed argument either, but
         * refuses an empty path */
        return error(s, req, one_arg(p, len) && !p[0] ? "EINVAL" : "ENOENT");
    case XS_DIRECTORY_PART:
        return error(s, req, nr_strings(p, len) == 2 ? "ENOENT" : "EINVAL");
    case XS_WATCH: {
        if (nr_strings(p, len) != 2)
            return error(s, req, "EINVAL");
        uint32_t plen = (uint32_t)strlen(p) + 1;
        const char *token = p + plen;
        reply(s, req, "OK");
        return put(s, req, XS_WATCH_EVENT, p, plen, token, (uint32_t)strlen(token) + 1);
    }
    case XS_UNWATCH:
        return nr_strings(p, len) == 2 ? reply(s, req, "OK") : error(s, req, "EINVAL");
    case XS_TRANSACTION_START: {
        uint32_t id = s->next_tx++;
        if (!s->next_tx)
            s->next_tx = 1;             /* 0 means "no transaction" */
        snprintf_(num, sizeof(num), "%u", id);
        return reply(s, req, num);
    }
    case XS_TRANSACTION_END:
        if (!one_arg(p, len) || (strcmp(p, "T") && strcmp(p, "F")))
            return error(s, req, "EINVAL");
        return req->tx_id ? reply(s, req, "OK") : error(s, req, "ENOENT");
    case XS_WRITE:
        return nr_strings(p, len) ? reply(s, req, "OK") : error(s, req, "EINVAL");   /* path, then the value */
    case XS_MKDIR:
    case XS_RM:
        return one_arg(p, len) ? reply(s, req, "OK") : error(s, req, "EINVAL");
    case XS_SET_PERMS:
        return nr_strings(p, len) >= 2 ? reply(s, req, "OK") : error(s, req, "EINVAL");
    case XS_GET_DOMAIN_PATH: {
        /* the path of the domain asked for, as xenstored (atoi of the argument) */
        uint32_t dom = 0;
        if (!one_arg(p, len))
            return error(s, req, "EINVAL");
        for (const char *c = p; *c >= '0' && *c <= '9'; c++)
            dom = dom * 10 + (uint32_t)(*c - '0');
        snprintf_(num, sizeof(num), "/local/domain/%u", dom);
        return reply(s, req, num);
    }
    case XS_RESET_WATCHES:
        return reply(s, req, "OK");
    case XS_CONTROL:
    case XS_INTRODUCE:
    case XS_RELEASE:
    case XS_IS_DOMAIN_INTRODUCED:
    case XS_RESUME:
    case XS_SET_TARGET:
        return error(s, req, "EACCES");     /* dom0's alone */
    default:
        return error(s, req, "ENOSYS");     /* xenstored: "unknown operation" */
    }
}

/* ---- the ring ---- */

/* Copy what fits of the pending answers into the response ring. */
static bool flush(struct xs_srv *s, struct xenstore_domain_interface *r, unsigned *did)
{
    uint32_t cons = load_acq(&r->rsp_cons), prod = r->rsp_prod;

    if (prod - cons > RING) {
        broke(s, r, XENSTORE_ERROR_RINGIDX, "response ring indices more than a ring apart", prod - cons);
        return false;
    }
    uint32_t n = MIN(RING - (prod - cons), s->out_len - s->out_done);
    for (uint32_t i = 0; i < n; i++)
        r->rsp[MASK_XENSTORE_IDX(prod + i)] = (char)s->out[s->out_done + i];
    if (n) {
        store_rel(&r->rsp_prod, prod + n);
        *did |= XS_MOVED;
    }
    s->out_done += n;
    if (s->out_done == s->out_len)
        s->out_len = s->out_done = 0;
    return true;
}

/* Take request bytes until the current request is whole: true if it is. */
static bool take(struct xs_srv *s, struct xenstore_domain_interface *r, unsigned *did)
{
    uint32_t cons = r->req_cons, prod = load_acq(&r->req_prod);

    if (prod - cons > RING) {
        broke(s, r, XENSTORE_ERROR_RINGIDX, "request ring indices more than a ring apart", prod - cons);
        return false;
    }
    for (;;) {
        uint32_t want = s->in_len < XS_HDR_SIZE ? XS_HDR_SIZE : XS_HDR_SIZE + s->in.hdr.len;
        uint32_t n = MIN(want - s->in_len, prod - cons);
        for (uint32_t i = 0; i < n; i++)
            s->in.bytes[s->in_len + i] = (uint8_t)r->req[MASK_XENSTORE_IDX(cons + i)];
        cons += n;
        s->in_len += n;
        if (n) {
            store_rel(&r->req_cons, cons);
            *did |= XS_MOVED;
        }
        if (s->in_len < want)
            return false;               /* the rest is still to come */
        if (s->in_len > XS_HDR_SIZE || s->in.hdr.len == 0)
            return true;
        if (s->in.hdr.len > XENSTORE_PAYLOAD_MAX) {
            broke(s, r, XENSTORE_ERROR_PROTO, "a request longer than XENSTORE_PAYLOAD_MAX", s->in.hdr.len);
            return false;
        }
    }
}

unsigned xs_run(struct xs_srv *s, struct xenstore_domain_interface *r)
{
    unsigned did = 0;
    bool was_ok = !s->error;

    while (!s->error) {
        if (!flush(s, r, &did) || s->out_len)
            break;                      /* broken, or answers wait for room: requests wait too */
        if (!take(s, r, &did))
            break;
        answer(s);
        s->in_len = 0;
    }
    if (was_ok && s->error)
        did |= XS_BROKE;
    return did;
}
