/* test_pagetype.c: the PV MMU's page types and counts (pv/mm/pagetype.c) against the hosted model:
 * promotion and pinning at every level, the refusals a guest must get (writable mapping of a table,
 * reserved L4 slots, bad bits, superpages, frames it does not own, writable and two-level linear
 * tables), and the safety flush before a frame changes type (XSA-286). Every scenario ends with a
 * full recount (model_audit). */
#include "harness.h"
#include "mmu_model.h"
#include "pv/mm/pagetype.h"
#include "shim/xerrno.h"

#define P  1ull
#define RW 2ull
#define US 4ull
#define PS (1ull << 7)
#define PCD (1ull << 4)
#define GK  (1ull << 52)                        /* Xen's kernel-entry mark, added with U */

static uint64_t ent(uint64_t mfn, uint64_t flags)
{
    return (mfn << 12) | flags;
}

/* L4 10 -> L3 11 -> L2 12 -> L1 13 -> data 14 (RW) and 15 (RO) */
static void tree(void)
{
    model_mem[10][0] = ent(11, P | RW);
    model_mem[11][0] = ent(12, P | RW);
    model_mem[12][0] = ent(13, P | RW);
    model_mem[13][0] = ent(14, P | RW);
    model_mem[13][1] = ent(15, P);
}

static unsigned type_of(uint64_t mfn)
{
    return pgi_type(pv_mm.info[mfn]);
}

static unsigned count_of(uint64_t mfn)
{
    return pgi_count(pv_mm.info[mfn]);
}

static void audit_ok(void)
{
    const char *why = model_audit(NULL), *tlb = model_tlb_check();
    CHECK(why == NULL);
    CHECK(tlb == NULL);
    if (why || tlb)
        fprintf(stderr, "    audit: %s / %s\n", why ? why : "-", tlb ? tlb : "-");
}

static void test_pin_levels(void)
{
    model_reset();
    tree();
    CHECK_EQ(pt_pin(10, 4), 0);
    CHECK_EQ(type_of(10), PGT_L4);
    CHECK_EQ(type_of(11), PGT_L3);
    CHECK_EQ(type_of(12), PGT_L2);
    CHECK_EQ(type_of(13), PGT_L1);
    CHECK_EQ(type_of(14), PGT_WRITABLE);
    CHECK_EQ(count_of(15), 0);
    CHECK(model_mem[13][0] & US);                   /* ring-3 kernel: U added */
    CHECK_EQ(model_mem[10][256], ent(MODEL_SHIM, 3)); /* the shim's slots filled in */
    audit_ok();
    CHECK_EQ(pt_pin(10, 4), -XEN_EINVAL);           /* twice */
    CHECK_EQ(pt_pin(13, 1), 0);                     /* an L1 in use may be pinned too */
    CHECK_EQ(count_of(13), 2);
    CHECK_EQ(pt_pin(12, 3), -XEN_EINVAL);           /* wrong level for a typed frame */
    audit_ok();
    CHECK_EQ(pt_unpin(10), 0);
    CHECK_EQ(count_of(11), 0);
    CHECK_EQ(count_of(14), 1);                     /* 13, still pinned, maps it */
    CHECK_EQ(count_of(13), 1);                      /* its own pin keeps it */
    CHECK_EQ(pt_unpin(10), -XEN_EINVAL);            /* not pinned */
    CHECK_EQ(pt_unpin(13), 0);
    CHECK_EQ(pt_unpin(MODEL_BEYOND), -XEN_EINVAL);
    audit_ok();
    for (unsigned l = 1; l <= 4; l++) {             /* each level on its own */
        CHECK_EQ(pt_pin(14 + 0, l), 0);
        CHECK_EQ(pt_unpin(14), 0);
    }
    audit_ok();
}

static void test_writable_vs_table(void)
{
    model_reset();
    tree();
    CHECK_EQ(pt_pin(10, 4), 0);
    CHECK_EQ(pt_pin(14, 1), -XEN_EINVAL);           /* mapped writable: cannot become a table */
    /* a writable mapping of a table, at promotion and by update */
    model_mem[20][0] = ent(13, P | RW);
    CHECK_EQ(pt_pin(20, 1), -XEN_EBUSY);
    CHECK_EQ(count_of(20), 0);
    CHECK_EQ(pt_mod_entry(13, 5, ent(12, P | RW), false), -XEN_EBUSY);
    CHECK_EQ(pt_mod_entry(13, 5, ent(12, P), false), 0);        /* read-only is fine */
    CHECK_EQ(pt_mod_entry(13, 6, ent(13, P | RW), false), -XEN_EBUSY); /* itself */
    audit_ok();
}

