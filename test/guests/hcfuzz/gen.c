/*
 * gen.c: random hypercalls that cannot hurt the guest that makes them, by construction.
 *
 * Every number 0-63 gets calls, with sub-ops from its known set and beyond, and arguments from
 * edge values. Pointers are the point: each one is NULL, a low unmapped page, the window (W0-W3,
 * hcfuzz.h) aligned or not or straddling a page edge into writable, read-only or unmapped
 * memory, the sink, our read-only text, the m2p, just below 2^47, non-canonical, the
 * hypervisor's hole (0xffff800000000000-0xffff87ffffffffff, with a bias to where Xen keeps its
 * own data), or the top of the address space. What the shim reads through a pointer we gave is
 * always bytes we generated (or our text and the m2p, for the calls where any content is
 * harmless), so a frame number in a request is always one we chose: scratch frames, spare
 * frames, frames that are not ours, and for values (a PTE's target) also our live tables, guard
 * and text frames. Whatever a call writes lands in the window or the sink, or faults.
 *
 * Calls that end or reshape the guest are either left out or made in forms that are refused,
 * or followed at once by putting our state back (FIX_*), as hcfuzz/main.c says per number.
 *
 * The 32-bit build (-pv32) has no non-canonical address, and a random 32-bit word can point into
 * our own memory (a random 64-bit one practically never does): its pointers nothing can use are
 * unmapped ones (page 0, NOMAP_START up, the hole past the compat m2p: hcfuzz.h), its garbage
 * frame numbers fit 32 bits, and the compat calls get their 64-bit values in two arguments.
 * gen_call leaves every argument 32 bits.
 */
#include "hcfuzz.h"
#include "events.h"
#include "traps.h"

uint8_t win[4][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
uint8_t sink[2][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

#define W0 ((uint64_t)(uintptr_t)win[0])
#define W1 ((uint64_t)(uintptr_t)win[1])
#define W2 ((uint64_t)(uintptr_t)win[2])
#define W3 ((uint64_t)(uintptr_t)win[3])
#define S0 ((uint64_t)(uintptr_t)sink[0])
#define CONTENT (2 * PAGE_SIZE)		/* W0..W1: the bytes a pointer into W0-W2 reads */

/* ---------------- values ---------------- */

/* An integer with a bias to the edges a handler may mishandle. */
static uint64_t rval(void)
{
	switch (below(12)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ~0ull;
	case 3: return below(16);
	case 4: return 1ull << below(64);
	case 5: return (1ull << below(64)) - 1;
	case 6: return (uint32_t)rnd();
	case 7: return 0x80000000ull + below(3) - 1;
	case 8: return (1ull << 32) + below(3) - 1;
	default: return rnd();
	}
}

/* A 32-bit count or index: small, at an edge, or anything. */
static uint32_t rcount(uint32_t typical)
{
	switch (below(10)) {
	case 0: return 0;
	case 1: return ~0u;
	case 2: return 0x80000000u | (uint32_t)below(4);
	case 3: return (uint32_t)rnd();
	default: return (uint32_t)below(typical + 1);
	}
}

/*
 * A frame number that is no frame of ours, nor are the 2^20 after it: past the top of memory.
 * The 32-bit build passes frame numbers in 32-bit fields (xen_pfn_t, the compat structures), so
 * its garbage fits 32 bits (truncating the 64-bit forms could name a frame of ours).
 */
static uint64_t garbage_high(void)
{
#ifdef __i386__
	switch (below(4)) {
	case 0: return 1ull << 31;
	case 1: return W.max_mfn + 1 + below(64);
	case 2: return W.max_mfn * 2 + below(1000);
	default: return (uint32_t)rnd() | (1ull << 31);
	}
#else
	switch (below(4)) {
	case 0: return 1ull << 40;
	case 1: return W.max_mfn + 1 + below(64);
	case 2: return W.max_mfn * 2 + below(1000);
	default: return (rnd() & ((1ull << 52) - 1)) | (1ull << 45);
	}
#endif
}

/* A frame number that is no frame of ours: also the very top and below our lowest frame. */
static uint64_t garbage_mfn(void)
{
#ifdef __i386__
	const uint64_t top = 0xffffffffull;		/* a 32-bit field's top */
#else
	const uint64_t top = ~0ull;
#endif
	switch (below(5)) {
	case 0: return top;
	case 1: return MIN((1ull << 52) - 1, top - 1);
	case 2: return below(W.min_mfn);
	default: return garbage_high();
	}
}

static uint64_t spare_mfn(void)
{
	return W.nr_spare ? W.spare[below(W.nr_spare)] : garbage_mfn();
}

/* What a frame number is for: each use has the frames it may safely name. */
enum mfn_use {
	M_WRITE,	/* written by the shim (mmu_update target, clear/copy, descriptors): scratch, spare */
	M_PIN,		/* pin, unpin, user base table: scratch, spare */
	M_VALUE,	/* the target of an entry in a scratch table: anything */
	M_BASE,		/* NEW_BASEPTR: only our live L4, or what must be refused */
	M_GDT,		/* GDT frames: scratch, spare, read-only text, refused ones */
};

static uint64_t pick_mfn(enum mfn_use u)
{
	unsigned r = (unsigned)below(100);

	switch (u) {
	case M_WRITE:
	case M_PIN:
		if (r < 65)
			return W.scr_mfn[below(NSCR)];
		if (r < 82)
			return spare_mfn();
		return garbage_mfn();
	case M_VALUE:
		if (r < 35)
			return W.scr_mfn[below(NSCR)];
		if (r < 50)
			return W.pt_mfn[below(W.nr_pt)];
		if (r < 58)
			return W.guard_mfn[below(GUARD_PAGES)];
		if (r < 63)
			return virt_to_mfn((void *)(uintptr_t)(W.text_va +
							     below((W.text_end - W.text_va) >> PAGE_SHIFT) * PAGE_SIZE));
		if (r < 73)
			return spare_mfn();
		if (r < 80) {
			const unsigned long sp[3] = { W.shared_mfn, W.cons_mfn, W.store_mfn };
			return sp[below(3)];
		}
		return garbage_mfn();
	case M_BASE:
		if (r < 40)
			return W.pt_mfn[0];
		if (r < 60)
			return W.pt_mfn[below(W.nr_pt)];	/* an L3/L2/L1: the wrong type */
		if (r < 80)
			return W.guard_mfn[below(GUARD_PAGES)];	/* mapped writable: refused */
		return garbage_mfn();
	case M_GDT:
		if (r < 40)
			return W.scr_mfn[below(NSCR)];
		if (r < 50)
			return spare_mfn();
		if (r < 60)
			return W.guard_mfn[below(GUARD_PAGES)];
		if (r < 70)
			return virt_to_mfn(gdt_decoy);	/* read-only text that runs nothing (main.c) */
		return garbage_mfn();
	}
	return garbage_mfn();
}

/* A page-table entry's flags for a scratch table (L1 or above). */
static uint64_t pick_flags(void)
{
	uint64_t f = 0;

	if (chance(85)) f |= PTE_PRESENT;
	if (chance(50)) f |= PTE_RW;
	if (chance(50)) f |= PTE_USER;
	if (chance(50)) f |= PTE_ACCESSED;
	if (chance(30)) f |= PTE_DIRTY;
	if (chance(8)) f |= 0x8 | 0x10;			/* PWT, PCD */
	if (chance(8)) f |= PTE_PSE;			/* PSE (PAT in an L1) */
	if (chance(8)) f |= 0x100;			/* global */
	if (chance(8)) f |= below(8) << 9;		/* available to software */
	if (chance(20)) f |= PTE_NX;
	if (chance(5)) f |= below(1 << 11) << 52;	/* high available bits */
	if (chance(3)) f |= 1ull << (40 + below(12));	/* reserved address bits */
	return f;
}

static uint64_t pick_pte(void)
{
	if (chance(8))
		return chance(50) ? 0 : rval();
	return pte(pick_mfn(M_VALUE), 0) | pick_flags();
}

/* A linear address for flushes and LDT bases: anything, ours or not (they only name, never map). */
static uint64_t pick_va(void)
{
#ifdef __i386__
	/* no non-canonical form; the hole is HOLE_START up, the edge below it the top user page */
	switch (below(8)) {
	case 0: return W0 + below(CONTENT);
	case 1: return W.text_va + below(W.text_end - W.text_va);
	case 2: return HOLE_START + below(HOLE_END - HOLE_START);
	case 3: return HOLE_START - (below(4) << PAGE_SHIFT);
	case 4: return NOMAP_START + below(HOLE_START - NOMAP_START);
	case 5: return (uint32_t)rval();
	default: return (uint32_t)rnd() & ~(PAGE_SIZE - 1);
	}
#endif
	switch (below(8)) {
	case 0: return W0 + below(CONTENT);
	case 1: return W.text_va + below(W.text_end - W.text_va);
	case 2: return 0xffff800000000000ull + (rnd() & ((1ull << 43) - 1));
	case 3: return (1ull << 47) - (below(4) << PAGE_SHIFT);
	case 4: return 0x0000800000000000ull | rnd();	/* non-canonical, mostly */
	case 5: return rval();
	default: return rnd() & ~(PAGE_SIZE - 1);
	}
}

/* ---------------- pointers and what they point at ---------------- */

/* Which bytes of W0..W1 this call's content already uses, in 8-byte granules. */
static uint8_t used[CONTENT / 8];

void gen_begin(void)
{
	uint64_t *w = (uint64_t *)win[0];

	for (unsigned i = 0; i < CONTENT / 8; i++)
		w[i] = rnd();
	memset(used, 0, sizeof(used));
}

static bool range_free(unsigned off, size_t len)
{
	len = MAX(len, (size_t)1);
	if (off + len > CONTENT)
		return false;
	for (unsigned g = off / 8; g <= (off + len - 1) / 8; g++)
		if (used[g])
			return false;
	return true;
}

static void range_take(unsigned off, size_t len)
{
	len = MAX(len, (size_t)1);
	for (unsigned g = off / 8; g <= (off + len - 1) / 8; g++)
		used[g] = 1;
}

/* Copy content so that a read at guest address p sees it; p is in W0-W3. Bytes on W3 are lost. */
static void poke(uint64_t p, const void *data, size_t len)
{
	const uint8_t *s = data;

	for (size_t i = 0; i < len; i++, p++) {
		if (p >= W0 && p < W2)
			win[0][p - W0] = s[i];
		else if (p >= W2 && p < W3)
			win[1][p - W2] = s[i];		/* W2 reads W1's frame */
	}
}

/* The content offset (into W0..W1) a read at p uses, for the occupancy map. */
static unsigned content_off(uint64_t p)
{
	return p < W2 ? (unsigned)(p - W0) : (unsigned)(PAGE_SIZE + (p - W2));
}

/* Reserve [p, p+len) as seen through W0-W3 (a read through W2 wraps to W1's head). */
static bool reserve(uint64_t p, size_t len)
{
	uint64_t end = p + len;

	if (p < W2 && end > W2) {
		/* straddles W1 -> W2: W1's tail, then W1's head again */
		size_t first = W2 - p;
		if (!range_free(content_off(p), first) || !range_free(PAGE_SIZE, MIN(len - first, PAGE_SIZE)))
			return false;
		range_take(content_off(p), first);
		range_take(PAGE_SIZE, MIN(len - first, PAGE_SIZE));
		return true;
	}
	if (end > W3)
		end = W3;			/* past W2: unmapped, nothing to reserve */
	if (end <= p)
		return true;
	if (!range_free(content_off(p), end - p))
		return false;
	range_take(content_off(p), end - p);
	return true;
}

bool win_read(uint64_t p, void *dst, size_t len)
{
	if (p < W0 || p + len > W3 || p + len < p)
		return false;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)dst)[i] = p + i < W2 ? win[0][p + i - W0] : win[1][p + i - W2];
	return true;
}

