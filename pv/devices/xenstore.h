/*
 * xenstore.h: the standalone xenstore answerer. With no Xen L0 there is no xenstored behind the
 * guest's store ring, and Linux (xenbus_probe waits for its first directory read) and PV GRUB
 * (reads device/vbd) would wait for ever. This answers the ring as xenstored answers a domU whose
 * store is empty and whose writes go nowhere: reads are ENOENT, writes and watches OK. On Xen the
 * ring is L0's and dom0's xenstored answers it; this is not used there.
 *
 * Hardware-free: compiled into the shim (pv/devices/store.c drives it) and into the host unit tests.
 * One caller at a time per server (the shim serialises the guest's kicks).
 */
#ifndef PV_XENSTORE_H
#define PV_XENSTORE_H

#include "shim/lib.h"
#include "xen-abi.h"

#define XS_HDR_SIZE ((uint32_t)sizeof(struct xsd_sockmsg))
/* What one request can make us send: OK, and a watch event echoing its whole payload. */
#define XS_OUT_MAX (2 * XS_HDR_SIZE + 3 + XENSTORE_PAYLOAD_MAX)

struct xs_srv {
    uint32_t next_tx;                   /* the next transaction id handed out (never 0) */
    uint32_t error;                     /* XENSTORE_ERROR_*: once set, the ring is not served */
    const char *why;                    /* and what the guest did, in words */
    uint32_t bad_value;                 /* the length or index that was wrong */
    uint32_t in_len;                    /* bytes of the current request taken so far */
    uint32_t out_len, out_done;         /* answers made, and how much of them is in the ring */
    union {
        struct xsd_sockmsg hdr;
        uint8_t bytes[XS_HDR_SIZE + XENSTORE_PAYLOAD_MAX];
    } in;
    uint8_t out[XS_OUT_MAX];
};

/* What xs_run did (bits). */
#define XS_MOVED  1u                    /* indices moved: the guest should hear of it (its port) */
#define XS_BROKE  2u                    /* the guest broke the protocol just now (see why) */

/* Start a server for a fresh ring: it advertises the error field (XENSTORE_SERVER_FEATURE_ERROR). */
void xs_init(struct xs_srv *s, struct xenstore_domain_interface *r);

/* Take whole requests from the ring and answer each, as far as the response ring has room. A
 * partial request waits for its rest; answers that do not fit wait for the guest to consume. */
unsigned xs_run(struct xs_srv *s, struct xenstore_domain_interface *r);

/* store.c, the shim's side: serve the guest's ring when L0 has no store for it. */
void pv_store_init(void);               /* the ring page exists: start (standalone only) */
void pv_store_kick(void);               /* the guest sent on its store port */

#endif
