/* symbols.h: symbolizing code addresses for register dumps and backtraces. */
#ifndef SHIM_SYMBOLS_H
#define SHIM_SYMBOLS_H

#include "shim/lib.h"

const char *symbol_lookup(uint64_t addr, uint64_t *offset);
void symbol_format(char *buf, size_t size, uint64_t addr);

#endif