/* A free, 8-aligned spot of len bytes in W0..W1; 0 if none. */
static uint64_t alloc_spot(size_t len)
{
	len = MAX(len, (size_t)1);
	if (len > CONTENT)
		return 0;
	for (int i = 0; i < 12; i++) {
		unsigned off = (unsigned)below((CONTENT - len) / 8 + 1) * 8;
		if (range_free(off, len)) {
			range_take(off, len);
			return W0 + off;
		}
	}
	for (unsigned off = 0; off + len <= CONTENT; off += 8)
		if (range_free(off, len)) {
			range_take(off, len);
			return W0 + off;
		}
	return 0;
}

/* A pointer nothing can be read from or written to. */
static uint64_t bad_ptr(void)
{
#ifdef __i386__
	/*
	 * 32-bit: only unmapped addresses. The hole's start is the compat m2p, which Xen reads
	 * through a pointer for every call it checks with the native guest_handle_okay (below 2^47:
	 * mmu_update, event_channel_op, console_io, ...): only the hole past the m2p's mapping.
	 */
	switch (below(10)) {
	case 0: return 0;
	case 1: return 1 + below(PAGE_SIZE - 1);			/* page 0: unmapped */
	case 2: return W3 + below(PAGE_SIZE);
	case 3: return NOMAP_START + below(1 << 20) * 8;		/* no tables there */
	case 4: return HOLE_START - 8 * (1 + below(8));			/* just below the hole */
	case 5: return W.hole_free + below(HOLE_END - W.hole_free);	/* the hole, past the m2p */
	case 6: return HOLE_END - 8 * (1 + below(4));			/* the last bytes below 4 GiB */
	case 7: return HOLE_END - 1 - below(64);			/* wraps */
	case 8: return NOMAP_START + below(HOLE_START - NOMAP_START);
	default: return HOLE_START - PAGE_SIZE + below(PAGE_SIZE);	/* the top user page */
	}
#endif
	switch (below(14)) {
	case 0: return 0;
	case 1: return 1 + below(PAGE_SIZE - 1);			/* page 0: unmapped */
	case 2: return W3 + below(PAGE_SIZE);
	case 3: return 0x0000100000000000ull + below(1 << 20) * 8;	/* no tables there */
	case 4: return (1ull << 47) - 8 * (1 + below(8));		/* just below 2^47 */
	case 5: return 1ull << 47;					/* the first non-canonical */
	case 6: return 0x8000000000000000ull | (rnd() & ((1ull << 47) - 1));
	case 7: return 0xffff800000000000ull + (rnd() & ((1ull << 43) - 1));	/* the hole */
	case 8: return 0xffff830000000000ull + below(64 << 20);	/* Xen's direct map */
	case 9: return 0xffff82d040000000ull + below(16 << 20);	/* Xen's image */
	case 10: return 0xffff880000000000ull - 8 * (1 + below(4));	/* the hole's last bytes */
	case 11: return 0xffffffff80000000ull + below(1 << 20);	/* a kernel's usual place */
	case 12: return ~0ull - below(64);				/* wraps */
	default: return 0x00007fffffffe000ull + below(PAGE_SIZE);	/* the top user page */
	}
}

enum pclass {
	P_GEN,		/* the shim reads our generated content (and may write there) */
	P_ANY,		/* any readable content is harmless: also our text and the m2p */
};

/*
 * Place len bytes of content and return a pointer that reads them: aligned (or not) in W0/W1,
 * through the read-only alias W2, straddling W0|W1, W1|W2 or W2|W3, or else a bad pointer.
 */
static uint64_t place(const void *data, size_t len, enum pclass cls)
{
	unsigned r = (unsigned)below(100);
	uint64_t p = 0;

	if (!len)
		len = 1;
	if (r < 58) {
		p = alloc_spot(len);
		if (p && chance(8) && range_free(content_off(p) + (unsigned)len, 7)) {
			unsigned mis = 1 + (unsigned)below(7);		/* misaligned */
			range_take(content_off(p) + (unsigned)len, mis);
			p += mis;
		}
	} else if (r < 66 && len <= PAGE_SIZE) {
		unsigned off = (unsigned)below((PAGE_SIZE - len) / 8 + 1) * 8;
		if (range_free(PAGE_SIZE + off, len)) {
			range_take(PAGE_SIZE + off, len);
			p = W2 + off;
		}
	} else if (r < 82 && len >= 2) {
		static const uint64_t edges[3] = { 0, 1, 2 };
		uint64_t edge = edges[below(3)];		/* W0|W1, W1|W2, W2|W3 */
		size_t k = 1 + below(len - 1);			/* bytes before the edge */
		uint64_t at = W0 + (edge + 1) * PAGE_SIZE - k;
		if (k <= PAGE_SIZE && reserve(at, len))
			p = at;
	}
	if (!p) {
		if (cls == P_ANY && chance(40))
			return chance(70) ? W.text_va + below(W.text_end - W.text_va)
					  : W.m2p_va + below(W.m2p_bytes);
		return bad_ptr();
	}
	poke(p, data, len);
	return p;
}

/* Place one struct given by its type and initialiser. */
#define PLACED(cls, type, ...) place(&(type)__VA_ARGS__, sizeof(type), (cls))

/*
 * Place an array flush against the unmapped W3, so that reading past its end faults (a count
 * larger than what we wrote must never read other content). If that spot is taken: a pointer
 * nothing can be read from.
 */
static uint64_t place_at_end(const void *data, size_t len)
{
	uint64_t p = W3 - len;

	if (len > PAGE_SIZE || !reserve(p, len))
		return bad_ptr();
	poke(p, data, len);
	return p;
}

/* Where the shim may write len bytes we may read back: the window, or a faulting place. */
static uint64_t out_ptr(size_t len)
{
	unsigned r = (unsigned)below(100);

	if (r < 40)
		return S0 + (chance(80) ? below(PAGE_SIZE / 8) * 8 : below(PAGE_SIZE));
	if (r < 65) {
		uint64_t p = alloc_spot(len);
		if (p)
			return p;
	}
	if (r < 75)
		return W2 + below(PAGE_SIZE / 8) * 8;		/* read-only */
	if (r < 82)
		return W.text_va + below(W.text_end - W.text_va);
	return bad_ptr();
}

