/* uart.h: the 16550 serial console sink. */
#ifndef L0_UART_H
#define L0_UART_H

#include "shim/lib.h"

void uart_init(bool active);

#endif
