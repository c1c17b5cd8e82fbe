/*
 * gnttab: setting up the guest's grant table (public/grant_table.h, the v1 layout), as Linux's
 * gnttab_init and PV GRUB do at boot.
 *
 * A PV guest asks GNTTABOP_query_size for its table's current and largest size, then
 * GNTTABOP_setup_table for the machine frames of the first nr_frames frames of its table, and
 * maps them writable by MFN (update_va_mapping, mmu_update): it fills grant entries
 * (grant_entry_v1: flags, domid, frame) there for its backends to use. Linux BUGs if setup_table
 * fails with anything but -ENOSYS, and PV GRUB maps the returned frame without looking at the
 * result, so the frames must be real, stable across calls, and mappable writable (but never be a
 * page table). The shim runs as an HVM guest of L0: the stock shim asks L0 for the size
 * (query_size is passed through), and maps L0's grant frames into its own physical space
 * (XENMEM_add_to_physmap, XENMAPSPACE_grant_table) to hand them out. Standalone, our shim hands
 * out frames of its own.
 *
 * Checks (the answers are the stock shim's, pv/shim.c pv_shim_grant_table_op: every op wants
 * count 1, else -EINVAL; only query_size and setup_table exist, every other op is -EOPNOTSUPP
 * (ours also has version 2's three ops: test/guests/gnttab-v2); a frame count over the maximum
 * is -EINVAL; setup_table does not look at dom):
 *  1. query_size(DOMID_SELF): okay, 1 <= nr_frames <= max_nr_frames; count 0 and 2: -EINVAL;
 *     a domain that does not exist: status GNTST_bad_domain (L0's answer on Xen);
 *  2. setup_table(1 frame): okay, a frame; again with 2 frames: the same first frame and a
 *     second, different one; query_size's nr_frames now counts them; max_nr_frames + 1 frames:
 *     -EINVAL; count 2: -EINVAL; a frame list in the hypervisor's hole: -EFAULT; a frame list
 *     at the unmapped page 0: -EFAULT with status GNTST_bad_virt_addr written back; dom 0x7000:
 *     okay, our own first frame (the stock shim does not look at dom; Xen would refuse);
 *  3. both frames mapped writable with update_va_mapping, the first also with mmu_update at a
 *     second address: a grant entry written through one mapping reads back through the other,
 *     an entry in the second frame reads back; MMUEXT_PIN_L1_TABLE on a grant frame is -EINVAL,
 *     and so is MMU_MACHPHYS_UPDATE (the stock shim's frames are L0's, not the guest's pages);
 *  4. map_grant_ref, copy and an unknown op 99: -EOPNOTSUPP; count 0: -EINVAL. (Version 2's
 *     ops, which only ours has: test/guests/gnttab-v2.)
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"

const char test_title[] = "gnttab: query_size, setup_table, mapping the frames, refusals";

static long gnttab_op(unsigned int cmd, void *arg, unsigned int count)
{
	return HC(__HYPERVISOR_grant_table_op, cmd, arg, count);
}

static char map0[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static char map0b[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static char map1[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static char granted[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

static const char *st(int16_t status)
{
	static const char *const names[] = GNTTABOP_error_msgs;
	unsigned i = (unsigned)-status;

	return status <= 0 && i < ARRAY_SIZE(names) ? names[i] : "?";
}

static long query(domid_t dom, struct gnttab_query_size *q, unsigned int count)
{
	memset(q, 0, sizeof(*q));
	q->dom = dom;
	q->status = 1;			/* not a GNTST_ value: shows whether it was written */
	return gnttab_op(GNTTABOP_query_size, q, count);
}

static long setup(domid_t dom, uint32_t n, xen_pfn_t *list, struct gnttab_setup_table *s, unsigned int count)
{
	memset(s, 0, sizeof(*s));
	s->dom = dom;
	s->nr_frames = n;
	s->status = 1;
	set_xen_guest_handle(s->frame_list, list);
	return gnttab_op(GNTTABOP_setup_table, s, count);
}

static uint32_t max_frames;
static xen_pfn_t frames[2];

