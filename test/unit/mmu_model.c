/* mmu_model.c: see mmu_model.h. */
#include "mmu_model.h"
#include <string.h>
#include "pv/mm/pagetype.h"

uint64_t model_mem[MODEL_FRAMES][512];
unsigned model_flushes;
static uint32_t info[MODEL_FRAMES];
/* what the TLBs may hold since the last full flush */
static bool cached_writable[MODEL_FRAMES], cached_table[MODEL_FRAMES];

uint64_t *pt_frame(uint64_t mfn)
{
    return model_mem[mfn];
}

bool pv_mfn_is_guest(uint64_t mfn)
{
    return mfn >= MODEL_GUEST0 && mfn < MODEL_GUEST_END;
}

bool pv_mfn_is_special(uint64_t mfn)
{
    return mfn == MODEL_SPECIAL;
}

int pt_desc_validate(uint64_t mfn)
{
    (void)mfn;
    return 0;                           /* descriptor contents are not modelled */
}

void pt_l4_init_reserved(uint64_t *l4)
{
    for (unsigned s = 256; s <= 271; s++)
        l4[s] = ((uint64_t)MODEL_SHIM << 12) | 3;
}

/* A 32-bit guest's slot-3 L2: the hypervisor's entries point at the model's shim frame. */
void pt_l2_xen_slots(uint64_t *l2)
{
    for (unsigned s = PT_COMPAT_L2_XEN_FIRST; s < PT_ENTRIES; s++)
        l2[s] = ((uint64_t)MODEL_SHIM << 12) | 0x81;
}

/* What the current validated tables expose: frames mapped writable, frames used as tables. */
static void exposure(bool *wr, bool *tab)
{
    memset(wr, 0, MODEL_FRAMES);
    memset(tab, 0, MODEL_FRAMES);
    for (unsigned f = 0; f < MODEL_FRAMES; f++) {
        uint32_t x = info[f];
        if (!(x & PGI_VALIDATED))
            continue;
        tab[f] = true;
        if (pgi_type(x) != PGT_L1)
            continue;
        for (unsigned i = 0; i < 512; i++) {
            uint64_t e = model_mem[f][i], g = (e & PTE_ADDR_MASK) >> 12;
            if ((e & 3) == 3 && g < MODEL_FRAMES)
                wr[g] = true;
        }
    }
}

static void absorb(void)
{
    bool wr[MODEL_FRAMES], tab[MODEL_FRAMES];

    exposure(wr, tab);
    for (unsigned f = 0; f < MODEL_FRAMES; f++) {
        cached_writable[f] |= wr[f];
        cached_table[f] |= tab[f];
    }
}

static void pt_flush_all(void)
{
    model_flushes++;
    exposure(cached_writable, cached_table);
}

/* The model has one CPU and no clock: every stamp is 0 and every flush since it happens. */
void pt_l4_written(uint64_t mfn, unsigned slot, uint64_t val)
{
    (void)mfn, (void)slot, (void)val;   /* no copies of L4s here (the shim's xpti) */
}

uint32_t pt_clock_stamp(void)
{
    return 0;
}

void pt_flush_since(uint32_t stamp)
{
    pt_flush_all();
}

void model_reset(void)
{
    memset(model_mem, 0, sizeof(model_mem));
    memset(info, 0, sizeof(info));
    memset(cached_writable, 0, sizeof(cached_writable));
    memset(cached_table, 0, sizeof(cached_table));
    model_flushes = 0;
    pt_init(info, MODEL_FRAMES, false);
    pt_fix_writable(MODEL_SPECIAL);
}

const char *model_tlb_check(void)
{
    absorb();
    for (unsigned f = 0; f < MODEL_FRAMES; f++) {
        uint32_t x = info[f];
        bool table_in_use = (x & PGI_VALIDATED) != 0;
        bool writable_in_use = pgi_type(x) == PGT_WRITABLE && pgi_count(x) && !(x & PGI_FIXED);
        if (cached_writable[f] && table_in_use)
            return "a page table in use may still be writable through a stale TLB entry";
        if (cached_table[f] && writable_in_use)
            return "a writable frame may still be used as a page table by a stale paging-structure cache";
    }
    return NULL;
}

const char *model_audit(const uint32_t *extra)
{
    static uint32_t want[MODEL_FRAMES], ent[MODEL_FRAMES], use[MODEL_FRAMES];
    const char *why = NULL;

    return pt_audit(extra, want, ent, use, &why) ? why : NULL;
}
