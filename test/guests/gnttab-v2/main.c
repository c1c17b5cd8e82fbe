/*
 * gnttab-v2: grant table version 2 (public/grant_table.h GNTTABOP_set_version, get_version,
 * get_status_frames; Xen 4.17's gnttab_set_version and gnttab_get_status_frames).
 *
 * Version 2 entries are 16 bytes (a header of flags and domid, then the frame), and each entry's
 * GTF_reading/GTF_writing status lives apart, in status frames the guest maps read-only; it
 * allows sub-page grants and frames above 2^32 pages. A guest switches with set_version (any
 * other version than 1 or 2 is -EINVAL) while no grant is in use; the reserved entries (0-7, the
 * toolstack's) keep their grants across the change, converted. The stock shim has no version 2
 * at all (a documented difference, lib/testbed.h): its three ops are -EOPNOTSUPP, checked here.
 * Ours (L0's table under Xen, which does the conversion; its own standalone):
 *  1. get_version: 1; setup_table: frame 0, mapped writable; reserved entry 5 granted as v1;
 *  2. set_version(3): -EINVAL; set_version(2): 0 and 2 back; get_version: 2; entry 5 now reads as
 *     v2 with the same flags, domid and frame;
 *  3. get_status_frames(1): okay and a frame, which maps read-only and not writable;
 *     more frames than the table's entries need: GNTST_general_error;
 *  4. the status frame unmapped, set_version(1): 0; entry 5 is v1 again, the same grant;
 *     get_status_frames now GNTST_general_error.
 *
 * Expect: stock PASS on xen (its -EOPNOTSUPP checked exactly); ours PASS on xen and none.
 */
#include "guest.h"
#include "mm.h"

const char test_title[] = "gnttab-v2: set_version, get_version, status frames, reserved entries kept";

#define ENTRY 5
#define GRANTED_FRAME 0x12345u