/* 1. */
static void query_size(void)
{
	struct gnttab_query_size q;
	long rc = query(DOMID_SELF, &q, 1);

	check(rc == 0 && q.status == GNTST_okay && q.nr_frames >= 1 && q.nr_frames <= q.max_nr_frames,
	      "1. query_size(self): %ld %s, status %d %s, nr_frames %u, max_nr_frames %u", rc, errno_name(rc), q.status,
	      st(q.status), q.nr_frames, q.max_nr_frames);
	max_frames = q.max_nr_frames;
	rc = query(DOMID_SELF, &q, 0);
	check(rc == -XEN_EINVAL, "   count 0: %ld %s", rc, errno_name(rc));
	rc = query(DOMID_SELF, &q, 2);
	check(rc == -XEN_EINVAL, "   count 2: %ld %s", rc, errno_name(rc));
	rc = query(0x7000, &q, 1);
	check(rc == 0 && q.status == GNTST_bad_domain, "   domain 0x7000 (none such): %ld %s, status %d %s", rc,
	      errno_name(rc), q.status, st(q.status));
}

/* 2. */
static void setup_table(void)
{
	struct gnttab_setup_table s;
	struct gnttab_query_size q;
	xen_pfn_t list[2] = { 0, 0 };
	long rc = setup(DOMID_SELF, 1, list, &s, 1);

	check(rc == 0 && s.status == GNTST_okay && list[0] != 0, "2. setup_table(1 frame): %ld %s, status %d %s, frame %#lx",
	      rc, errno_name(rc), s.status, st(s.status), list[0]);
	frames[0] = list[0];
	if (max_frames < 2)
		test_fail("max_nr_frames %u: cannot go on", max_frames);
	list[0] = list[1] = 0;
	rc = setup(DOMID_SELF, 2, list, &s, 1);
	check(rc == 0 && s.status == GNTST_okay && list[0] == frames[0] && list[1] != 0 && list[1] != list[0],
	      "   2 frames: %ld %s, status %d %s, frames %#lx %#lx (the first the same)", rc, errno_name(rc), s.status,
	      st(s.status), list[0], list[1]);
	frames[1] = list[1];
	rc = query(DOMID_SELF, &q, 1);
	check(rc == 0 && q.nr_frames >= 2 && q.max_nr_frames == max_frames,
	      "   query_size counts them: %ld, nr_frames %u, max_nr_frames %u", rc, q.nr_frames, q.max_nr_frames);

	rc = setup(DOMID_SELF, max_frames + 1, list, &s, 1);
	check(rc == -XEN_EINVAL, "   max_nr_frames + 1 = %u frames: %ld %s", max_frames + 1, rc, errno_name(rc));
	rc = setup(DOMID_SELF, 1, list, &s, 2);
	check(rc == -XEN_EINVAL, "   count 2: %ld %s", rc, errno_name(rc));
	rc = setup(DOMID_SELF, 1, (xen_pfn_t *)(HYPERVISOR_VIRT_START + 0x1000), &s, 1);
	check(rc == -XEN_EFAULT, "   a frame list in the hypervisor's hole: %ld %s", rc, errno_name(rc));
	rc = setup(DOMID_SELF, 1, (xen_pfn_t *)8, &s, 1);
	check(rc == -XEN_EFAULT && s.status == GNTST_bad_virt_addr,
	      "   a frame list at the unmapped page 0: %ld %s, status %d %s", rc, errno_name(rc), s.status, st(s.status));
	list[0] = 0;
	rc = setup(0x7000, 1, list, &s, 1);
	check(rc == 0 && s.status == GNTST_okay && list[0] == frames[0],
	      "   setup_table for domain 0x7000: our own frame, as the stock shim: %ld %s, status %d %s, frame %#lx", rc,
	      errno_name(rc), s.status, st(s.status), list[0]);
}

