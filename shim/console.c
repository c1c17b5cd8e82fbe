/* console.c: printk, log levels and fan-out to the active sinks, with a replay buffer for late sinks. */
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/spinlock.h"
#include "shim/x86.h"

int console_loglvl = LOG_INFO;
int console_guest_loglvl = LOG_INFO;

static struct console_sink *sinks;
static spinlock_t lock = SPINLOCK_INIT;
static volatile int lock_owner = -1;
static volatile bool panic_mode;

#define LOGBUF_SIZE 16384
static char logbuf[LOGBUF_SIZE];
static uint64_t log_head;               /* bytes ever written */

static bool lock_console(uint64_t *flags)
{
    *flags = irq_save();
    if (panic_mode)
        return false;
    int me = (int)this_cpu()->id;
    if (lock_owner == me)
        return false;                   /* nested: a fault while printing */
    spin_lock(&lock);
    lock_owner = me;
    return true;
}

static void unlock_console(bool locked, uint64_t flags)
{
    if (locked) {
        lock_owner = -1;
        spin_unlock(&lock);
    }
    irq_restore(flags);
}

static void log_append(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        logbuf[(log_head + i) % LOGBUF_SIZE] = s[i];
    log_head += n;
}

static void replay(struct console_sink *s)
{
    uint64_t start = log_head > LOGBUF_SIZE ? log_head - LOGBUF_SIZE : 0;

    for (uint64_t p = start; p < log_head;) {
        uint64_t off = p % LOGBUF_SIZE;
        size_t n = (size_t)MIN(log_head - p, (uint64_t)(LOGBUF_SIZE - off));
        s->write(&logbuf[off], n);
        p += n;
    }
}

void console_register(struct console_sink *s, bool active, bool do_replay)
{
    uint64_t f;
    bool locked = lock_console(&f);

    s->next = sinks;
    sinks = s;
    if (active && do_replay)
        replay(s);
    s->active = active;
    unlock_console(locked, f);
}

void console_select(unsigned mask, unsigned default_mask)
{
    bool any = false;

    if (!mask)
        mask = default_mask;
    for (struct console_sink *s = sinks; s; s = s->next)
        any |= (mask & s->bit) != 0;
    if (!any && !(mask & CONS_NONE))
        mask = default_mask;            /* asked only for sinks we lack: never go silent by accident */
    for (struct console_sink *s = sinks; s; s = s->next) {
        bool want = mask & s->bit;
        if (want && !s->active) {
            uint64_t f;
            bool locked = lock_console(&f);
            replay(s);
            s->active = true;
            unlock_console(locked, f);
        } else if (!want) {
            s->active = false;
        }
    }
}

void console_list(char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (struct console_sink *s = sinks; s; s = s->next)
        if (s->active && n < size)
            n += (size_t)snprintf_(buf + n, size - n, "%s%s", n ? "," : "", s->name);
}

static void (*input_fn)(void);

void console_input_attach(void (*fn)(void))
{
    input_fn = fn;
    for (struct console_sink *s = sinks; s; s = s->next)
        if (s->read && s->input_start)
            s->input_start();
}

void console_input_ready(void)
{
    void (*fn)(void) = READ_ONCE(input_fn);

    if (fn)
        fn();
}

size_t console_read(char *buf, size_t max)
{
    size_t n = 0;

    for (struct console_sink *s = sinks; s && n < max; s = s->next)
        if (s->read)
            n += s->read(buf + n, max - n);
    return n;
}

void console_write(const char *s, size_t n)
{
    uint64_t f;
    bool locked = lock_console(&f);

    log_append(s, n);
    for (struct console_sink *k = sinks; k; k = k->next)
        if (k->active)
            k->write(s, n);
    unlock_console(locked, f);
}

void console_flush(void)
{
    for (struct console_sink *k = sinks; k; k = k->next)
        if (k->active && k->flush)
            k->flush();
}

void console_panic_mode(void)
{
    panic_mode = true;
}

void vprintk(int level, const char *fmt, va_list ap)
{
    char buf[320];
    int n;

    if (level > console_loglvl)
        return;
    memcpy(buf, "(shim) ", 7);
    n = vsnprintf_(buf + 7, sizeof(buf) - 7, fmt, ap);
    if (n + 7 > (int)sizeof(buf) - 1) {
        /* cut short: keep the line's end, or the next line would run on from this one */
        n = (int)sizeof(buf) - 1;
        size_t f = strlen(fmt);
        if (f && fmt[f - 1] == '\n')
            buf[n - 1] = '\n';
    } else {
        n += 7;
    }
    console_write(buf, (size_t)n);
}

void printk(int level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(level, fmt, ap);
    va_end(ap);
}

void report(const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf_(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    console_write(buf, (size_t)MIN(n, (int)sizeof(buf) - 1));
}
