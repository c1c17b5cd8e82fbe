/* acpi.c: locates the RSDP (given, or by the BIOS search), walks RSDT/XSDT to the MADT, lists LAPIC ids. */
#include "shim/acpi.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/xerrno.h"

struct __packed acpi_rsdp {
    char sig[8];
    uint8_t checksum;
    char oem[6];
    uint8_t revision;
    uint32_t rsdt;
    uint32_t length;
    uint64_t xsdt;
    uint8_t xchecksum, rsvd[3];
};

struct __packed acpi_header {
    char sig[4];
    uint32_t length;
    uint8_t revision, checksum;
    char oem[6], oem_table[8];
    uint32_t oem_rev, creator, creator_rev;
};

struct __packed madt {
    struct acpi_header h;
    uint32_t lapic_addr, flags;
    uint8_t entries[];
};

static bool checksum_ok(const void *p, size_t n)
{
    uint8_t s = 0;

    for (size_t i = 0; i < n; i++)
        s += ((const uint8_t *)p)[i];
    return s == 0;
}

static const struct acpi_header *map_table(uint64_t pa)
{
    const struct acpi_header *h = ioremap(pa, sizeof(*h), PTE_RO);

    if (!h || h->length < sizeof(*h) || h->length > (1u << 20))
        return NULL;
    h = ioremap(pa, h->length, PTE_RO);
    return h && checksum_ok(h, h->length) ? h : NULL;
}

static uint64_t scan_rsdp(uint64_t start, uint64_t len)
{
    const uint8_t *p = ioremap(start, len, PTE_RO);

    for (uint64_t off = 0; p && off + 20 <= len; off += 16)
        if (!memcmp(p + off, "RSD PTR ", 8) && checksum_ok(p + off, 20))
            return start + off;
    return 0;
}

static uint64_t find_rsdp(void)
{
    const uint16_t *ebda_seg = ioremap(0x40e, 2, PTE_RO);
    uint64_t ebda = ebda_seg ? (uint64_t)*ebda_seg << 4 : 0, r = 0;

    if (ebda >= 0x80000 && ebda < 0xa0000)
        r = scan_rsdp(ebda, 1024);
    return r ? r : scan_rsdp(0xe0000, 0x20000);
}

static const struct acpi_header *find_table(const struct acpi_rsdp *rsdp, const char sig[4])
{
    bool x = rsdp->revision >= 2 && rsdp->xsdt;
    const struct acpi_header *root = map_table(x ? rsdp->xsdt : rsdp->rsdt);

    if (!root)
        return NULL;
    size_t esz = x ? 8 : 4, n = (root->length - sizeof(*root)) / esz;
    const uint8_t *ent = (const uint8_t *)(root + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t pa = 0;
        memcpy(&pa, ent + i * esz, esz);
        const struct acpi_header *h = map_table(pa);
        if (h && !memcmp(h->sig, sig, 4))
            return h;
    }
    return NULL;
}

int acpi_find_cpus(uint64_t hint, struct acpi_cpus *out)
{
    memset(out, 0, sizeof(*out));
    out->rsdp = hint ? hint : find_rsdp();
    if (!out->rsdp)
        return ERR(-XEN_ENOENT);
    const struct acpi_rsdp *rsdp = ioremap(out->rsdp, sizeof(*rsdp), PTE_RO);
    if (!rsdp || memcmp(rsdp->sig, "RSD PTR ", 8) || !checksum_ok(rsdp, 20))
        return ERR(-XEN_EINVAL);
    const struct madt *m = (const struct madt *)find_table(rsdp, "APIC");
    if (!m)
        return ERR(-XEN_ENOENT);
    for (uint32_t off = 0; off + 2 <= m->h.length - sizeof(*m);) {
        const uint8_t *e = &m->entries[off];
        uint8_t type = e[0], len = e[1];
        if (len < 2 || off + len > m->h.length - sizeof(*m))
            break;
        uint32_t id = 0, flags = 0;
        bool cpu = false;
        if (type == 0 && len >= 8) {            /* processor local APIC */
            id = e[3];
            memcpy(&flags, e + 4, 4);
            cpu = true;
        } else if (type == 9 && len >= 16) {    /* processor local x2APIC */
            memcpy(&id, e + 4, 4);
            memcpy(&flags, e + 8, 4);
            cpu = true;
        }
        if (cpu) {
            if (!(flags & 1))
                out->nr_disabled++;
            else if (out->nr < ARRAY_SIZE(out->apic_id))
                out->apic_id[out->nr++] = id;
        }
        off += len;
    }
    return out->nr ? 0 : ERR(-XEN_ENOENT);
}
