/* boot.c: reads the multiboot1 info or the PVH hvm_start_info into struct boot_info. */
#include "hvm-start-info.h"
#include "shim/boot.h"
#include "shim/paging.h"

struct boot_info boot_info;

struct __packed mb_info {
    uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
    uint32_t syms[4];
    uint32_t mmap_length, mmap_addr;
};

struct __packed mb_module {
    uint32_t start, end, string, reserved;
};

struct __packed mb_mmap {
    uint32_t size;
    uint64_t addr, len;
    uint32_t type;
};

#define MBI_CMDLINE (1u << 2)
#define MBI_MODS    (1u << 3)
#define MBI_MMAP    (1u << 6)
#define MBI_MEM     (1u << 0)

void boot_note(struct boot_info *bi, const char *fmt, ...)
{
    va_list ap;

    if (bi->nr_notes >= ARRAY_SIZE(bi->notes))
        return;
    va_start(ap, fmt);
    vsnprintf_(bi->notes[bi->nr_notes++], sizeof(bi->notes[0]), fmt, ap);
    va_end(ap);
}

const char *e820_type_name(uint32_t type)
{
    static const char *const names[] = { "?", "RAM", "reserved", "ACPI", "ACPI NVS", "unusable",
                                         "disabled", "persistent" };
    return type < ARRAY_SIZE(names) ? names[type] : "?";
}

/* Physical memory is identity-mapped below 4 GiB while we run on head.S's tables. */
static const char *phys_str(uint64_t pa)
{
    return pa && pa < (4ull << 30) ? (const char *)phys_to_virt(pa) : "";
}

void boot_add_mem(struct boot_info *bi, uint64_t start, uint64_t len, uint32_t type)
{
    if (!len)
        return;
    if (bi->nr_mem >= MAX_MEM_RANGES) {
        boot_note(bi, "memory map: more than %u entries, rest ignored", MAX_MEM_RANGES);
        return;
    }
    bi->mem[bi->nr_mem++] = (struct mem_range){ start, start + len, type };
}

void boot_sort_mem(struct boot_info *bi)
{
    for (unsigned i = 1; i < bi->nr_mem; i++) {
        struct mem_range r = bi->mem[i];
        unsigned j = i;
        for (; j > 0 && bi->mem[j - 1].start > r.start; j--)
            bi->mem[j] = bi->mem[j - 1];
        bi->mem[j] = r;
    }
}

static void add_module(struct boot_info *bi, uint64_t start, uint64_t end, const char *cmdline)
{
    if (bi->nr_mods >= MAX_BOOT_MODS) {
        boot_note(bi, "more than %u modules, rest ignored", MAX_BOOT_MODS);
        return;
    }
    struct boot_module *m = &bi->mods[bi->nr_mods++];
    m->start = start;
    m->end = end;
    str_copy(m->cmdline, cmdline, sizeof(m->cmdline));
}

static void collect_multiboot(struct boot_info *bi, const struct mb_info *mbi)
{
    bi->mem_source = "multiboot";
    if (mbi->flags & MBI_CMDLINE)
        str_copy(bi->cmdline, cmdline_skip_image_name(phys_str(mbi->cmdline)), sizeof(bi->cmdline));
    if (mbi->flags & MBI_MMAP) {
        uint32_t off = 0;
        while (off + sizeof(struct mb_mmap) <= mbi->mmap_length) {
            const struct mb_mmap *e = phys_to_virt(mbi->mmap_addr + off);
            boot_add_mem(bi, e->addr, e->len, e->type);
            off += e->size + 4;
        }
    } else if (mbi->flags & MBI_MEM) {
        boot_add_mem(bi, 0, (uint64_t)mbi->mem_lower << 10, E820_RAM);
        boot_add_mem(bi, 1ull << 20, (uint64_t)mbi->mem_upper << 10, E820_RAM);
    }
    if (mbi->flags & MBI_MODS) {
        const struct mb_module *mods = phys_to_virt(mbi->mods_addr);
        for (uint32_t i = 0; i < mbi->mods_count; i++) {
            /* "file-name args": the module's command line is what follows its file name */
            const char *s = phys_str(mods[i].string), *args = strchr(s, ' ');
            add_module(bi, mods[i].start, mods[i].end, args ? args + 1 : "");
        }
    }
}

static void collect_pvh(struct boot_info *bi, const struct hvm_start_info *si)
{
    if (si->magic != XEN_HVM_START_MAGIC_VALUE) {
        boot_note(bi, "PVH start info has bad magic %#x", si->magic);
        return;
    }
    str_copy(bi->cmdline, phys_str(si->cmdline_paddr), sizeof(bi->cmdline));
    bi->rsdp = si->rsdp_paddr;
    const struct hvm_modlist_entry *mods = phys_to_virt(si->modlist_paddr);
    for (uint32_t i = 0; si->modlist_paddr && i < si->nr_modules; i++)
        add_module(bi, mods[i].paddr, mods[i].paddr + mods[i].size, phys_str(mods[i].cmdline_paddr));
    if (si->version >= 1 && si->memmap_entries && si->memmap_paddr) {
        const struct hvm_memmap_table_entry *m = phys_to_virt(si->memmap_paddr);
        bi->mem_source = "hvm_start_info";
        for (uint32_t i = 0; i < si->memmap_entries; i++)
            boot_add_mem(bi, m[i].addr, m[i].size, m[i].type);
    }
}

void boot_info_collect(unsigned kind, uint32_t info_pa)
{
    struct boot_info *bi = &boot_info;

    bi->kind = kind;
    bi->mem_source = "none";
    if (kind == BOOT_MULTIBOOT)
        collect_multiboot(bi, phys_to_virt(info_pa));
    else
        collect_pvh(bi, phys_to_virt(info_pa));
}