/* An area the shim keeps and writes at any time (runstate, time info): the sink, or faulting. */
static uint64_t area_ptr(void)
{
	switch (below(6)) {
	case 0: case 1: return S0 + below(PAGE_SIZE / 8) * 8;
	case 2: return S0 + PAGE_SIZE - 8 * (1 + below(6));	/* runs into unmapped S1 */
	case 3: return W2 + below(PAGE_SIZE / 8) * 8;
	default: return bad_ptr();
	}
}

/* Generic input of an op we only poke at: random words, frame numbers and pointers we own. */
static uint64_t blob(size_t len, enum pclass cls)
{
	uint64_t b[64];

	len = MIN(len, sizeof(b));
	for (unsigned i = 0; i < len / 8 + 1 && i < 64; i++) {
		switch (below(6)) {
		case 0: b[i] = pick_mfn(M_WRITE); break;
		case 1: b[i] = out_ptr(64); break;
		case 2: b[i] = below(MIN(64ul, W.min_mfn)); break;	/* small, and no frame of ours */
		default: b[i] = rnd(); break;
		}
#ifdef __i386__
		/* a random 64-bit word is no pointer, but either 32-bit half of it may point into
		 * our memory: each half of a random word points where nothing is mapped */
		if (b[i] > 0xffffffffull)
			b[i] = (b[i] & 0x3fffffff3fffffffull) | (NOMAP_START << 32) | NOMAP_START;
#endif
	}
	return place(b, len, cls);
}

/* ---------------- ports ---------------- */

bool port_protected(unsigned port)
{
	return port == W.ipi || port == W.cons_port || port == W.store_port;
}

/* A port to name; may_touch_ours: our IPI, console and store ports too (send, status, unmask). */
static uint32_t pick_port(bool may_touch_ours)
{
	uint32_t p;

	switch (below(10)) {
	case 0: case 1: case 2: case 3:
		p = W.nr_ports ? W.ports[below(W.nr_ports)] : (uint32_t)below(64);
		break;
	case 4:
		p = chance(50) ? W.ipi : chance(50) ? W.cons_port : W.store_port;
		break;
	case 5: p = (uint32_t)below(4096); break;
	case 6: p = rcount(5000); break;
	default: p = (uint32_t)below(64); break;
	}
	if (!may_touch_ours && port_protected(p))
		p = 4096 + (uint32_t)below(1000);		/* out of range instead */
	return p;
}

static uint16_t pick_dom(void)
{
	switch (below(8)) {
	case 0: return 0;
	case 1: return DOMID_IO;
	case 2: return DOMID_XEN;
	case 3: return (uint16_t)(DOMID_FIRST_RESERVED + below(16));
	case 4: return (uint16_t)rnd();
	default: return DOMID_SELF;
	}
}

/* A domain that is certainly not us (SELF and our own id are left out). */
static uint16_t other_dom(void)
{
	uint16_t d;

	do {
		d = pick_dom();
	} while (d == DOMID_SELF || (d > 0 && d < DOMID_FIRST_RESERVED));
	return d;
}

/* ---------------- the generators, one per hypercall family ---------------- */

static bool gen_in_mc;		/* generating an entry of a multicall list: no direct-only forms */

static void g_set_trap_table(struct call *c)
{
	struct trap_info t[8];
	unsigned n = 1 + (unsigned)below(7);

	for (unsigned i = 0; i < n; i++) {
		t[i].vector = (uint8_t)rnd();
		t[i].flags = (uint8_t)rnd();
		t[i].cs = chance(50) ? FLAT_KERNEL_CS : (uint16_t)rnd();
		t[i].address = chance(70) ? W.text_va + below(PAGE_SIZE) : rval();
	}
	if (chance(80))
		t[n - 1].address = 0;				/* terminated */
	c->a[0] = chance(5) ? 0 : place(t, n * sizeof(t[0]), P_ANY);
	c->flags |= FIX_TRAPS;
}

static void g_mmu_update(struct call *c)
{
	mmu_update_t r[10];
	unsigned n = 1 + (unsigned)below(8), extra = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t cmd = chance(80) ? (chance(70) ? MMU_NORMAL_PT_UPDATE : below(4)) : below(8);
		uint64_t slot = chance(70) ? below(512) : below(512 * 8) / 8;
		r[i].ptr = pte(pick_mfn(M_WRITE), 0) + slot * 8 + cmd;
		if (chance(3))
			r[i].ptr = (r[i].ptr & 7) | (rnd() & ~7ull & ((1ull << 52) - 1)) | (1ull << 45);
		if (cmd == MMU_MACHPHYS_UPDATE)
			r[i].val = chance(60) ? below(1 << 16) : rval();
		else
			r[i].val = pick_pte();
	}
	uint32_t count = n;
	uint64_t list;
	switch (below(10)) {
	case 0:					/* more than we wrote: the list ends at unmapped W3 */
		count = n + 1 + (uint32_t)below(100);
		list = place_at_end(r, n * sizeof(r[0]));
		break;
	case 1:
		count = 0;
		list = place(r, n * sizeof(r[0]), P_GEN);
		break;
	case 2:					/* a continuation's flag, or 2^32 + n */
		extra = (unsigned)below(2);
		list = place(r, n * sizeof(r[0]), P_GEN);
		break;
	default:
		list = place(r, n * sizeof(r[0]), P_GEN);
		break;
	}
	c->a[0] = list;
	c->a[1] = extra == 1 ? (1ull << 32) + count : extra == 0 ? count : count | 0x80000000u;
	c->a[2] = chance(60) ? out_ptr(4) : chance(50) ? 0 : bad_ptr();
	/* the high half names the page tables' domain, plus one (Xen's PFD): one of the highest
	 * domain ids, never ours; a small one could be our own id, which Xen takes as us */
	c->a[3] = chance(85) ? DOMID_SELF : chance(50) ? pick_dom() : (DOMID_SELF | ((DOMID_FIRST_RESERVED - below(4)) << 16));
}

static void g_set_gdt(struct call *c)
{
	xen_ulong_t f[16];		/* frames: 32 bits each in the compat call (compat_set_gdt) */
	unsigned n = (unsigned)below(15);

	for (unsigned i = 0; i < n; i++)
		f[i] = pick_mfn(M_GDT);
	uint32_t entries = chance(80) ? (uint32_t)below(n * 512 + 1) : rcount(20000);
	/* more entries than frames listed: the frame list must end where reading faults */
	c->a[0] = (entries + 511) / 512 > n ? place_at_end(f, MAX(n, 1u) * sizeof(f[0]))
					    : place(f, MAX(n, 1u) * sizeof(f[0]), P_GEN);
	if (chance(5))
		c->a[0] = bad_ptr();
	c->a[1] = chance(90) ? entries : rval();
}

static void g_stack_switch(struct call *c)
{
	c->a[0] = chance(50) ? FLAT_KERNEL_SS : rval();
	c->a[1] = chance(50) ? boot_rsp - below(PAGE_SIZE) : pick_va();
}

/* 64-bit set_callbacks: event, failsafe, syscall. */
static void g_set_callbacks(struct call *c)
{
#ifdef __i386__
	/* compat_set_callbacks: event cs and eip, failsafe cs and eip */
	for (int i = 0; i < 4; i += 2) {
		c->a[i] = chance(70) ? FLAT_KERNEL_CS : (uint16_t)rnd();
		c->a[i + 1] = chance(50) ? W.text_va + below(PAGE_SIZE) : pick_va();
	}
#else
	for (int i = 0; i < 3; i++)
		c->a[i] = chance(50) ? W.text_va + below(PAGE_SIZE) : pick_va();
#endif
	c->flags |= FIX_CALLBACKS;
}

static void g_fpu_taskswitch(struct call *c)
{
	c->a[0] = rval();
}

/*
 * sched_op_compat: the pre-3.0.2 sched_op, argument by value. Yield, and block with our IPI
 * pending (it returns at once, with events enabled); not shutdown: its argument is the reason,
 * and any value shuts the domain down.
 */
static void g_sched_op_compat(struct call *c)
{
	bool in_mc = gen_in_mc;

	switch (below(4)) {
	case 0:
		if (!in_mc) {
			c->a[0] = SCHEDOP_block;
			c->flags |= PRE_IPI | FIX_EVENTS;
			break;
		}
		/* fall through */
	case 1:
		c->a[0] = SCHEDOP_yield;
		break;
	default:
		c->a[0] = 3 + below(64);			/* poll and beyond: not in the compat call */
		break;
	}
	c->a[1] = rval();
}

