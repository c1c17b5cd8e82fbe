/* test_segdesc.c: pv/mm/segdesc.c, the descriptors a 64-bit PV guest may install (Xen's rules), and
 * a 32-bit one's (segdesc_compat: check_descriptor for is_pv_32bit_domain). */
#include "harness.h"
#include "pv/mm/segdesc.h"
#include "shim/xerrno.h"

/* A descriptor from its parts (high dword fields as in the SDM). */
static uint64_t mk(uint32_t base, uint32_t limit, unsigned type, bool s, unsigned dpl, bool p, unsigned flags)
{
    uint32_t lo = (limit & 0xffff) | (base << 16);
    uint32_t hi = ((base >> 16) & 0xff) | (type << 8) | ((unsigned)s << 12) | (dpl << 13) | ((unsigned)p << 15) |
                  (limit & 0xf0000) | (flags << 20) | (base & 0xff000000);
    return ((uint64_t)hi << 32) | lo;
}

static unsigned dpl_of(uint64_t d) { return (unsigned)(d >> 45) & 3; }

static uint64_t gate(uint16_t sel, unsigned dpl, unsigned type, unsigned params)
{
    return ((uint64_t)(0x8000u | (dpl << 13) | (type << 8) | params) << 32) | ((uint32_t)sel << 16) | 0x1234;
}

void test_segdesc(void)
{
    uint64_t d;

    /* not present: anything, unchanged */
    d = mk(0, 0xfffff, 0x9, false, 0, false, 0);
    CHECK(segdesc_check(&d) && d == mk(0, 0xfffff, 0x9, false, 0, false, 0));
    d = ~(1ull << 47);
    CHECK(segdesc_check(&d) && d == ~(1ull << 47));

    /* code and data: DPL 3 kept, lower DPLs raised to 3, nothing else changed */
    uint64_t cs3 = mk(0, 0xfffff, 0xb, true, 3, true, 0xa), ds0 = mk(0, 0xfffff, 0x3, true, 0, true, 0xc);
    d = cs3;
    CHECK(segdesc_check(&d) && d == cs3);
    d = ds0;
    CHECK(segdesc_check(&d) && dpl_of(d) == 3 && (d & ~(3ull << 45)) == ds0);
    d = mk(0x12345678, 0x0ffff, 0xf, true, 1, true, 0x4);       /* conforming code, DPL 1 */
    CHECK(segdesc_check(&d) && dpl_of(d) == 3);

    /* system type 0 (a gate's upper half): allowed, unchanged */
    d = mk(0, 0, 0x0, false, 0, true, 0);
    CHECK(segdesc_check(&d) && d == mk(0, 0, 0x0, false, 0, true, 0));

    /* LDT, TSS (available and busy), interrupt and trap gates, 16-bit gates, task gate: refused */
    static const unsigned bad[] = { 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xb, 0xd, 0xe, 0xf };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = mk(0x1000, 0x67, bad[i], false, 3, true, 0);
        CHECK(!segdesc_check(&d));
    }

    /* call gates: to a guest selector, an LDT one or FLAT_RING3_CS64; DPL forced to 0, the DPL
     * asked for (raised to 3) in the target's RPL; parameter bits must be zero */
    d = gate(0x0010, 3, 0xc, 0);
    CHECK(segdesc_check(&d) && dpl_of(d) == 0 && ((d >> 16) & 0xffff) == 0x0013 && (d & 0xffff) == 0x1234);
    d = gate(0xe033, 0, 0xc, 0);
    CHECK(segdesc_check(&d) && dpl_of(d) == 0 && ((d >> 16) & 0xffff) == 0xe033);
    d = gate(0xe00c, 3, 0xc, 0);                                /* TI set: an LDT selector */
    CHECK(segdesc_check(&d) && ((d >> 16) & 0xffff) == 0xe00f);
    d = gate(0xe008, 3, 0xc, 0);                                /* the shim's ring-0 code */
    CHECK(!segdesc_check(&d));
    d = gate(0xdff8, 3, 0xc, 0);                                /* last guest GDT entry */
    CHECK(segdesc_check(&d));
    d = gate(0x0010, 3, 0xc, 1);
    CHECK(!segdesc_check(&d));
    d = gate(0x0010, 3, 0xc, 0x20);
    CHECK(!segdesc_check(&d));

    /* a page: all 512 fixed up in place, or -EINVAL */
    static uint64_t page[SEGDESC_PER_PAGE];
    for (unsigned i = 0; i < SEGDESC_PER_PAGE; i++)
        page[i] = i & 1 ? ds0 : 0;
    CHECK_EQ(segdesc_check_page(page), 0);
    CHECK(dpl_of(page[1]) == 3 && dpl_of(page[511]) == 3 && page[0] == 0);
    page[300] = mk(0x1000, 0x67, 0x9, false, 0, true, 0);
    CHECK_EQ(segdesc_check_page(page), -XEN_EINVAL);

    /* a 32-bit guest: DPL raised to 1 only (its kernel's ring), 3 kept */
    segdesc_compat = true;
    d = mk(0, 0xfffff, 0x3, true, 0, true, 0xc);
    CHECK(segdesc_check(&d) && dpl_of(d) == 1);
    d = mk(0, 0xfffff, 0xb, true, 3, true, 0xc);
    CHECK(segdesc_check(&d) && dpl_of(d) == 3);
    d = mk(0, 0xfffff, 0xb, true, 1, true, 0xa);    /* L set: no 64-bit code */
    CHECK(!segdesc_check(&d));
    /* a flat segment up to 0xf67fffff (older PAE Linux) is widened to 4 GiB; a based one is not */
    d = mk(0, 0xf67ff, 0x3, true, 1, true, 0xc);
    CHECK(segdesc_check(&d) && d == mk(0, 0xfffff, 0x3, true, 1, true, 0xc));
    d = mk(0x1000, 0xf67ff, 0x3, true, 1, true, 0xc);
    CHECK(segdesc_check(&d) && d == mk(0x1000, 0xf67ff, 0x3, true, 1, true, 0xc));
    d = mk(0, 0xf57ff, 0x3, true, 1, true, 0xc);    /* up to the hole: unchanged */
    CHECK(segdesc_check(&d) && d == mk(0, 0xf57ff, 0x3, true, 1, true, 0xc));
    /* gates: a parameter count is allowed, bits 5-7 not; FLAT_COMPAT_KERNEL_CS is Xen's own */
    d = gate(0x0010, 3, 0xc, 1);
    CHECK(segdesc_check(&d) && dpl_of(d) == 0 && ((d >> 16) & 0xffff) == 0x0013);
    d = gate(0x0010, 3, 0xc, 0x20);
    CHECK(!segdesc_check(&d));
    d = gate(0xe019, 1, 0xc, 0);
    CHECK(segdesc_check(&d) && ((d >> 16) & 0xffff) == 0xe019);
    d = gate(0xe033, 1, 0xc, 0);                    /* the 64-bit FLAT_RING3_CS64: not here */
    CHECK(!segdesc_check(&d));
    segdesc_compat = false;
}
