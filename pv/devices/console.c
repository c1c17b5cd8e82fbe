/*
 * console.c: the guest's console. Its ring (console.domU) is a shim page on every L0: when the
 * guest kicks the console port we drain out[] and print it, whole lines at a time so that the
 * shim's own lines never cut a guest line in two. On Xen it then reaches the L0's ring (the
 * shim's "pv" sink); standalone, the serial port. Input goes the other way: what an operator
 * types into `xl console` (the L0 ring's in[]) is moved into the guest's in[] as room allows, and
 * the console port raised, as xenconsoled would for a PV guest of its own.
 */
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "shim/console.h"
#include "shim/spinlock.h"
#include "shim/x86.h"

static char line[256];
static spinlock_t in_lock = SPINLOCK_INIT;
static size_t line_len;

static void flush_line(void)
{
    if (line_len)
        console_write(line, line_len);
    line_len = 0;
}

void pv_console_output(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r')
            continue;
        line[line_len++] = s[i];
        if (s[i] == '\n' || line_len == sizeof(line))
            flush_line();
    }
}

/* Typed input into the guest's in[] (any context: the L0 ring's event, or the guest's kick after
 * it made room). in_cons is the guest's: a bad one only stops its own input. */
static void pv_console_input(void)
{
    struct xencons_interface *r = pv_dom.cons;
    char buf[64];
    size_t moved = 0;
    uint64_t f = spin_lock_irqsave(&in_lock);
    XENCONS_RING_IDX prod = r->in_prod, used = prod - READ_ONCE(r->in_cons);

    for (size_t room = used <= sizeof(r->in) ? sizeof(r->in) - used : 0, n; room; room -= n) {
        if (!(n = console_read(buf, MIN(room, sizeof(buf)))))
            break;
        for (size_t i = 0; i < n; i++)
            r->in[MASK_XENCONS_IDX(prod++, r->in)] = buf[i];
        moved += n;
    }
    barrier();                          /* x86: the bytes are visible before in_prod */
    WRITE_ONCE(r->in_prod, prod);
    spin_unlock_irqrestore(&in_lock, f);
    if (moved)
        pv_evtchn_raise(pv_dom.console_port);
}

void pv_console_kick(void)
{
    struct xencons_interface *r = pv_dom.cons;
    XENCONS_RING_IDX cons = READ_ONCE(r->out_cons), prod = READ_ONCE(r->out_prod);
    char buf[64];

    barrier();
    if (prod - cons > sizeof(r->out))
        cons = prod - sizeof(r->out);   /* a confused producer: take the last ring-full */
    while (cons != prod) {
        size_t n = 0;
        while (cons != prod && n < sizeof(buf))
            buf[n++] = r->out[MASK_XENCONS_IDX(cons++, r->out)];
        pv_console_output(buf, n);
    }
    barrier();
    WRITE_ONCE(r->out_cons, cons);
    pv_console_input();                 /* it may have taken input and made room */
}

void pv_console_init(void)
{
    console_input_attach(pv_console_input);
}

void pv_console_flush(void)
{
    pv_console_kick();
    flush_line();
}
