/* boot.h: what the loader handed us (multiboot1 or PVH), copied out before anything is allocated. */
#ifndef SHIM_BOOT_H
#define SHIM_BOOT_H

#include "shim/cmdline.h"
#include "shim/lib.h"

#define BOOT_MULTIBOOT 1
#define BOOT_PVH       2

#define MAX_MEM_RANGES 128
#define MAX_BOOT_MODS  8

#define E820_RAM       1
#define E820_RESERVED  2
#define E820_ACPI      3
#define E820_NVS       4
#define E820_UNUSABLE  5

struct mem_range {
    uint64_t start, end;
    uint32_t type;
};

struct boot_module {
    uint64_t start, end;                /* physical, [start, end) */
    char cmdline[CMDLINE_MAX];          /* for mod[0] (the PV kernel): the guest's command line */
};

struct boot_info {
    unsigned kind;                      /* BOOT_MULTIBOOT or BOOT_PVH */
    char cmdline[CMDLINE_MAX];          /* the shim's own */
    const char *mem_source;
    unsigned nr_mem;
    struct mem_range mem[MAX_MEM_RANGES];
    unsigned nr_mods;
    struct boot_module mods[MAX_BOOT_MODS];
    uint64_t rsdp;                      /* 0: search for it */
    unsigned nr_notes;
    char notes[4][96];                  /* problems met while reading, printed once a console exists */
};

extern struct boot_info boot_info;

void boot_info_collect(unsigned kind, uint32_t info_pa);
void boot_note(struct boot_info *bi, const char *fmt, ...) __printf(2, 3);
void boot_sort_mem(struct boot_info *bi);
void boot_add_mem(struct boot_info *bi, uint64_t start, uint64_t len, uint32_t type);
const char *e820_type_name(uint32_t type);

#endif
