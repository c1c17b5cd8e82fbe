/* console.h: the shim's console: log levels, output sinks (serial, L0 console_io, L0 ring), a replay buffer. */
#ifndef SHIM_CONSOLE_H
#define SHIM_CONSOLE_H

#include "shim/cmdline.h"
#include "shim/lib.h"

struct console_sink {
    const char *name;
    unsigned bit;                       /* CONS_* */
    void (*write)(const char *s, size_t n);
    void (*flush)(void);                /* optional: wait until written output has left */
    /* optional, console input: take up to max typed bytes; start delivering console_input_ready() */
    size_t (*read)(char *buf, size_t max);
    void (*input_start)(void);
    bool active;
    struct console_sink *next;
};

extern int console_loglvl, console_guest_loglvl;

/* Register a sink. `replay`: first send it what was logged before it existed. */
void console_register(struct console_sink *s, bool active, bool replay);
/* After parsing console=: keep only the sinks whose bit is in mask (0: the L0's default). */
void console_select(unsigned mask, unsigned default_mask);
void console_write(const char *s, size_t n);
void console_flush(void);
void console_panic_mode(void);          /* from now on, never wait for the console lock */
void console_list(char *buf, size_t size);
/* Console input (what an operator types into `xl console`): `fn` is told when some is waiting
 * (any context) and takes it with console_read. Input comes from every sink that has it, whether
 * or not its output is selected. */
void console_input_attach(void (*fn)(void));
void console_input_ready(void);         /* from a sink: input is waiting */
size_t console_read(char *buf, size_t max);

void printk(int level, const char *fmt, ...) __printf(2, 3);
void vprintk(int level, const char *fmt, va_list ap);
/* A line without prefix, at any log level (self-test CHECK and RESULT lines). */
void report(const char *fmt, ...) __printf(1, 2);

#define pr_err(...)   printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  printk(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) printk(LOG_DEBUG, __VA_ARGS__)

#endif
