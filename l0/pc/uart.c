/* uart.c: a polled 16550 at 0x3f8 (COM1), 115200 8n1, as a console sink. */
#include "l0/pc/uart.h"
#include "shim/console.h"
#include "shim/x86.h"

#define COM1 0x3f8

static void uart_putc(char c)
{
    for (unsigned i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
        cpu_relax();
    outb(COM1, (uint8_t)c);
}

static void uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            uart_putc('\r');
        uart_putc(s[i]);
    }
}

static struct console_sink sink = { .name = "com1", .bit = CONS_COM1, .write = uart_write };

void uart_init(bool active)
{
    outb(COM1 + 1, 0x00);               /* no interrupts */
    outb(COM1 + 3, 0x80);               /* DLAB */
    outb(COM1 + 0, 0x01);               /* 115200 */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03);               /* 8n1 */
    outb(COM1 + 2, 0xc7);               /* FIFOs on, cleared */
    outb(COM1 + 4, 0x03);               /* DTR, RTS */
    console_register(&sink, active, true);
}
