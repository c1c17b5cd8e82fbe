/*
 * hcfuzz.h: what the hypercall fuzzer's driver (main.c) and its generators (gen.c) share: the
 * PRNG, the guest's memory map as the generators may use it, and one generated call.
 */
#ifndef HCFUZZ_H
#define HCFUZZ_H

#include "guest.h"
#include "mm.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- the PRNG (splitmix64): one stream from the seed, so a seed replays a run ---- */
uint64_t rnd(void);
static inline uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}
static inline bool chance(unsigned pct)
{
	return below(100) < pct;
}

/* ---- memory the generators may name (main.c sets it up) ---- */
#define NSCR 16			/* scratch frames: page tables the fuzzer owns, read-only mapped */
#define NUVM 4			/* VAs update_va_mapping may remap, put back every batch */
#define NSPARE_MAX 64		/* frames the guest may give back (balloon), never mapped */
#define NPT_MAX 64		/* live page-table frames we snapshot */
#define GUARD_PAGES 16

/*
 * The guest's addresses by ABI. 64-bit: canonical addresses below 2^47, Xen's hole from
 * 0xffff800000000000 to 0xffff87ffffffffff. The 32-bit PAE build (-pv32): every address is
 * canonical (there is none past 4 GiB); the hypervisor's range is HYPERVISOR_VIRT_START
 * (0xF5800000, xen-x86_32.h) up to 4 GiB, where Xen maps the compat m2p read-only and nothing past
 * the frames it describes (W.hole_free). Nothing of ours is mapped from NOMAP_START up to the
 * hole (setup checks), so a pointer there can be neither read nor written.
 */
#ifdef __i386__
#define HOLE_START ((uint64_t)HYPERVISOR_VIRT_START)
#define HOLE_END (1ull << 32)
#define NOMAP_START 0x40000000ull
#else
#define HOLE_START 0xffff800000000000ull
#define HOLE_END 0xffff880000000000ull
#endif

/*
 * The argument window. W0 and W1 are writable pages the generators fill with each call's
 * input; W2 maps W1's frame again read-only (so it reads what W1 holds, and a write faults);
 * W3 is unmapped. S0 is a write-only sink (results and registered areas land there, nobody
 * reads it), S1 after it unmapped. Every writable area ends at a read-only or unmapped page,
 * so a result the shim writes past an area faults instead of reaching our own data.
 */
extern uint8_t win[4][PAGE_SIZE];
extern uint8_t sink[2][PAGE_SIZE];
extern uint8_t uvm_page[NUVM][PAGE_SIZE];

struct world {
	unsigned long scr_mfn[NSCR];
	unsigned long spare[NSPARE_MAX];	/* mfns we own and may hand back */
	unsigned nr_spare;
	unsigned long pt_mfn[NPT_MAX];		/* live tables: [0] is the L4 */
	unsigned nr_pt;
	unsigned long guard_mfn[GUARD_PAGES];
	unsigned long text_va, text_end;	/* the image's text, made read-only */
	unsigned long max_mfn;			/* from XENMEM_machphys_mapping */
	unsigned long min_mfn;			/* our lowest frame (may be low: standalone) */
	unsigned long m2p_va, m2p_bytes;
	uint64_t hole_free;			/* 32-bit: the hole past the m2p's mapping, unmapped */
	unsigned long shared_mfn, cons_mfn, store_mfn;
	evtchn_port_t ipi, cons_port, store_port;	/* protected: never closed or rebound */
	evtchn_port_t ports[128];		/* ports the fuzzer bound and learnt */
	unsigned nr_ports;
	uint64_t dr[4];				/* debug address registers as last accepted */
	uint64_t now_ns;			/* the pvclock at generation time */
};
extern struct world W;

bool port_protected(unsigned port);

/* ---- one generated hypercall ---- */
/* What must be put back right after the call (the batch end puts back the rest anyway). */
#define FIX_TRAPS	(1u << 0)	/* trap table (and the NMI handler in vector 2) */
#define FIX_CALLBACKS	(1u << 1)	/* event, failsafe and syscall callbacks */
#define FIX_NMI		(1u << 2)	/* the NMI callback */
#define FIX_EVENTS	(1u << 3)	/* the upcall mask was cleared (block): set it again */

/* Before the call: make an event pending on our IPI port (block, poll with no timeout). */
#define PRE_IPI		(1u << 8)

#define MC_MAX 12			/* entries of a generated multicall list */
#define MC_SENTINEL ((xen_ulong_t)0x5e5e5e5e5e5e5e5eull)	/* an entry's result before it runs (32 bits in -pv32) */

/* In the 32-bit build every argument is a 32-bit register: gen_call leaves op and a[] so. */
struct call {
	uint64_t op;
	uint64_t a[6];
	unsigned flags;			/* FIX_*, PRE_* */
};

/* Read what a read at guest address p sees, if all of it lies in W0-W2 (W2 reads W1). */
bool win_read(uint64_t p, void *dst, size_t len);

/* Start a new top-level call: fresh random bytes in the window, nothing placed yet. */
void gen_begin(void);
/* Generate one call; in_mc: as an entry of a multicall list (no direct-only forms). */
void gen_call(struct call *c, bool in_mc);

const char *hc_name(uint64_t op);

/* A page of our read-only text that runs nothing, for set_gdt's frame lists (main.c). */
extern unsigned char gdt_decoy[];

#endif