static void g_set_debugreg(struct call *c)
{
	uint64_t reg = chance(90) ? below(8) : rval();

	c->a[0] = reg;
#ifdef __i386__
	/* Xen takes any 32-bit address (access_ok); only ones we never touch: W2-W3, or nothing
	 * mapped (the hole past the m2p: mfn_to_pfn reads the m2p) */
	if (reg < 4) {
		switch (below(4)) {
		case 0: c->a[1] = W3 + below(PAGE_SIZE); break;
		case 1: c->a[1] = W2 + below(PAGE_SIZE); break;
		case 2: c->a[1] = W.hole_free + below(HOLE_END - W.hole_free); break;
		default: c->a[1] = NOMAP_START + below(1 << 30); break;
		}
		return;
	}
#endif
	if (reg < 4) {
		switch (below(5)) {
		case 0: c->a[1] = W3 + below(PAGE_SIZE); break;			/* nothing touches it */
		case 1: c->a[1] = W2 + below(PAGE_SIZE); break;			/* the shim reads it */
		case 2: c->a[1] = 0xffff800000000000ull + below(1 << 20); break;	/* refused */
		case 3: c->a[1] = 1ull << 47; break;
		default: c->a[1] = 0x0000100000000000ull + below(1 << 30); break;
		}
	} else if (reg == 7) {
		/*
		 * Enable only slots whose address nothing of ours runs or touches: a breakpoint on our
		 * own code or data would trap us. The shim's reads of W2 may hit one; that is its
		 * business (Xen notes it in DR6 and goes on).
		 */
		uint64_t v = rnd() & 0xffff0fffull;
		if (chance(10))
			v = rval();
		for (int i = 0; i < 4; i++) {
			uint64_t a = W.dr[i];
#ifdef __i386__
			bool safe = (a >= W2 && a < W3 + PAGE_SIZE) || (a >= NOMAP_START && a < HOLE_START) ||
				    a >= W.hole_free;
#else
			bool safe = (a >= W2 && a < W3 + PAGE_SIZE) || a >= (1ull << 44);
#endif
			if (!safe)
				v &= ~(3ull << (2 * i));
		}
		c->a[1] = v;
	} else {
		c->a[1] = rval();
	}
}

static void g_get_debugreg(struct call *c)
{
	c->a[0] = chance(90) ? below(9) : rval();
}

/* A segment descriptor: code, data, system or nothing, with random limits and DPLs. */
static uint64_t pick_desc(void)
{
	uint64_t type = chance(70) ? (0x8 | below(8)) : below(16);	/* code/data or system */
	uint64_t s = chance(80) ? 1 : 0, dpl = below(4), p = chance(85) ? 1 : 0;
	uint64_t l = chance(50), db = chance(50) ? 1 : 0, g = chance(50) ? 1 : 0;
	uint64_t d = (rnd() & 0xffff) | ((rnd() & 0xffffff) << 16) | (type << 40) | (s << 44) | (dpl << 45) |
		     (p << 47) | ((rnd() & 0xf) << 48) | (l << 53) | (db << 54) | (g << 55) |
		     ((rnd() & 0xff) << 56);

	return chance(10) ? rnd() : chance(10) ? 0 : d;
}

static void g_update_descriptor(struct call *c)
{
	c->a[0] = pte(pick_mfn(M_WRITE), 0) + (chance(85) ? below(512) * 8 : below(PAGE_SIZE));
	c->a[1] = pick_desc();
#ifdef __i386__
	/* compat_update_descriptor(pa_lo, pa_hi, desc_lo, desc_hi) */
	c->a[3] = c->a[1] >> 32;
	c->a[2] = (uint32_t)c->a[1];
	c->a[1] = c->a[0] >> 32;
#endif
}

/*
 * A reservation's extent list: mfns to give back (decrease), gpfns to fill (populate). The shim
 * reads and writes list[start..nr_extents): a count past what we listed only with the list
 * ending at unmapped W3, and a start extent within the list.
 */
static unsigned reservation(struct xen_memory_reservation *r, unsigned op, uint64_t *start)
{
	xen_pfn_t list[16];		/* 32 bits each in the 32-bit build */
	unsigned n = (unsigned)below(6);

	r->extent_order = chance(85) ? 0 : chance(50) ? (unsigned)below(4) : (unsigned)rval();
	/* an extent of order k is 2^k frames from its first: a spare frame's neighbours are ours */
	for (unsigned i = 0; i < n; i++)
		list[i] = op != XENMEM_decrease_reservation ? (chance(80) ? below(1 << 16) : rval())
			  : r->extent_order == 0 ? (chance(85) ? spare_mfn() : garbage_mfn()) : garbage_high();
	r->nr_extents = n;
	r->mem_flags = chance(70) ? 0 : chance(50) ? (unsigned)(below(48) << 8) : (unsigned)rnd();
	r->domid = chance(85) ? DOMID_SELF : pick_dom();
	*start = chance(10) ? below(n + 1) : 0;
	if (chance(10)) {
		r->nr_extents = chance(70) ? n + 1 + below(64) : rval();
		set_xen_guest_handle(r->extent_start, (xen_pfn_t *)(uintptr_t)place_at_end(list, MAX(n, 1u) * sizeof(list[0])));
	} else {
		set_xen_guest_handle(r->extent_start,
				     (xen_pfn_t *)(uintptr_t)place(list, MAX(n, 1u) * sizeof(list[0]), P_GEN));
	}
	return n;
}

static void g_memory_op(struct call *c)
{
	static const unsigned ops[] = {
		XENMEM_increase_reservation, XENMEM_decrease_reservation, XENMEM_maximum_ram_page,
		XENMEM_current_reservation, XENMEM_maximum_reservation, XENMEM_machphys_mfn_list,
		XENMEM_populate_physmap, XENMEM_add_to_physmap, XENMEM_memory_map, XENMEM_machine_memory_map,
		XENMEM_exchange, XENMEM_machphys_mapping, XENMEM_maximum_gpfn, XENMEM_remove_from_physmap,
	};
	unsigned op = chance(90) ? ops[below(ARRAY_SIZE(ops))] : (unsigned)below(64);
	uint64_t start = 0;

	switch (op) {
	case XENMEM_increase_reservation:
	case XENMEM_decrease_reservation:
	case XENMEM_populate_physmap: {
		struct xen_memory_reservation r;
		memset(&r, 0, sizeof(r));
		reservation(&r, op, &start);
		c->a[1] = place(&r, sizeof(r), P_GEN);
		break;
	}
	case XENMEM_exchange: {
		struct xen_memory_exchange x;
		uint64_t s2;
		memset(&x, 0, sizeof(x));
		unsigned n_in = reservation(&x.in, XENMEM_decrease_reservation, &s2);
		unsigned n_out = reservation(&x.out, XENMEM_populate_physmap, &s2);
		if (chance(60)) {			/* consistent sizes, so it gets going */
			x.in.nr_extents = x.out.nr_extents = MIN(n_in, n_out);
			x.out.extent_order = x.in.extent_order = 0;
			x.out.domid = x.in.domid;
		} else if (x.in.nr_extents > n_in || x.out.nr_extents > n_out) {
			/* a count past a list must not get as far as the lists: make the sizes differ */
			x.out.extent_order = x.in.extent_order = 0;
			x.out.nr_extents = x.in.nr_extents ^ 1;
		}
		/* progress so far indexes both lists: keep it within what we listed */
		x.nr_exchanged = chance(90) ? 0 : below(MIN(n_in, n_out) + 1);
		c->a[1] = place(&x, sizeof(x), P_GEN);
		break;
	}
	case XENMEM_current_reservation:
	case XENMEM_maximum_reservation:
	case XENMEM_maximum_gpfn: {
		domid_t d = chance(80) ? DOMID_SELF : pick_dom();
		c->a[1] = place(&d, sizeof(d), P_ANY);
		break;
	}
	case XENMEM_memory_map:
	case XENMEM_machine_memory_map: {
		struct xen_memory_map m = { .nr_entries = rcount(8) };
		set_xen_guest_handle(m.buffer, (void *)(uintptr_t)out_ptr(MIN(m.nr_entries, 8u) * 20));
		c->a[1] = place(&m, sizeof(m), P_GEN);
		break;
	}
	case XENMEM_machphys_mapping:
		c->a[1] = out_ptr(sizeof(struct xen_machphys_mapping));
		break;
	case XENMEM_machphys_mfn_list: {
		struct xen_machphys_mfn_list l = { .max_extents = rcount(8) };
		set_xen_guest_handle(l.extent_start,
				     (xen_pfn_t *)(uintptr_t)out_ptr(MIN(l.max_extents, 8u) * sizeof(xen_pfn_t)));
		c->a[1] = place(&l, sizeof(l), P_GEN);
		break;
	}
	default:
		c->a[1] = chance(70) ? blob(64, P_GEN) : bad_ptr();
		break;
	}
	c->a[0] = op | (start << 6);
	if (chance(3)) {
		/* a wild start extent: only with an argument nothing can be read from */
		c->a[0] = op | (rval() << 6);
		c->a[1] = bad_ptr();
	}
}

/* One generated entry of a multicall list; nested lists and direct-only forms are left out. */
static void g_multicall(struct call *c)
{
	multicall_entry_t l[MC_MAX + 4];
	unsigned n = 1 + (unsigned)below(MC_MAX), pad = 0;

	for (unsigned i = 0; i < n; i++) {
		struct call e;
		gen_call(&e, true);
		l[i].op = e.op;
		l[i].result = MC_SENTINEL;
		for (int j = 0; j < 6; j++)
			l[i].args[j] = e.a[j];
		c->flags |= e.flags;
	}
	if (chance(15)) {
		/* a nested multicall (refused) and ops that are no hypercall (-ENOSYS) */
		unsigned i = (unsigned)below(n);
		l[i].op = chance(50) ? __HYPERVISOR_multicall : 64 + below(1000);
		l[i].args[0] = W3;
		l[i].args[1] = 1 + below(4);
	}
	uint64_t count = n;
	if (chance(10)) {
		/* entries past the generated ones: only ENOSYS ops, and the list ends at W3 */
		pad = 1 + (unsigned)below(4);
		for (unsigned i = n; i < n + pad; i++) {
			l[i].op = 64 + below(1 << 20);
			l[i].result = MC_SENTINEL;
			for (int j = 0; j < 6; j++)
				l[i].args[j] = rnd();
		}
		c->a[0] = place_at_end(l, (n + pad) * sizeof(l[0]));
		count = n + pad + below(3);
	} else {
		c->a[0] = place(l, n * sizeof(l[0]), P_GEN);
	}
	if (chance(5))
		count = (1ull << 32) + count;			/* nr_calls is 32 bits */
	else if (chance(3))
		count = 0;
	c->a[1] = count;
}