/* 3. */
static void mapping(void)
{
	grant_entry_v1_t *g0 = (grant_entry_v1_t *)map0, *g0b = (grant_entry_v1_t *)map0b, *g1 = (grant_entry_v1_t *)map1;
	long rc = hypercall_update_va_mapping((unsigned long)map0, pte(frames[0], PTE_RW_FLAGS), UVMF_INVLPG);

	check(rc == 0, "3. update_va_mapping of frame %#lx writable: %ld %s", frames[0], rc, errno_name(rc));
	rc = hypercall_update_va_mapping((unsigned long)map1, pte(frames[1], PTE_RW_FLAGS), UVMF_INVLPG);
	check(rc == 0, "   and of frame %#lx: %ld %s", frames[1], rc, errno_name(rc));
	uint64_t *l1e = pt_entry((unsigned long)map0b, 1);
	if (!l1e)
		test_fail("no L1 entry for %p", (void *)map0b);
	rc = mmu_update1(virt_to_maddr(l1e) | MMU_NORMAL_PT_UPDATE, pte(frames[0], PTE_RW_FLAGS));
	if (!rc)
		rc = invlpg(map0b);
	check(rc == 0, "   mmu_update mapping frame %#lx at a second address: %ld %s", frames[0], rc, errno_name(rc));
	if (test_failures())
		return;

	/* on Xen the table is L0's: the toolstack has put the shim's console and store rings in
	 * entries 0 and 1 (xc_dom_gnttab_seed); a table of our standalone shim is all zeroes */
	printf("   entries 0 and 1: flags %#x %#x, domid %u %u, frame %#x %#x\n", g0[0].flags, g0[1].flags, g0[0].domid,
	       g0[1].domid, g0[0].frame, g0[1].frame);
	/* entry 10 (Linux keeps the first 8 for the toolstack): grant dom0 read access to a page */
	g0[10].frame = (uint32_t)virt_to_mfn(granted);
	g0[10].domid = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	g0[10].flags = GTF_permit_access | GTF_readonly;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	check(g0b[10].flags == (GTF_permit_access | GTF_readonly) && g0b[10].frame == virt_to_mfn(granted) &&
	      g0b[10].domid == 0, "   entry 10 written at one address reads back at the other: flags %#x frame %#x",
	      g0b[10].flags, g0b[10].frame);
	g0[10].flags = 0;
	g1[3].frame = 0x12345;
	check(g1[3].frame == 0x12345 && ((volatile grant_entry_v1_t *)g1)[3].frame == 0x12345,
	      "   entry 512 + 3 (second frame) reads back");
	g1[3].frame = 0;
	rc = mmuext1(MMUEXT_PIN_L1_TABLE, frames[1]);
	check(rc == -XEN_EINVAL, "   pinning a grant frame as an L1 table: %ld %s", rc, errno_name(rc));
	rc = mmu_update1(((uint64_t)frames[1] << 12) | MMU_MACHPHYS_UPDATE, 0x1234);
	check(rc == -XEN_EINVAL, "   MMU_MACHPHYS_UPDATE of a grant frame (not the guest's): %ld %s", rc, errno_name(rc));
	rc = hypercall_update_va_mapping((unsigned long)map1, pte(frames[1], PTE_RO_FLAGS), UVMF_INVLPG);
	check(rc == 0 && g1[3].frame == 0, "   a read-only mapping: %ld %s", rc, errno_name(rc));
	for (unsigned i = 0; i < 3; i++) {
		char *va = i == 0 ? map0 : i == 1 ? map0b : map1;
		rc = hypercall_update_va_mapping((unsigned long)va, pte_of(va, PTE_RW_FLAGS), UVMF_INVLPG);
		check(rc == 0, "   our own page back at %p: %ld %s", (void *)va, rc, errno_name(rc));
	}
}

/* 4. */
static void refusals(void)
{
	struct gnttab_set_version sv = { .version = 1 };
	struct gnttab_map_grant_ref map = { .host_addr = (unsigned long)granted, .flags = GNTMAP_host_map, .ref = 10,
					    .dom = 0 };
	struct gnttab_copy copy;
	long rc = gnttab_op(GNTTABOP_map_grant_ref, &map, 1);

	memset(&copy, 0, sizeof(copy));
	check(rc == -XEN_EOPNOTSUPP, "4. map_grant_ref: %ld %s", rc, errno_name(rc));
	rc = gnttab_op(GNTTABOP_copy, &copy, 1);
	check(rc == -XEN_EOPNOTSUPP, "   copy: %ld %s", rc, errno_name(rc));
	rc = gnttab_op(99, &copy, 1);
	check(rc == -XEN_EOPNOTSUPP, "   op 99: %ld %s", rc, errno_name(rc));
	rc = gnttab_op(GNTTABOP_set_version, &sv, 0);
	check(rc == -XEN_EINVAL, "   set_version with count 0: %ld %s", rc, errno_name(rc));
}

void test_main(void)
{
	query_size();
	setup_table();
	mapping();
	refusals();
}