static char map0[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static char smap[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

static long gnttab_op(unsigned int cmd, void *arg)
{
	return HC(__HYPERVISOR_grant_table_op, cmd, arg, 1);
}

static long set_version(uint32_t v, uint32_t *now)
{
	struct gnttab_set_version s = { .version = v };
	long rc = gnttab_op(GNTTABOP_set_version, &s);

	*now = s.version;
	return rc;
}

static long get_version(uint32_t *v)
{
	struct gnttab_get_version g = { .dom = DOMID_SELF };
	long rc = gnttab_op(GNTTABOP_get_version, &g);

	*v = g.version;
	return rc;
}

static long status_frames(uint32_t n, uint64_t *list, int16_t *status)
{
	struct gnttab_get_status_frames g = { .nr_frames = n, .dom = DOMID_SELF, .status = 1 };
	set_xen_guest_handle(g.frame_list, list);
	long rc = gnttab_op(GNTTABOP_get_status_frames, &g);

	*status = g.status;
	return rc;
}

static void stock(void)
{
	uint32_t v = 0;
	uint64_t f = 0;
	int16_t st = 0;
	long rc = set_version(2, &v);

	check(rc == -XEN_EOPNOTSUPP, "stock: set_version(2): %ld %s", rc, errno_name(rc));
	rc = get_version(&v);
	check(rc == -XEN_EOPNOTSUPP, "stock: get_version: %ld %s", rc, errno_name(rc));
	rc = status_frames(1, &f, &st);
	check(rc == -XEN_EOPNOTSUPP, "stock: get_status_frames: %ld %s", rc, errno_name(rc));
}

void test_main(void)
{
	uint32_t v = 0;
	long rc;

	if (!testbed_ours()) {
		stock();
		return;
	}
	rc = get_version(&v);
	check(rc == 0 && v == 1, "1. get_version: %ld %s, version %u (want 1)", rc, errno_name(rc), v);
	xen_pfn_t f0 = 0;
	struct gnttab_setup_table s = { .dom = DOMID_SELF, .nr_frames = 1 };
	set_xen_guest_handle(s.frame_list, &f0);
	rc = gnttab_op(GNTTABOP_setup_table, &s);
	if (rc || s.status != GNTST_okay)
		test_fail("setup_table: %ld %s, status %d", rc, errno_name(rc), s.status);
	rc = hypercall_update_va_mapping((unsigned long)map0, pte(f0, PTE_RW_FLAGS), UVMF_INVLPG);
	if (rc)
		test_fail("mapping grant frame %#lx: %ld %s", f0, rc, errno_name(rc));
	volatile grant_entry_v1_t *e1 = (grant_entry_v1_t *)map0;
	volatile grant_entry_v2_t *e2 = (grant_entry_v2_t *)map0;
	e1[ENTRY].domid = 0;
	e1[ENTRY].frame = GRANTED_FRAME;
	e1[ENTRY].flags = GTF_permit_access;

	rc = set_version(3, &v);
	check(rc == -XEN_EINVAL, "2. set_version(3): %ld %s", rc, errno_name(rc));
	rc = set_version(2, &v);
	check(rc == 0 && v == 2, "   set_version(2): %ld %s, version %u", rc, errno_name(rc), v);
	rc = get_version(&v);
	check(rc == 0 && v == 2, "   get_version: %ld %s, version %u", rc, errno_name(rc), v);
	check(e2[ENTRY].hdr.flags == GTF_permit_access && e2[ENTRY].hdr.domid == 0 &&
	      e2[ENTRY].full_page.frame == GRANTED_FRAME,
	      "   reserved entry %d reads as v2: flags %#x domid %u frame %#lx", ENTRY, e2[ENTRY].hdr.flags,
	      e2[ENTRY].hdr.domid, (unsigned long)e2[ENTRY].full_page.frame);

	uint64_t sf = 0, many[64];
	int16_t st = 1;
	rc = status_frames(1, &sf, &st);
	check(rc == 0 && st == GNTST_okay && sf, "3. get_status_frames(1): %ld %s, status %d, frame %#lx", rc,
	      errno_name(rc), st, sf);
	if (sf) {
		rc = hypercall_update_va_mapping((unsigned long)smap, pte(sf, PTE_RO_FLAGS), UVMF_INVLPG);
		check(rc == 0, "   the status frame maps read-only: %ld %s", rc, errno_name(rc));
		uint16_t s5 = ((volatile grant_status_t *)smap)[ENTRY];
		check(s5 == 0, "   and reads: entry %d's status %#x (nobody maps it)", ENTRY, s5);
		rc = hypercall_update_va_mapping((unsigned long)smap, pte(sf, PTE_RW_FLAGS), UVMF_INVLPG);
		check(rc != 0, "   but not writable: %ld %s", rc, errno_name(rc));
		hypercall_update_va_mapping((unsigned long)smap, 0, UVMF_INVLPG);
	}
	rc = status_frames(64, many, &st);
	check(rc == 0 && st == GNTST_general_error, "   64 status frames: %ld %s, status %d (want general_error)",
	      rc, errno_name(rc), st);

	rc = set_version(1, &v);
	check(rc == 0 && v == 1, "4. set_version(1): %ld %s, version %u", rc, errno_name(rc), v);
	check(e1[ENTRY].flags == GTF_permit_access && e1[ENTRY].domid == 0 && e1[ENTRY].frame == GRANTED_FRAME,
	      "   reserved entry %d is v1 again: flags %#x domid %u frame %#x", ENTRY, e1[ENTRY].flags,
	      e1[ENTRY].domid, e1[ENTRY].frame);
	rc = status_frames(1, &sf, &st);
	check(rc == 0 && st == GNTST_general_error, "   get_status_frames under v1: %ld %s, status %d", rc,
	      errno_name(rc), st);
	e1[ENTRY].flags = 0;
	hypercall_update_va_mapping((unsigned long)map0, 0, UVMF_INVLPG);
}