/* An update_va_mapping target: our remappable pages, or addresses that must be refused. */
static uint64_t uvm_va(void)
{
#ifdef __i386__
	/* the hole (Xen's: refused), or where we have no tables */
	switch (below(10)) {
	case 0: return HOLE_START + (below(HOLE_END - HOLE_START) & ~(PAGE_SIZE - 1));
	case 1: return HOLE_START - PAGE_SIZE * (1 + below(4));
	case 2: return NOMAP_START + below(1 << 18) * PAGE_SIZE;
	case 3: return 0x80000000ull + below(1 << 18) * PAGE_SIZE;
	default: return (uint64_t)(uintptr_t)uvm_page[below(NUVM)] + (chance(90) ? 0 : below(PAGE_SIZE));
	}
#endif
	switch (below(10)) {
	case 0: return 0xffff800000000000ull + (rnd() & ((1ull << 43) - 1));
	case 1: return 0x8000000000000000ull | (rnd() & ((1ull << 47) - 1));
	case 2: return 0xffffffff80000000ull + below(1 << 19) * PAGE_SIZE;	/* no tables there */
	case 3: return 0x0000100000000000ull + below(1 << 20) * PAGE_SIZE;
	default: return (uint64_t)(uintptr_t)uvm_page[below(NUVM)] + (chance(90) ? 0 : below(PAGE_SIZE));
	}
}

static uint64_t uvm_flags(void)
{
	uint64_t type = below(4);			/* NONE, TLB_FLUSH, INVLPG, and the unused 3 */

	switch (below(6)) {
	case 0: return type | UVMF_ALL;
	case 1: return type | (place(&(uint64_t){ rnd() & 3 }, 8, P_ANY) & ~3ull);	/* a vCPU mask */
	case 2: return rval();
	default: return type | UVMF_LOCAL;
	}
}

/* The arguments after the PTE: 2 in the 64-bit call, 3 in the 32-bit one (the PTE in two). */
#ifdef __i386__
#define UVM_FLAGS 3
#else
#define UVM_FLAGS 2
#endif

static void g_update_va_mapping(struct call *c)
{
	c->a[0] = uvm_va();
	c->a[1] = pick_pte();
#ifdef __i386__
	/* compat_update_va_mapping(va, lo, hi, flags) */
	c->a[2] = c->a[1] >> 32;
	c->a[1] = (uint32_t)c->a[1];
#endif
	c->a[UVM_FLAGS] = uvm_flags();
}

static void g_update_va_mapping_otherdomain(struct call *c)
{
	g_update_va_mapping(c);
	c->a[UVM_FLAGS + 1] = chance(50) ? DOMID_SELF : pick_dom();	/* DOMID_SELF: as update_va_mapping */
}

static void g_set_timer_op(struct call *c)
{
	switch (below(6)) {
	case 0: c->a[0] = 0; break;
	case 1: c->a[0] = W.now_ns - below(1000000000); break;
	case 2: c->a[0] = W.now_ns + below(3000000); break;
	case 3: c->a[0] = (1ull << 63) + below(1000); break;	/* Linux's wrapped jiffies */
	default: c->a[0] = rval(); break;
	}
#ifdef __i386__
	/* compat_set_timer_op(lo, hi) */
	c->a[1] = c->a[0] >> 32;
	c->a[0] = (uint32_t)c->a[0];
#endif
}

/* An event-channel op's argument, by command. */
static uint64_t evtchn_arg(unsigned cmd)
{
	switch (cmd) {
	case EVTCHNOP_bind_interdomain: {
		struct evtchn_bind_interdomain b = {
			.remote_dom = chance(50) ? DOMID_SELF : pick_dom(),
			.remote_port = pick_port(false), .local_port = (uint32_t)rnd(),
		};
		return place(&b, sizeof(b), P_GEN);
	}
	case EVTCHNOP_bind_virq: {
		struct evtchn_bind_virq b = {
			.virq = chance(85) ? (uint32_t)below(NR_VIRQS + 2) : rcount(64),
			.vcpu = chance(85) ? 0 : rcount(4), .port = (uint32_t)rnd(),
		};
		return place(&b, sizeof(b), P_GEN);
	}
	case EVTCHNOP_bind_pirq: {
		struct evtchn_bind_pirq b = { .pirq = rcount(64), .flags = (uint32_t)rnd() };
		return place(&b, sizeof(b), P_GEN);
	}
	case EVTCHNOP_close:
	case EVTCHNOP_send:
	case EVTCHNOP_unmask: {
		/* close never names our own ports: that ends our console and events */
		uint32_t p = pick_port(cmd != EVTCHNOP_close);
		return place(&p, sizeof(p), P_GEN);
	}
	case EVTCHNOP_status: {
		struct evtchn_status s = { .dom = chance(80) ? DOMID_SELF : pick_dom(), .port = pick_port(true) };
		return place(&s, sizeof(s), P_GEN);
	}
	case EVTCHNOP_alloc_unbound: {
		struct evtchn_alloc_unbound a = {
			.dom = chance(80) ? DOMID_SELF : pick_dom(),
			.remote_dom = chance(50) ? 0 : pick_dom(), .port = (uint32_t)rnd(),
		};
		return place(&a, sizeof(a), P_GEN);
	}
	case EVTCHNOP_bind_ipi: {
		struct evtchn_bind_ipi b = { .vcpu = chance(85) ? 0 : rcount(4), .port = (uint32_t)rnd() };
		return place(&b, sizeof(b), P_GEN);
	}
	case EVTCHNOP_bind_vcpu: {
		struct evtchn_bind_vcpu b = { .port = pick_port(false), .vcpu = chance(70) ? 0 : rcount(4) };
		return place(&b, sizeof(b), P_GEN);
	}
	case EVTCHNOP_reset:
	case 14: {					/* reset_cont */
		/* never ourselves: a reset closes our console and store ports */
		struct evtchn_reset r = { .dom = other_dom() };
		return chance(80) ? place(&r, sizeof(r), P_GEN) : bad_ptr();
	}
	case EVTCHNOP_init_control: {
		/* FIFO would leave our 2-level event handling behind: only frames that are not ours */
		struct evtchn_init_control i = {
			.control_gfn = garbage_mfn(), .offset = (uint32_t)rval(), .vcpu = rcount(4),
		};
		return place(&i, sizeof(i), P_GEN);
	}
	default:
		return chance(70) ? blob(32, P_GEN) : bad_ptr();
	}
}

/* A command from a weighted list (repeats weigh more), or now and then any number. */
static unsigned pick_cmd(const unsigned *w, size_t n)
{
	return chance(91) ? w[below(n)] : (unsigned)rcount(40);
}

static unsigned evtchn_cmd(void)
{
	static const unsigned w[] = {
		EVTCHNOP_bind_interdomain, EVTCHNOP_bind_virq, EVTCHNOP_bind_virq, EVTCHNOP_bind_pirq,
		EVTCHNOP_close, EVTCHNOP_close, EVTCHNOP_send, EVTCHNOP_send, EVTCHNOP_status,
		EVTCHNOP_alloc_unbound, EVTCHNOP_alloc_unbound, EVTCHNOP_bind_ipi, EVTCHNOP_bind_ipi,
		EVTCHNOP_bind_vcpu, EVTCHNOP_unmask, EVTCHNOP_reset, EVTCHNOP_init_control,
		EVTCHNOP_expand_array, EVTCHNOP_set_priority, 14,
	};

	return pick_cmd(w, ARRAY_SIZE(w));
}

static void g_event_channel_op(struct call *c)
{
	unsigned cmd = evtchn_cmd();

	c->a[0] = cmd;
	c->a[1] = evtchn_arg(cmd);
}

/*
 * The compat calls (event_channel_op_compat, physdev_op_compat) take one struct: a 32-bit cmd,
 * then the modern call's argument at offset off. Its bytes come from where the modern generator
 * placed them; if they did not land in the window: zeros, and a risky command (one whose
 * argument could name something of ours in the garbage) becomes one that does not exist.
 */
static uint64_t compat_struct(void *op, size_t size, size_t off, uint32_t cmd, uint64_t inner, bool risky)
{
	memset(op, 0, size);
	*(uint32_t *)op = cmd;
	if (!win_read(inner, (uint8_t *)op + off, size - off) && risky)
		*(uint32_t *)op = 99;
	return place(op, size, P_GEN);
}

