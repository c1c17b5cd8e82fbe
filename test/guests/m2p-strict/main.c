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
 * The 32-bit PAE build (pv32) has none of this: no L4, and kernel (ring 1) and user mode (ring 3)
 * share one set of page tables (compat_mmuext_op refuses MMUEXT_NEW_USER_BASEPTR with -EINVAL).
 * The m2p it sees is the compat one (4-byte entries from HYPERVISOR_VIRT_START, 0xF5800000),
 * which init_xen_pae_l2_slots puts into Xen's slots of every slot-3 L2 (copies of
 * compat_idle_pg_table_l2). What keeps it from user mode is its L2 entries: Xen makes them
 * _PAGE_PSE|_PAGE_PRESENT, without _PAGE_USER (paging_init). And m2p_strict is no assist for a
 * 32-bit guest: VMASST_TYPE_m2p_strict is 32, and the PV32 mask (arch_vm_assist_valid_mask) has
 * the types below 32 only, so vm_assist refuses it with -EINVAL, both enable and disable.
 * Checked: the L4 checks are skipped (a line says so); the L2 entry mapping the m2p is a
 * present superpage without U; the m2p reads from the kernel; from user mode a read of our own
 * page works and one of the m2p is #PF, present|user (5); the same in a new L3 whose slot-3 L2
 * had Xen's slots blank (Xen fills them when the L3 is pinned); vm_assist(enable/disable,
 * m2p_strict) and NEW_USER_BASEPTR are -EINVAL.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"
#include "probe.h"
#ifdef __i386__
#include "user.h"
#endif

const char test_title[] = "m2p-strict: the read-only m2p slot in kernel and user L4s, with and without m2p_strict";

#define SLOT 256

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

	if (!probe_read((const void *)&machine_to_phys_mapping[mfn], &v))
		return false;
#ifdef __i386__
	/* the compat m2p's entries are 4 bytes (compat_machine_to_phys_mapping) */
	return (uint32_t)v == (unsigned long)_image_start >> PAGE_SHIFT;
#else
	return (v & 0xffffffffffful) == (unsigned long)_image_start >> PAGE_SHIFT;
#endif
}

#ifdef __i386__
static unsigned long first_mfn;	/* our first frame's */
static volatile uint32_t user_seen;

static void user_read_own(void)
{
	user_seen = *(volatile unsigned long *)&first_mfn;
}

static void user_read_m2p(void)
{
	user_seen = *(volatile uint32_t *)&machine_to_phys_mapping[first_mfn];
}

/* Under the current L3: the kernel reads the m2p, user mode reads our page but not the m2p. */
static void kernel_and_user(const char *where)
{
	unsigned long r;

	check(m2p_reads(), "%s: the kernel (ring 1) reads the m2p", where);
	user_seen = 0;
	r = user_run(user_read_own);
	check(r == 0 && user_seen == first_mfn, "%s: user mode reads a page of ours (%#lx, %#lx)", where,
	      r, (unsigned long)user_seen);
	r = user_run(user_read_m2p);
	check(r == USER_FAULT(14, 5), "%s: user mode's read of the m2p is #PF, present|user (%#lx, want %#lx)",
	      where, r, USER_FAULT(14, 5));
}

/* e, the L2 entry mapping the m2p's entry for our first frame: a present superpage without U. */
static void m2p_l2e(const char *where, uint64_t e)
{
	check((e & (PTE_PRESENT | PTE_PSE | PTE_USER)) == (PTE_PRESENT | PTE_PSE),
	      "%s: the L2 entry mapping the m2p is a present superpage without U (%#llx)", where,
	      (unsigned long long)e);
}

static void test_pv32(void)
{
	const uint64_t *boot_l3 = (const uint64_t *)start_info->pt_base, *boot_l2 = boot_xen_l2();
	const unsigned long m2p_va = (unsigned long)&machine_to_phys_mapping[first_mfn];
	const unsigned int s = pt_index(m2p_va, 2);
	int level = 0;
	long rc;

	printf("skip: 32-bit PAE: no L4 and no user base pointer (compat_mmuext_op), so the 64-bit "
	       "checks of L4 slot 256 with and without m2p_strict do not apply\n");
	uint64_t e = pt_lookup(m2p_va, &level);
	check(level == 2 && pt_index(m2p_va, 3) == 3 && s >= XEN_L2_FIRST,
	      "the m2p (%#lx) is mapped by Xen's slot %u of the slot-3 L2 (level %d)", m2p_va, s, level);
	m2p_l2e("the bootstrap L3", e);
	user_init();
	kernel_and_user("the bootstrap L3");

	/* a new L3: the same lower tables, and a slot-3 L2 of its own with Xen's slots blank */
	uint64_t *l3 = page_alloc(), *xl2 = page_alloc();

	for (unsigned int i = 0; i < 3; i++)
		l3[i] = boot_l3[i];
	for (unsigned int i = 0; i < XEN_L2_FIRST; i++)
		xl2[i] = boot_l2[i];
	l3[3] = pte_of(xl2, PTE_PRESENT);
	if (page_ro(xl2) || page_ro(l3) || pin(3, l3))
		test_fail("cannot pin a new L3");
	/* the CPU sets A in the bootstrap L2's entry as we read the m2p through it */
	check(((xl2[s] ^ boot_l2[s]) & ~(uint64_t)(PTE_ACCESSED | PTE_DIRTY)) == 0,
	      "a new L3, pinned: its slot-3 L2 got the m2p's entry in slot %u (%#llx)", s,
	      (unsigned long long)xl2[s]);
	m2p_l2e("the new L3", xl2[s]);
	base("NEW_BASEPTR", MMUEXT_NEW_BASEPTR, l3);
	kernel_and_user("the new L3 as the base");
	base("NEW_BASEPTR back", MMUEXT_NEW_BASEPTR, boot_l3);

	rc = vm_assist(VMASST_CMD_enable, VMASST_TYPE_m2p_strict);
	check(rc == -XEN_EINVAL, "vm_assist(enable, m2p_strict): %ld %s (want -EINVAL: not a 32-bit assist)", rc,
	      errno_name(rc));
	rc = vm_assist(VMASST_CMD_disable, VMASST_TYPE_m2p_strict);
	check(rc == -XEN_EINVAL, "vm_assist(disable, m2p_strict): %ld %s (want -EINVAL)", rc, errno_name(rc));
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(l3));
	check(rc == -XEN_EINVAL, "MMUEXT_NEW_USER_BASEPTR: %ld %s (want -EINVAL: no user base pointer)", rc,
	      errno_name(rc));
	kernel_and_user("after them, the bootstrap L3");
}
#else
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

static void test_pv64(void)
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
#endif

void test_main(void)
{
#ifdef __i386__
	first_mfn = pfn_to_mfn((unsigned long)_image_start >> PAGE_SHIFT);
	test_pv32();
#else
	test_pv64();
#endif
}
