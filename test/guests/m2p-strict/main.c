/*
 * m2p-strict: which L4s map the read-only m2p (public/xen.h VMASST_TYPE_m2p_strict; Xen 4.17's
 * init_xen_l4_slots, fill_ro_mpt and zap_ro_mpt, called from promote_l4_table, new_guest_cr3 and
 * MMUEXT_NEW_USER_BASEPTR).
 *
 * The m2p (L4 slot 256) tells machine frames, which user mode has no business seeing. Xen's
 * rule: without m2p_strict an L4 is made with the slot blank, and it is filled when the L4
 * becomes a kernel base, so an L4 only ever used for user mode has none; with m2p_strict an L4
 * is made with it, and it is zapped when the L4 becomes a user base (and, the assist on, not
 * filled again as a kernel base). A hypervisor that puts the m2p in every L4 shows it to every
 * user process. Checked, by reading the L4s themselves (the guest may read its page tables):
 * the boot L4 has the slot; a new L4 has none, keeps none as a user base, gets it as a kernel base
 * (and the m2p reads); VMASST_TYPE_m2p_strict can be enabled; then a new L4 has the slot, loses it
 * as a user base, stays without it as a kernel base (the m2p read faults), and gets it back as a
 * kernel base once the assist is disabled again.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"

const char test_title[] = "m2p-strict: the read-only m2p slot in kernel and user L4s, with and without m2p_strict";

#define SLOT 256

static uint64_t *kl4;

/* A new L4 with the boot L4's guest mappings, pinned (validated). */
static uint64_t *new_l4(void)
{
	uint64_t *l4 = page_alloc();

	for (unsigned int i = 0; i < 512; i++)
		if (i < 256 || i > 271)
			l4[i] = kl4[i];
	if (page_ro(l4) || pin(4, l4))
		test_fail("cannot pin a new L4");
	return l4;
}

static uint64_t slot(const uint64_t *l4)
{
	return ((const volatile uint64_t *)l4)[SLOT];
}

static void base(const char *what, unsigned int cmd, const uint64_t *l4)
{
	long rc = mmuext1(cmd, l4 ? virt_to_mfn(l4) : 0);

	if (rc)
		test_fail("%s: %ld %s", what, rc, errno_name(rc));
}

/* Read the m2p's entry for our first frame: true if it reads (and is right). */
static bool m2p_reads(void)
{
	unsigned long mfn = pfn_to_mfn((unsigned long)_image_start >> PAGE_SHIFT);
	uint64_t v = 0;

	return probe_read((const void *)&machine_to_phys_mapping[mfn], &v) &&
	       (v & 0xffffffffffful) == (unsigned long)_image_start >> PAGE_SHIFT;
}

void test_main(void)
{
	kl4 = (uint64_t *)start_info->pt_base;
	uint64_t m2p = slot(kl4);
	check(m2p & 1, "the boot L4, a kernel base, maps the m2p (slot %d: %#lx)", SLOT, m2p);

	uint64_t *a = new_l4();
	check(slot(a) == 0, "without m2p_strict a new L4 has the slot blank (%#lx)", slot(a));
	base("NEW_USER_BASEPTR", MMUEXT_NEW_USER_BASEPTR, a);
	check(slot(a) == 0, "as a user base it stays blank (%#lx)", slot(a));
	base("NEW_BASEPTR", MMUEXT_NEW_BASEPTR, a);
	uint64_t filled = slot(a);
	bool reads = m2p_reads();
	base("NEW_BASEPTR back", MMUEXT_NEW_BASEPTR, kl4);
	check(filled == m2p, "as a kernel base it gets the m2p (%#lx, want %#lx)", filled, m2p);
	check(reads, "and the m2p reads through it");
	base("NEW_USER_BASEPTR 0", MMUEXT_NEW_USER_BASEPTR, NULL);

	long rc = vm_assist(VMASST_CMD_enable, VMASST_TYPE_m2p_strict);
	check(rc == 0, "vm_assist(enable, m2p_strict): %ld %s", rc, errno_name(rc));
	uint64_t *b = new_l4();
	check(slot(b) == m2p, "with m2p_strict a new L4 has the m2p (%#lx)", slot(b));
	base("NEW_USER_BASEPTR", MMUEXT_NEW_USER_BASEPTR, b);
	check(slot(b) == 0, "as a user base it loses it (%#lx)", slot(b));
	base("NEW_BASEPTR", MMUEXT_NEW_BASEPTR, b);
	uint64_t kept = slot(b);
	unsigned long faults = probe_fault.count;
	reads = m2p_reads();
	base("NEW_BASEPTR back", MMUEXT_NEW_BASEPTR, kl4);
	check(kept == 0, "then as a kernel base it is not filled again (%#lx)", kept);
	check(!reads && probe_fault.count == faults + 1 && probe_fault.vector == 14,
	      "so the m2p read through it faults (#PF: vector %lu)", probe_fault.vector);

	rc = vm_assist(VMASST_CMD_disable, VMASST_TYPE_m2p_strict);
	check(rc == 0, "vm_assist(disable, m2p_strict): %ld %s", rc, errno_name(rc));
	base("NEW_BASEPTR", MMUEXT_NEW_BASEPTR, b);
	filled = slot(b);
	base("NEW_BASEPTR back", MMUEXT_NEW_BASEPTR, kl4);
	check(filled == m2p, "without it again, a kernel base gets the m2p back (%#lx)", filled);
	base("NEW_USER_BASEPTR 0", MMUEXT_NEW_USER_BASEPTR, NULL);
}