/* event_channel_op_compat: only the commands the compat call knows, with the modern rules. */
static void g_event_channel_op_compat(struct call *c)
{
	struct evtchn_op op;
	unsigned cmd = evtchn_cmd();
	uint64_t inner = evtchn_arg(cmd);

	c->a[0] = compat_struct(&op, sizeof(op), offsetof(struct evtchn_op, u), cmd, inner,
				cmd == EVTCHNOP_close || cmd == EVTCHNOP_bind_vcpu || cmd == EVTCHNOP_reset);
}

static void g_xen_version(struct call *c)
{
	uint64_t cmd = chance(90) ? below(12) : rval();

	c->a[0] = cmd;
	if (cmd == XENVER_get_features) {
		xen_feature_info_t f = { .submap_idx = chance(70) ? 0 : rcount(4), .submap = (uint32_t)rnd() };
		c->a[1] = place(&f, sizeof(f), P_ANY);
	} else if (cmd == XENVER_build_id) {
		struct { uint32_t len; } b = { rcount(64) };
		c->a[1] = place(&b, sizeof(b), P_GEN);
	} else {
		c->a[1] = chance(80) ? out_ptr(1024) : chance(50) ? 0 : bad_ptr();
	}
}

/*
 * console_io: writes of short whole lines we made, at most one 128-byte chunk (so a write is
 * printed whole or not at all, and never glues onto a line of ours), long counts only from
 * pointers nothing can be read from; reads into the window or the sink.
 */
static void g_console_io(struct call *c)
{
	static unsigned nr;
	unsigned r = (unsigned)below(10);

	if (r < 6) {
		char line[48];
		int n = snprintf(line, sizeof(line), "hcfuzz console_io %u\n", ++nr);
		c->a[0] = CONSOLEIO_write;
		c->a[1] = (unsigned)n;
		c->a[2] = place(line, (size_t)n, P_GEN);
		if (chance(20)) {
			c->a[1] = chance(50) ? rval() : below(1 << 20);
			c->a[2] = bad_ptr();
		}
		if (chance(5))
			c->a[1] = 0;
	} else if (r < 8) {
		c->a[0] = CONSOLEIO_read;
		c->a[1] = rcount(256);
		c->a[2] = out_ptr(MIN(c->a[1], 1024ull));
		if (c->a[1] > 1024 && c->a[2] >= S0)
			c->a[2] = bad_ptr();
	} else {
		c->a[0] = rval();
		c->a[1] = rcount(64);
		c->a[2] = bad_ptr();
	}
}

/* physdev_op (and the compat call's struct): the few a domU may use, and the privileged rest. */
static uint64_t physdev_arg(unsigned cmd)
{
	switch (cmd) {
	case PHYSDEVOP_set_iopl: {
		struct physdev_set_iopl s = { .iopl = chance(80) ? (uint32_t)below(4) : rcount(8) };
		return place(&s, sizeof(s), P_ANY);
	}
	case PHYSDEVOP_set_iobitmap: {
		struct physdev_set_iobitmap s = { .nr_ports = rcount(65536) };
		set_xen_guest_handle(s.bitmap, (uint8_t *)(uintptr_t)(chance(50) ? W0 + below(CONTENT) : bad_ptr()));
		return place(&s, sizeof(s), P_GEN);
	}
	case PHYSDEVOP_pirq_eoi_gmfn_v1:
	case PHYSDEVOP_pirq_eoi_gmfn_v2: {
		/* Xen keeps the frame as the PIRQ EOI map, writable: never one of our live frames */
		struct physdev_pirq_eoi_gmfn g = { .gmfn = pick_mfn(M_WRITE) };
		return place(&g, sizeof(g), P_GEN);
	}
	default:
		return chance(70) ? blob(48, P_GEN) : bad_ptr();
	}
}

static unsigned physdev_cmd(void)
{
	static const unsigned w[] = {
		PHYSDEVOP_set_iopl, PHYSDEVOP_set_iopl, PHYSDEVOP_set_iobitmap, PHYSDEVOP_set_iobitmap,
		PHYSDEVOP_eoi, PHYSDEVOP_irq_status_query, PHYSDEVOP_pirq_eoi_gmfn_v1,
		PHYSDEVOP_pirq_eoi_gmfn_v2, PHYSDEVOP_map_pirq, PHYSDEVOP_unmap_pirq,
		PHYSDEVOP_get_free_pirq, PHYSDEVOP_apic_read, PHYSDEVOP_alloc_irq_vector,
		PHYSDEVOP_manage_pci_add, PHYSDEVOP_setup_gsi, PHYSDEVOP_dbgp_op,
	};

	return pick_cmd(w, ARRAY_SIZE(w));
}

static void g_physdev_op(struct call *c)
{
	unsigned cmd = physdev_cmd();

	c->a[0] = cmd;
	c->a[1] = physdev_arg(cmd);
}

static void g_physdev_op_compat(struct call *c)
{
	struct physdev_op op;
	unsigned cmd = physdev_cmd();
	uint64_t inner = physdev_arg(cmd);

	/* the EOI map's frame must be one we chose */
	c->a[0] = compat_struct(&op, sizeof(op), offsetof(struct physdev_op, u), cmd, inner,
				cmd == PHYSDEVOP_pirq_eoi_gmfn_v1 || cmd == PHYSDEVOP_pirq_eoi_gmfn_v2);
}

static void g_grant_table_op(struct call *c)
{
	uint64_t cmd = chance(85) ? (chance(60) ? (chance(50) ? GNTTABOP_setup_table : GNTTABOP_query_size)
						: below(13))
				  : rval();

	c->a[0] = cmd;
	c->a[2] = chance(85) ? 1 : rcount(4);
	if (cmd == GNTTABOP_setup_table) {
		struct gnttab_setup_table s = { .dom = chance(80) ? DOMID_SELF : pick_dom(), .nr_frames = rcount(8) };
		set_xen_guest_handle(s.frame_list, (xen_pfn_t *)(uintptr_t)out_ptr(MIN(s.nr_frames, 8u) * sizeof(xen_pfn_t)));
		c->a[1] = place(&s, sizeof(s), P_GEN);
	} else if (cmd == GNTTABOP_query_size) {
		struct gnttab_query_size q = { .dom = chance(80) ? DOMID_SELF : pick_dom() };
		c->a[1] = place(&q, sizeof(q), P_GEN);
#ifdef __i386__
		/* bad_ptr's hole is unmapped; what a 32-bit guest can name of the hypervisor's range
		 * that is mapped is the compat m2p (read-only, Xen's own): query_size has no other
		 * effect, so it may read it (the stock shim hands this pointer on to L0) */
		if (chance(10))
			c->a[1] = W.m2p_va + below((W.hole_free - W.m2p_va) / 8) * 8;
#endif
	} else {
		c->a[1] = chance(70) ? blob(64, P_GEN) : bad_ptr();
	}
}

static void g_vm_assist(struct call *c)
{
	c->a[0] = chance(85) ? below(3) : rval();
	c->a[1] = chance(85) ? (chance(80) ? below(6) : 32 + below(2)) : rval();
}

static void g_vcpu_op(struct call *c)
{
	unsigned cmd = chance(92) ? (unsigned)below(15) : (unsigned)rcount(64);
	uint32_t vcpu = chance(85) ? 0 : rcount(4);

	/* taking our only vCPU down ends the domain (the last one going down is a poweroff) */
	if (cmd == VCPUOP_down && vcpu == 0)
		vcpu = 1 + (uint32_t)below(100);
	c->a[0] = cmd;
	c->a[1] = vcpu;
	switch (cmd) {
	case VCPUOP_initialise:
		/* vCPU 0 runs already (-EEXIST), and we have no other: any context will do */
		c->a[2] = chance(70) ? blob(512, P_GEN) : bad_ptr();
		break;
	case VCPUOP_get_runstate_info:
		c->a[2] = out_ptr(sizeof(struct vcpu_runstate_info));
		break;
	case VCPUOP_register_runstate_memory_area:
	case VCPUOP_register_vcpu_time_memory_area: {
		/* the shim writes there from now on, at any time: the sink, or places that fault */
		uint64_t a = chance(20) ? 0 : area_ptr();
		c->a[2] = place(&a, sizeof(a), P_GEN);
			break;
	}
	case VCPUOP_set_periodic_timer: {
		struct vcpu_set_periodic_timer p = {
			.period_ns = chance(60) ? 1000000 + below(50000000) : rval(),
		};
		c->a[2] = place(&p, sizeof(p), P_ANY);
			break;
	}
	case VCPUOP_set_singleshot_timer: {
		struct vcpu_set_singleshot_timer s = {
			.timeout_abs_ns = chance(60) ? W.now_ns + below(3000000) : rval(),
			.flags = chance(70) ? (uint32_t)below(2) : (uint32_t)rnd(),
		};
		c->a[2] = place(&s, sizeof(s), P_ANY);
			break;
	}
	case VCPUOP_register_vcpu_info: {
		/*
		 * Moving vcpu_info would leave our event mask behind: only forms that are refused,
		 * frames that are not ours, or an offset past the end of the page.
		 */
		struct vcpu_register_vcpu_info i = { .mfn = garbage_mfn(), .offset = (uint32_t)rval() };
		if (chance(50)) {
			i.mfn = pick_mfn(M_WRITE);
			i.offset = PAGE_SIZE - 63 + (uint32_t)below(1 << 20);
		}
		c->a[2] = place(&i, sizeof(i), P_GEN);
		break;
	}
	case VCPUOP_send_nmi:
		c->a[2] = chance(80) ? 0 : rval();	/* our NMI handler counts them */
		break;
	default:
		c->a[2] = chance(70) ? blob(32, P_GEN) : chance(50) ? 0 : bad_ptr();
		break;
	}
}