static void test_bad_entries(void)
{
    model_reset();
    tree();
    CHECK_EQ(pt_pin(10, 4), 0);
    CHECK_EQ(pt_mod_entry(12, 1, ent(16, P | RW | PS), false), -XEN_EINVAL);   /* superpage */
    CHECK_EQ(pt_mod_entry(11, 1, ent(16, P | RW | PS), false), -XEN_EINVAL);
    CHECK_EQ(pt_mod_entry(13, 2, ent(16, P | PCD), false), -XEN_EINVAL);       /* cache attribute */
    CHECK_EQ(pt_mod_entry(11, 2, ent(16, P | (1ull << 8)), false), -XEN_EINVAL); /* G above L1 */
    CHECK_EQ(pt_mod_entry(13, 2, ent(2, P), false), -XEN_EBUSY);          /* the shim's RAM */
    CHECK_EQ(pt_mod_entry(13, 2, ent(MODEL_BEYOND, P), false), -XEN_EPERM); /* not RAM */
    CHECK_EQ(pt_mod_entry(13, 2, ent(MODEL_SPECIAL, P | RW), false), 0);  /* the shared page */
    CHECK_EQ(pt_mod_entry(10, 256, ent(16, P), false), -XEN_EINVAL);      /* the shim's slot */
    CHECK_EQ(pt_mod_entry(10, 271, 0, false), -XEN_EINVAL);
    CHECK_EQ(pt_mod_entry(10, 272, 0, false), 0);
    CHECK_EQ(pt_mod_entry(14, 0, 0, false), -XEN_EINVAL);                 /* not a table */
    CHECK_EQ(pt_mod_entry(2, 0, 0, false), -XEN_EINVAL);                  /* not the guest's */
    /* a guest L4 that tries to bring its own entries into the reserved slots loses them */
    model_mem[30][300] = ent(31, P);
    model_mem[30][260] = ent(16, P | RW);
    CHECK_EQ(pt_pin(30, 4), 0);
    CHECK_EQ(model_mem[30][260], ent(MODEL_SHIM, 3));
    CHECK_EQ(count_of(16), 0);
    audit_ok();
}

static void test_linear(void)
{
    model_reset();
    tree();
    model_mem[10][1] = ent(10, P);                  /* read-only self map */
    CHECK_EQ(pt_pin(10, 4), 0);
    audit_ok();
    CHECK_EQ(pt_mod_entry(10, 2, ent(10, P | RW), false), -XEN_EINVAL);       /* writable */
    model_mem[40][0] = ent(11, P);                  /* a second L4 sharing the L3 */
    CHECK_EQ(pt_pin(40, 4), 0);
    CHECK_EQ(pt_mod_entry(10, 3, ent(40, P), false), 0);     /* 10 maps 40 linearly: one level */
    CHECK_EQ(pt_linear_count(10), 1);
    CHECK_EQ(pt_linear_count(40), -1);
    audit_ok();
    model_mem[41][0] = ent(11, P);
    CHECK_EQ(pt_pin(41, 4), 0);
    CHECK_EQ(pt_mod_entry(40, 3, ent(41, P), false), -XEN_EINVAL);   /* 40 is a target: no deeper */
    CHECK_EQ(pt_mod_entry(41, 3, ent(10, P), false), -XEN_EINVAL);   /* 10 has linear entries */
    CHECK_EQ(pt_unpin(40), 0);                      /* 10's entry still holds 40 */
    CHECK_EQ(type_of(40), PGT_L4);
    CHECK_EQ(count_of(40), 1);
    CHECK_EQ(pt_mod_entry(10, 3, 0, false), 0);
    CHECK_EQ(count_of(40), 0);
    CHECK_EQ(pt_linear_count(10), 0);
    audit_ok();
    /* at L2: a read-only self map of an L2 */
    CHECK_EQ(pt_mod_entry(12, 7, ent(12, P), false), 0);
    audit_ok();
}

static void test_safety_flush(void)
{
    model_reset();
    tree();
    CHECK_EQ(pt_pin(10, 4), 0);
    unsigned f0 = model_flushes;
    /* unhook L1 13 from L2 12 without any flush by the guest, then map it writable */
    CHECK_EQ(pt_mod_entry(12, 0, 0, false), 0);
    CHECK_EQ(count_of(13), 0);
    audit_ok();
    CHECK_EQ(model_flushes, f0);
    model_mem[21][0] = ent(13, P | RW);
    CHECK_EQ(pt_pin(21, 1), 0);
    CHECK_EQ(model_flushes, f0 + 1);                /* before 13 became writable */
    audit_ok();
    /* and the other way: drop the writable mapping of 14, make 14 an L1 */
    CHECK_EQ(pt_mod_entry(13, 0, 0, false), -XEN_EINVAL); /* 13 is no table now */
    CHECK_EQ(pt_unpin(21), 0);
    CHECK_EQ(pt_pin(13, 1), 0);                     /* 13 back as an L1: a type change, flush */
    CHECK_EQ(model_flushes, f0 + 2);
    CHECK_EQ(pt_mod_entry(13, 0, 0, false), 0);     /* 14 loses its writable mapping */
    CHECK_EQ(pt_pin(14, 1), 0);
    CHECK_EQ(model_flushes, f0 + 3);
    /* the same type again needs no flush */
    CHECK_EQ(pt_unpin(14), 0);
    CHECK_EQ(pt_pin(14, 1), 0);
    CHECK_EQ(model_flushes, f0 + 3);
    audit_ok();
}

