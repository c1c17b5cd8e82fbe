/*
 * fuzz_mmu.c: random page-table operations against pv/mm/pagetype.c and a hosted model of guest
 * memory (test/unit/mmu_model.c). Each input is a program: pin, unpin, change an entry (any table,
 * any slot, targets among page tables, data, the shim's frames, the shared page and non-RAM, any
 * flags), load and drop "CR3" references, and plain guest writes to frames it may write. After
 * every step the invariants are checked and a violation aborts:
 *   - the counts equal the references found by a full recount (so none is ever negative or lost);
 *   - no writable mapping of a frame in use as a page table, and no validated table reaching a
 *     frame that is not the guest's (the shim's frames are never reachable);
 *   - linear page tables read-only and one level deep (XSA-240);
 *   - no TLB entry that may survive from before a type change (XSA-286): the model tracks what
 *     the TLBs may hold since the last flush.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mmu_model.h"
#include "pv/mm/pagetype.h"

void assert_failed(const char *expr, const char *file, int line);
void trace_error(int err, const char *why, const char *file, int line);

void assert_failed(const char *expr, const char *file, int line)
{
    fprintf(stderr, "assertion %s at %s:%d\n", expr, file, line);
    abort();
}

void trace_error(int err, const char *why, const char *file, int line)
{
    (void)err, (void)why, (void)file, (void)line;
}

static const uint64_t targets[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 59,
                                    0, 2, MODEL_SPECIAL, MODEL_BEYOND, 61 };
static const unsigned slots[] = { 0, 1, 2, 3, 255, 256, 263, 271, 272, 511 };

#define NR_CR3 2
static uint64_t cr3[NR_CR3];
static uint32_t extra[MODEL_FRAMES];

static void check(void)
{
    const char *why = model_audit(extra);

    if (!why)
        why = model_tlb_check();
    if (why) {
        fprintf(stderr, "invariant broken: %s\n", why);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    model_reset();
    for (unsigned i = 0; i < NR_CR3; i++)
        cr3[i] = 0;
    for (unsigned i = 0; i < MODEL_FRAMES; i++)
        extra[i] = 0;
    /* a starting tree, so that short inputs reach deep states: L4 4 -> L3 5 -> L2 6 -> L1 7 */
    model_mem[4][0] = (5ull << 12) | 3;
    model_mem[5][0] = (6ull << 12) | 3;
    model_mem[6][0] = (7ull << 12) | 3;
    model_mem[7][0] = (8ull << 12) | 3;
    model_mem[7][1] = (9ull << 12) | 1;

    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint8_t op = d[i] & 7, a = d[i + 1], b = d[i + 2], c = d[i + 3];
        uint64_t mfn = targets[a % 15];                 /* tables: guest frames only */
        switch (op) {
        case 0:
            pt_pin(targets[a % ARRAY_SIZE(targets)], 1 + (b & 3));
            break;
        case 1:
            pt_unpin(targets[a % ARRAY_SIZE(targets)]);
            break;
        case 2:
        case 3: {
            /* flags: P, RW, US, PWT/PCD rarely, A, D, PS rarely, G, NX, an avail bit */
            static const uint64_t bits[8] = { 1, 2, 4, 1ull << 5, 1ull << 6, 1ull << 8, 1ull << 63, 1ull << 52 };
            uint64_t val = targets[b % ARRAY_SIZE(targets)] << 12;
            for (unsigned k = 0; k < 8; k++)
                if (c & (1u << k))
                    val |= bits[k];
            if ((b & 0xe0) == 0xe0)
                val |= (c & 1) ? (1ull << 7) : (1ull << 4);
            pt_mod_entry(mfn, slots[(a >> 4) % ARRAY_SIZE(slots)], val, op == 3);
            break;
        }
        case 4: {                                       /* load a CR3: an L4 reference */
            unsigned k = b & 1;
            if (pt_get_type(mfn, PGT_L4) == 0) {
                if (cr3[k]) {
                    extra[cr3[k]]--;
                    pt_put_type(cr3[k]);
                }
                cr3[k] = mfn;
                extra[mfn]++;
            }
            break;
        }
        case 5: {                                       /* drop a CR3 */
            unsigned k = b & 1;
            if (cr3[k]) {
                extra[cr3[k]]--;
                pt_put_type(cr3[k]);
                cr3[k] = 0;
            }
            break;
        }
        default: {                                      /* a plain guest write, where allowed */
            uint64_t val = (targets[b % ARRAY_SIZE(targets)] << 12) | (c & 0x7f) | ((uint64_t)(c & 0x80) << 56);
            if (pt_get_type(mfn, PGT_WRITABLE) == 0) {
                model_mem[mfn][slots[(a >> 4) % ARRAY_SIZE(slots)]] = val;
                pt_put_type(mfn);
            }
            break;
        }
        }
        check();
    }
    /* tearing everything down must leave no reference behind */
    for (unsigned k = 0; k < NR_CR3; k++)
        if (cr3[k]) {
            extra[cr3[k]]--;
            pt_put_type(cr3[k]);
        }
    for (uint64_t f = 0; f < MODEL_FRAMES; f++)
        if (pv_mm.info[f] & PGI_PINNED)
            pt_unpin(f);
    check();
    for (uint64_t f = 0; f < MODEL_FRAMES; f++)
        if (pgi_count(pv_mm.info[f]) && !(pv_mm.info[f] & PGI_FIXED)) {
            fprintf(stderr, "frame %lu keeps %u references after teardown\n", (unsigned long)f,
                    pgi_count(pv_mm.info[f]));
            abort();
        }
    return 0;
}