static void g_set_segment_base(struct call *c)
{
	c->a[0] = chance(90) ? below(5) : rval();
	c->a[1] = chance(50) ? pick_va() : chance(50) ? below(0x10000) : rval();
}

static void mmuext_one(struct mmuext_op *op)
{
	static const unsigned w[] = {
		MMUEXT_PIN_L1_TABLE, MMUEXT_PIN_L2_TABLE, MMUEXT_PIN_L3_TABLE, MMUEXT_PIN_L4_TABLE,
		MMUEXT_PIN_L1_TABLE, MMUEXT_PIN_L2_TABLE, MMUEXT_PIN_L3_TABLE, MMUEXT_PIN_L4_TABLE,
		MMUEXT_UNPIN_TABLE, MMUEXT_UNPIN_TABLE, MMUEXT_UNPIN_TABLE, MMUEXT_NEW_BASEPTR,
		MMUEXT_TLB_FLUSH_LOCAL, MMUEXT_INVLPG_LOCAL, MMUEXT_TLB_FLUSH_MULTI, MMUEXT_INVLPG_MULTI,
		MMUEXT_TLB_FLUSH_ALL, MMUEXT_INVLPG_ALL, MMUEXT_FLUSH_CACHE, MMUEXT_SET_LDT,
		MMUEXT_NEW_USER_BASEPTR, MMUEXT_NEW_USER_BASEPTR, MMUEXT_CLEAR_PAGE, MMUEXT_COPY_PAGE,
		MMUEXT_MARK_SUPER, MMUEXT_UNMARK_SUPER, MMUEXT_FLUSH_CACHE_GLOBAL,
	};
	unsigned cmd = chance(95) ? w[below(ARRAY_SIZE(w))] : 22 + (unsigned)rcount(100);

	memset(op, 0, sizeof(*op));
	op->cmd = cmd;
	switch (cmd) {
	case MMUEXT_PIN_L1_TABLE: case MMUEXT_PIN_L2_TABLE: case MMUEXT_PIN_L3_TABLE:
	case MMUEXT_PIN_L4_TABLE: case MMUEXT_UNPIN_TABLE: case MMUEXT_MARK_SUPER:
	case MMUEXT_UNMARK_SUPER:
		op->arg1.mfn = pick_mfn(M_PIN);
		break;
	case MMUEXT_NEW_USER_BASEPTR:
		op->arg1.mfn = chance(15) ? 0 : pick_mfn(M_PIN);
		break;
	case MMUEXT_NEW_BASEPTR:
		op->arg1.mfn = pick_mfn(M_BASE);
		break;
	case MMUEXT_INVLPG_LOCAL: case MMUEXT_INVLPG_ALL:
		op->arg1.linear_addr = pick_va();
		break;
	case MMUEXT_TLB_FLUSH_MULTI: case MMUEXT_INVLPG_MULTI:
		op->arg1.linear_addr = pick_va();
		op->arg2.vcpumask.p = (void *)(uintptr_t)place(&(uint64_t){ chance(70) ? 1 : rnd() }, 8, P_ANY);
		break;
	case MMUEXT_SET_LDT:
		op->arg1.linear_addr = chance(50) ? pick_va() & ~(PAGE_SIZE - 1) : pick_va();
		op->arg2.nr_ents = chance(20) ? 0 : rcount(8192);
		break;
	case MMUEXT_CLEAR_PAGE:
		op->arg1.mfn = pick_mfn(M_WRITE);
		break;
	case MMUEXT_COPY_PAGE:
		op->arg1.mfn = pick_mfn(M_WRITE);
		op->arg2.src_mfn = pick_mfn(M_VALUE);
		break;
	default:
		op->arg1.mfn = rnd();
		op->arg2.src_mfn = rnd();
		break;
	}
}

static void g_mmuext_op(struct call *c)
{
	struct mmuext_op ops[8];
	unsigned n = 1 + (unsigned)below(6);

	for (unsigned i = 0; i < n; i++)
		mmuext_one(&ops[i]);
	uint32_t count = n;
	if (chance(10)) {
		count = n + 1 + (uint32_t)below(50);
		c->a[0] = place_at_end(ops, n * sizeof(ops[0]));
	} else {
		c->a[0] = place(ops, n * sizeof(ops[0]), P_GEN);
		if (chance(5))
			count = 0;
	}
	c->a[1] = chance(95) ? count : chance(50) ? (1ull << 32) + count : count | 0x80000000u;
	c->a[2] = chance(60) ? out_ptr(4) : chance(50) ? 0 : bad_ptr();
	c->a[3] = chance(85) ? DOMID_SELF : pick_dom();
}

static void g_nmi_op(struct call *c)
{
	c->a[0] = chance(90) ? below(2) : rval();
#ifdef __i386__
	/* no non-canonical address: any other; FIX_NMI puts ours back at once */
	struct xennmi_callback cb = { .handler_address = chance(50) ? (uintptr_t)nmi_entry : (uint32_t)rnd() };
#else
	struct xennmi_callback cb = {
		.handler_address = chance(50) ? (uint64_t)nmi_entry : 0x8000000000000000ull | rnd(),
	};
#endif
	c->a[1] = place(&cb, sizeof(cb), P_GEN);
	c->flags |= FIX_NMI;
}

/*
 * sched_op. Not shutdown with a struct that can be read (any reason ends the domain; the stock
 * shim takes even a reason > SHUTDOWN_MAX), nor remote_shutdown of ourselves, nor a watchdog
 * that would fire (id 0 makes one): shutdown only through unreadable pointers, a watchdog only
 * with an id that names none. Block only with an event pending; poll with a near timeout, or
 * with our pending IPI in the list.
 */
static void g_sched_op(struct call *c)
{
	bool in_mc = gen_in_mc;

	unsigned cmd = chance(92) ? (unsigned)below(8) : (unsigned)rcount(64);

	c->a[0] = cmd;
	switch (cmd) {
	case SCHEDOP_yield:
		c->a[1] = rval();
		break;
	case SCHEDOP_block:
		if (in_mc) {
			c->a[0] = SCHEDOP_yield;
			break;
		}
		c->flags |= PRE_IPI | FIX_EVENTS;
		break;
	case SCHEDOP_shutdown:
		c->a[1] = bad_ptr();
		break;
	case SCHEDOP_poll: {
		uint32_t ports[130];
		unsigned n = (unsigned)below(8);
		struct sched_poll p;
		for (unsigned i = 0; i < n; i++)
			ports[i] = pick_port(true);
		memset(&p, 0, sizeof(p));
		p.nr_ports = chance(90) ? n : rcount(200);
		p.timeout = W.now_ns + 1000 + below(2000000);
		if (chance(10))
			p.timeout = 1;			/* long past */
		if (!in_mc && chance(15)) {
			/* no timeout: it must return because our IPI is pending and listed */
			ports[n] = W.ipi;
			n++;
			p.nr_ports = n;
			p.timeout = 0;
			c->flags |= PRE_IPI;
		}
		if (p.nr_ports > n)
			set_xen_guest_handle(p.ports, (evtchn_port_t *)(uintptr_t)place_at_end(ports, MAX(n, 1u) * 4));
		else
			set_xen_guest_handle(p.ports, (evtchn_port_t *)(uintptr_t)place(ports, MAX(n, 1u) * 4, P_GEN));
		/* with no timeout, a list that is not readable in full would fail the call: fine */
		c->a[1] = place(&p, sizeof(p), P_GEN);
		break;
	}
	case SCHEDOP_remote_shutdown:
		c->a[1] = PLACED(P_GEN, struct sched_remote_shutdown, { .domain_id = other_dom(), .reason = (unsigned)rval() });
		break;
	case SCHEDOP_shutdown_code:
		c->a[1] = PLACED(P_ANY, struct sched_shutdown, { .reason = (unsigned)rval() });
		break;
	case SCHEDOP_watchdog:
		c->a[1] = PLACED(P_GEN, struct sched_watchdog, { .id = 1 + (uint32_t)below(64), .timeout = (uint32_t)rval() });
		break;
	case SCHEDOP_pin_override:
		c->a[1] = PLACED(P_ANY, struct sched_pin_override, { .pcpu = (int32_t)rval() });
		break;
	default:
		c->a[1] = bad_ptr();
		break;
	}
}

