/*
 * console.c: the guest's console. Its ring (console.domU) is a shim page on every L0: when the
 * guest kicks the console port we drain out[] and print it, whole lines at a time so that the
 * shim's own lines never cut a guest line in two. On Xen it then reaches the L0's ring (the
 * shim's "pv" sink); standalone, the serial port.
 */
#include "domain.h"
#include "console.h"
#include "x86.h"

static char line[256];
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
}

void pv_console_flush(void)
{
    pv_console_kick();
    flush_line();
}
