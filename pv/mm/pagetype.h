/*
 * pagetype.h: the PV MMU's bookkeeping. Every guest frame has a type (none, L1-L4 page table,
 * segment descriptors, writable) and a count of the references that hold it in that type: a
 * writable mapping holds its frame WRITABLE; a validated table's entry holds the next level's
 * table; a pin or a CR3 holds a table. The type can change only while the count is zero, so a
 * frame is never a page table and writable at the same time. Tables are validated when their
 * count leaves zero and devalidated (their entries' references dropped) when it returns to zero.
 *
 * Linear (recursive) page tables follow Xen's rules: the entry must be read-only; a table may map
 * itself freely; mapping another table of its own level needs that one validated, and a table
 * that has such entries may not itself be mapped that way (XSA-240: one level of linearity only).
 *
 * Hardware-free: compiled into the shim and into the host unit tests and fuzzer, which provide
 * the four functions at the end (frame contents, ownership, the safety flush).
 */
#ifndef PV_PAGETYPE_H
#define PV_PAGETYPE_H

#include "shim/lib.h"

enum pgt {
    PGT_NONE = 0,
    PGT_L1 = 1, PGT_L2 = 2, PGT_L3 = 3, PGT_L4 = 4,     /* level n is PGT_Ln == n */
    PGT_SEG_DESC = 5,
    PGT_WRITABLE = 6,
    PGT_L2_XEN = 8,                     /* for pt_get_type only: PGT_L2 with PGI_XEN_L2 */
};

/* One 32-bit word per frame: count, type, and flags. */
#define PGI_COUNT_MASK  0x00ffffffu     /* references in the current type */
#define PGI_XEN_L2      (1u << 24)      /* a 32-bit guest's L2 under L3 slot 3: its top slots are the
                                         * hypervisor's (Xen's PGT_pae_xen_l2, a type of its own) */
#define PGI_TYPE_SHIFT  25
#define PGI_TYPE_MASK   (7u << PGI_TYPE_SHIFT)
#define PGI_VALIDATED   (1u << 28)      /* a table whose entries hold their references */
#define PGI_PINNED      (1u << 29)
#define PGI_STALE       (1u << 30)      /* lost its last reference since the last full flush */
#define PGI_FIXED       (1u << 31)      /* a shim page shared with the guest: WRITABLE forever, or
                                         * NONE (pt_fix_readonly: never mapped writable) */

#define PT_ENTRIES 512
#define PTE_ADDR_MASK 0x000ffffffffff000ull

struct pv_mm {
    uint32_t *info;                     /* [nr] */
    uint64_t nr;                        /* frames [0, nr) are tracked */
    uint64_t nr_validations, nr_devalidations, nr_safety_flushes;
    bool strip_global;                  /* guest kernel entries never keep G (global pages are on) */
    bool compat;                        /* a 32-bit guest's PAE rules: the L3 is the top (4 slots,
                                         * slot 3's L2 holds the hypervisor's entries), ring-1
                                         * kernel entries keep U clear */
};
extern struct pv_mm pv_mm;

static inline unsigned pgi_type(uint32_t i) { return (i & PGI_TYPE_MASK) >> PGI_TYPE_SHIFT; }
static inline uint32_t pgi_count(uint32_t i) { return i & PGI_COUNT_MASK; }

/* Start tracking nr frames (info: nr zeroed words). */
void pt_init(uint32_t *info, uint64_t nr, bool strip_global);
/* A shim page the guest may map (shared_info, rings): writable type for ever, never a table. */
void pt_fix_writable(uint64_t mfn);
void pt_fix_readonly(uint64_t mfn);      /* a shim page the guest may map, but only read-only */

/* Take / drop one reference of type t (PGT_*) on a frame. Taking a table type the frame does not
 * have validates it. Errors: -XEN_EINVAL wrong type, invalid table, or not the guest's frame. */
int pt_get_type(uint64_t mfn, unsigned t);
void pt_put_type(uint64_t mfn);

/* The reference a present entry of a level-`level` table (frame table_mfn) holds, and its release.
 * get returns 0, or the Xen errno a guest gets for a bad entry (-EINVAL, -EPERM, -EBUSY). */
int pt_get_entry(unsigned level, uint64_t table_mfn, unsigned slot, uint64_t e);
void pt_put_entry(unsigned level, uint64_t table_mfn, unsigned slot, uint64_t e);

/* What a valid entry becomes when stored: U on every level (the kernel runs in ring 3), as Xen. */
uint64_t pt_adjust(unsigned level, uint64_t e);

/* Replace entry `slot` of validated table table_mfn (MMU_NORMAL_PT_UPDATE, update_va_mapping,
 * writable-page-table emulation): the new entry is checked and its reference taken before the
 * store, the old one's dropped after. preserve_ad keeps the accessed/dirty bits the CPU set. */
int pt_mod_entry(uint64_t table_mfn, unsigned slot, uint64_t val, bool preserve_ad);

/* The same, only if the entry still holds `old` exactly: 1 (and nothing done) if it changed. */
int pt_cmpxchg_entry(uint64_t table_mfn, unsigned slot, uint64_t old, uint64_t val);

/* MMUEXT_PIN_Ln_TABLE and MMUEXT_UNPIN_TABLE. */
int pt_pin(uint64_t mfn, unsigned level);
int pt_unpin(uint64_t mfn);

/* A 32-bit guest's L2 under L3 slot 3: its entries from this one are the hypervisor's. */
#define PT_COMPAT_L2_XEN_FIRST 428
/* Fill them (the shim provides it: the compat m2p). */
void pt_l2_xen_slots(uint64_t *l2);

/* Reserved L4 slots (the shim's): never the guest's to write. */
bool pt_l4_slot_reserved(unsigned slot);
/* Fill a new L4's reserved slots with the shim's entries (the shim provides it). */
void pt_l4_init_reserved(uint64_t *l4);

/* Xen's linear_pt_count of a table: > 0 its linear entries to others, < 0 its uses as their target. */
int32_t pt_linear_count(uint64_t mfn);
/* pagetype_linear.c, for pagetype.c: add d to a frame's count (+1: one more linear entry in
 * this table; -1: one more use of it as a target); false if that would make it both, overflow,
 * or the table of counts is full. pt_lin_undo takes back an add that succeeded. */
bool pt_lin_add(uint64_t mfn, int32_t d);
void pt_lin_undo(uint64_t mfn, int32_t d);
void pt_lin_reset(void);                /* no counts (pt_init) */

/* Recount every reference (pins, entries of validated tables, extra[mfn] given by the caller, e.g.
 * CR3s) and check the invariants: 0, or -1 and *why. Scratch arrays of pv_mm.nr words. */
int pt_audit(const uint32_t *extra, uint32_t *want, uint32_t *lin_ent, uint32_t *lin_use, const char **why);

/* Provided by the environment (pv/mm/mmu_env.c in the shim, the model in the tests). */
uint64_t *pt_frame(uint64_t mfn);       /* the frame's contents, writable by the shim */
bool pv_mfn_is_guest(uint64_t mfn);
bool pv_mfn_is_special(uint64_t mfn);
/* An entry of a validated L4 changed (the caller's MMU lock held): copies of it follow (xpti). */
void pt_l4_written(uint64_t mfn, unsigned slot, uint64_t val);
uint32_t pt_clock_stamp(void);          /* the TLB-flush clock's stamp for a frame let go now */
void pt_flush_since(uint32_t stamp);    /* every TLB that has not flushed since that stamp */
int pt_desc_validate(uint64_t mfn);     /* a frame becoming PGT_SEG_DESC: every descriptor safe? */

#endif
