/* symbols.c: address -> function name, from the table mksyms.sh embeds in the image. */
#include "shim/sections.h"
#include "shim/symbols.h"

const char *symbol_lookup(uint64_t addr, uint64_t *offset)
{
    uint64_t lo = 0, hi = shim_sym_count;

    if (addr < (uintptr_t)__text_start || addr >= (uintptr_t)__text_end || !hi)
        return NULL;
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (shim_sym_addr[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (shim_sym_addr[lo] > addr)
        return NULL;
    *offset = addr - shim_sym_addr[lo];
    return &shim_sym_names[shim_sym_name_off[lo]];
}

void symbol_format(char *buf, size_t size, uint64_t addr)
{
    uint64_t off;
    const char *name = symbol_lookup(addr, &off);

    if (name)
        snprintf_(buf, size, "%s+%#lx", name, off);
    else
        snprintf_(buf, size, "?");
}