static void test_fast_path_and_ad(void)
{
    model_reset();
    tree();
    CHECK_EQ(pt_pin(10, 4), 0);
    uint64_t before = pv_mm.nr_validations;
    model_mem[13][0] |= (1ull << 5) | (1ull << 6);  /* the CPU set A and D */
    CHECK_EQ(pt_mod_entry(13, 0, ent(14, P | RW | (1ull << 63)), true), 0);   /* NX only */
    CHECK_EQ(model_mem[13][0], ent(14, P | RW | US | GK | (1ull << 5) | (1ull << 6) | (1ull << 63)));
    CHECK_EQ(pt_mod_entry(13, 0, ent(14, P | RW), false), 0);
    CHECK_EQ(model_mem[13][0], ent(14, P | RW | US | GK));
    CHECK_EQ(count_of(14), 1);
    CHECK_EQ(pv_mm.nr_validations, before);
    CHECK_EQ(pt_mod_entry(13, 0, ent(14, P), false), 0);        /* RW dropped: a reference change */
    CHECK_EQ(count_of(14), 0);
    audit_ok();
}

/* A 32-bit guest's PAE tables (pv_mm.compat), by Xen's compat rules: L3 30 (four slots) -> L2s
 * 31, 32, 33 and 34 (slot 3: the one with the hypervisor's entries) -> L1 35 -> data 36. */
static void test_compat_pae(void)
{
    model_reset();
    pv_mm.compat = true;
    model_mem[30][0] = ent(31, P);
    model_mem[30][1] = ent(32, P);
    model_mem[30][2] = ent(33, P);
    model_mem[30][7] = ent(40, P);                  /* junk past slot 3 */
    model_mem[31][0] = ent(35, P | RW);
    model_mem[35][0] = ent(36, P | RW);
    model_mem[34][500] = ent(36, P | RW);           /* guest junk in the hypervisor's slots */
    CHECK_EQ(pt_pin(30, 3), -XEN_EINVAL);           /* slot 3 must be there */
    CHECK_EQ(count_of(31), 0);
    model_mem[30][3] = ent(34, P);
    CHECK_EQ(pt_pin(30, 3), 0);
    CHECK_EQ(model_mem[30][7], 0);                  /* the MMU walks the whole page: cleared */
    CHECK_EQ(model_mem[30][0], ent(31, P | RW | US));   /* RW and U added in L3 entries */
    CHECK_EQ(model_mem[35][0], ent(36, P | RW));    /* ring 1 is supervisor: L1 entries as written */
    CHECK(pv_mm.info[34] & PGI_XEN_L2);
    CHECK_EQ(model_mem[34][500], ent(MODEL_SHIM, 0x81));    /* the hypervisor's entries put in */
    CHECK_EQ(count_of(36), 1);
    CHECK_EQ(pt_pin(34, 2), -XEN_EINVAL);           /* typed apart: not a plain L2 */
    CHECK_EQ(pt_mod_entry(34, PT_COMPAT_L2_XEN_FIRST, 0, false), -XEN_EPERM);
    CHECK_EQ(pt_mod_entry(34, PT_COMPAT_L2_XEN_FIRST - 1, 0, false), 0);
    CHECK_EQ(pt_mod_entry(30, 3, ent(34, P), false), -XEN_EINVAL);          /* slot 3 stays */
    CHECK_EQ(pt_mod_entry(30, 2, ent(33, P | (1ull << 63)), false), -XEN_EINVAL);  /* NX */
    CHECK_EQ(pt_mod_entry(30, 2, ent(33, P | PCD), false), -XEN_EINVAL);
    CHECK_EQ(pt_mod_entry(30, 2, 0, false), 0);
    CHECK_EQ(count_of(33), 0);
    model_mem[37][3] = ent(34, P);                  /* slot 3's L2 serves one L3 only */
    CHECK_EQ(pt_pin(37, 3), -XEN_EINVAL);
    CHECK_EQ(pt_pin(38, 2), 0);                     /* a plain L2 cannot serve in slot 3 */
    model_mem[39][3] = ent(38, P);
    CHECK_EQ(pt_pin(39, 3), -XEN_EINVAL);
    audit_ok();
    CHECK_EQ(pt_unpin(30), 0);
    CHECK_EQ(model_mem[30][0], ent(31, P));         /* RW, U and A off again */
    CHECK(!(pv_mm.info[34] & PGI_XEN_L2));
    CHECK_EQ(count_of(36), 0);
    CHECK_EQ(pt_unpin(38), 0);
    audit_ok();
    pv_mm.compat = false;
}

void test_pagetype(void)
{
    test_compat_pae();
    test_pin_levels();
    test_writable_vs_table();
    test_bad_entries();
    test_linear();
    test_safety_flush();
    test_fast_path_and_ad();
}
