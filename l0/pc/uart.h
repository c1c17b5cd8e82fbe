/* uart.h: the 16550 serial console sink. */
#ifndef HVM_LITE_UART_H
#define HVM_LITE_UART_H

#include "shim/lib.h"

void uart_init(bool active);

#endif