static void g_callback_op(struct call *c)
{
	unsigned cmd = chance(90) ? (unsigned)below(2) : (unsigned)rcount(8);

	c->a[0] = cmd;
	if (cmd == CALLBACKOP_unregister) {
		struct callback_unregister u = { .type = chance(85) ? (uint16_t)below(7) : (uint16_t)rnd() };
		c->a[1] = place(&u, sizeof(u), P_GEN);
	} else {
#ifdef __i386__
		struct callback_register r = {
			.type = chance(85) ? (uint16_t)below(7) : (uint16_t)rnd(),
			.flags = (uint16_t)rnd(),
		};
		/* a 32-bit guest's callback is cs:eip (xen_callback_t, xen-x86_32.h) */
		r.address.cs = chance(70) ? FLAT_KERNEL_CS : (uint16_t)rnd();
		r.address.eip = chance(50) ? W.text_va + below(PAGE_SIZE) : pick_va();
#else
		struct callback_register r = {
			.type = chance(85) ? (uint16_t)below(7) : (uint16_t)rnd(),
			.flags = (uint16_t)rnd(),
			.address = chance(50) ? W.text_va + below(PAGE_SIZE) : pick_va(),
		};
#endif
		c->a[1] = place(&r, sizeof(r), P_GEN);
	}
	c->flags |= FIX_CALLBACKS | FIX_NMI;
}

/* Numbers with no call we know the shape of here (or none at all): anything, pointers ours. */
static void opaque(struct call *c)
{
	for (int i = 0; i < 5; i++)
		c->a[i] = chance(50) ? blob(64 + below(192), P_GEN) : chance(50) ? rval() : bad_ptr();
}

/* The generator of each number; the others get opaque(). */
static void (*const gens[64])(struct call *c) = {
	[__HYPERVISOR_set_trap_table] = g_set_trap_table, [__HYPERVISOR_mmu_update] = g_mmu_update,
	[__HYPERVISOR_set_gdt] = g_set_gdt, [__HYPERVISOR_stack_switch] = g_stack_switch,
	[__HYPERVISOR_set_callbacks] = g_set_callbacks, [__HYPERVISOR_fpu_taskswitch] = g_fpu_taskswitch,
	[__HYPERVISOR_sched_op_compat] = g_sched_op_compat, [__HYPERVISOR_set_debugreg] = g_set_debugreg,
	[__HYPERVISOR_get_debugreg] = g_get_debugreg, [__HYPERVISOR_update_descriptor] = g_update_descriptor,
	[__HYPERVISOR_memory_op] = g_memory_op, [__HYPERVISOR_multicall] = g_multicall,
	[__HYPERVISOR_update_va_mapping] = g_update_va_mapping, [__HYPERVISOR_set_timer_op] = g_set_timer_op,
	[__HYPERVISOR_event_channel_op_compat] = g_event_channel_op_compat,
	[__HYPERVISOR_xen_version] = g_xen_version, [__HYPERVISOR_console_io] = g_console_io,
	[__HYPERVISOR_physdev_op_compat] = g_physdev_op_compat, [__HYPERVISOR_grant_table_op] = g_grant_table_op,
	[__HYPERVISOR_vm_assist] = g_vm_assist,
	[__HYPERVISOR_update_va_mapping_otherdomain] = g_update_va_mapping_otherdomain,
	[__HYPERVISOR_vcpu_op] = g_vcpu_op, [__HYPERVISOR_set_segment_base] = g_set_segment_base,
	[__HYPERVISOR_mmuext_op] = g_mmuext_op, [__HYPERVISOR_nmi_op] = g_nmi_op,
	[__HYPERVISOR_sched_op] = g_sched_op, [__HYPERVISOR_callback_op] = g_callback_op,
	[__HYPERVISOR_event_channel_op] = g_event_channel_op, [__HYPERVISOR_physdev_op] = g_physdev_op,
};

/* ---------------- choosing the number ---------------- */

/* Each number's weight: the PV MMU, multicall, events and memory most, unused numbers least. */
static const uint8_t weight[64] = {
	[__HYPERVISOR_set_trap_table] = 3, [__HYPERVISOR_mmu_update] = 14, [__HYPERVISOR_set_gdt] = 4,
	[__HYPERVISOR_stack_switch] = 2, [__HYPERVISOR_set_callbacks] = 3, [__HYPERVISOR_fpu_taskswitch] = 2,
	[__HYPERVISOR_sched_op_compat] = 3, [__HYPERVISOR_platform_op] = 2, [__HYPERVISOR_set_debugreg] = 4,
	[__HYPERVISOR_get_debugreg] = 2, [__HYPERVISOR_update_descriptor] = 5, [__HYPERVISOR_memory_op] = 10,
	[__HYPERVISOR_multicall] = 8, [__HYPERVISOR_update_va_mapping] = 8, [__HYPERVISOR_set_timer_op] = 3,
	[__HYPERVISOR_event_channel_op_compat] = 3, [__HYPERVISOR_xen_version] = 3,
	[__HYPERVISOR_console_io] = 3, [__HYPERVISOR_physdev_op_compat] = 2,
	[__HYPERVISOR_grant_table_op] = 5, [__HYPERVISOR_vm_assist] = 3,
	[__HYPERVISOR_update_va_mapping_otherdomain] = 3, [__HYPERVISOR_vcpu_op] = 8,
	[__HYPERVISOR_set_segment_base] = 3, [__HYPERVISOR_mmuext_op] = 14, [__HYPERVISOR_xsm_op] = 1,
	[__HYPERVISOR_nmi_op] = 2, [__HYPERVISOR_sched_op] = 6, [__HYPERVISOR_callback_op] = 3,
	[__HYPERVISOR_xenoprof_op] = 1, [__HYPERVISOR_event_channel_op] = 12, [__HYPERVISOR_physdev_op] = 4,
	[__HYPERVISOR_hvm_op] = 2, [__HYPERVISOR_sysctl] = 1, [__HYPERVISOR_domctl] = 1,
	[__HYPERVISOR_kexec_op] = 1, [__HYPERVISOR_tmem_op] = 1, [__HYPERVISOR_argo_op] = 1,
	[__HYPERVISOR_xenpmu_op] = 1, [__HYPERVISOR_dm_op] = 1, [__HYPERVISOR_hypfs_op] = 1,
	[__HYPERVISOR_arch_0] = 1,
};

/* The numbers that may not stand in a multicall list: their effect must be undone at once. */
static bool direct_only(unsigned nr)
{
	switch (nr) {
	case __HYPERVISOR_set_trap_table:
	case __HYPERVISOR_set_callbacks:
	case __HYPERVISOR_callback_op:
	case __HYPERVISOR_nmi_op:
	case __HYPERVISOR_set_debugreg:
	case __HYPERVISOR_multicall:
	case __HYPERVISOR_iret:
		return true;
	default:
		return false;
	}
}

static unsigned pick_nr(bool in_mc)
{
	static unsigned total;

	if (!total)
		for (unsigned i = 0; i < 64; i++)
			total += weight[i] ? weight[i] : 1;
	for (;;) {
		uint64_t x = below(total);
		unsigned nr = 0;
		while (x >= (weight[nr] ? weight[nr] : 1u))
			x -= weight[nr] ? weight[nr] : 1u, nr++;
		/* iret reshapes our registers by design (the multicall guest checks it with a frame) */
		if (nr == __HYPERVISOR_iret)
			continue;
		if (in_mc && direct_only(nr))
			continue;
		return nr;
	}
}

void gen_call(struct call *c, bool in_mc)
{
	unsigned nr = pick_nr(in_mc);

	memset(c, 0, sizeof(*c));
	c->op = nr;
	for (int i = 0; i < 6; i++)
		c->a[i] = rnd();		/* arguments a call does not take: anything */
	gen_in_mc = in_mc;
	(gens[nr] ? gens[nr] : opaque)(c);
#ifdef __i386__
	if (!in_mc && chance(1))
		c->op |= 1ull << (6 + below(26));	/* a number with high bits: -ENOSYS */
	/* what a 32-bit guest passes: eax and ebx..edi, 32 bits each (the generators split
	 * the 64-bit values of the compat calls into halves themselves) */
	c->op = (uint32_t)c->op;
	for (int i = 0; i < 6; i++)
		c->a[i] = (uint32_t)c->a[i];
#else
	if (!in_mc && chance(1))
		c->op |= (1ull << 32) << below(31);	/* a number with high bits: -ENOSYS */
#endif
}

const char *hc_name(uint64_t op)
{
	static const char *const names[64] = {
		"set_trap_table", "mmu_update", "set_gdt", "stack_switch", "set_callbacks",
		"fpu_taskswitch", "sched_op_compat", "platform_op", "set_debugreg", "get_debugreg",
		"update_descriptor", NULL, "memory_op", "multicall", "update_va_mapping", "set_timer_op",
		"event_channel_op_compat", "xen_version", "console_io", "physdev_op_compat",
		"grant_table_op", "vm_assist", "update_va_mapping_otherdomain", "iret", "vcpu_op",
		"set_segment_base", "mmuext_op", "xsm_op", "nmi_op", "sched_op", "callback_op",
		"xenoprof_op", "event_channel_op", "physdev_op", "hvm_op", "sysctl", "domctl",
		"kexec_op", "tmem_op", "argo_op", "xenpmu_op", "dm_op", "hypfs_op",
	};

	if (op < 64 && names[op])
		return names[op];
	if (op >= 48 && op < 56)
		return op == 48 ? "mca" : "arch";
	return op < 64 ? "unused" : "beyond 63";
}
