/*
 * memmap: what a PV guest learns about its memory at start of day, checked against the ABI (a
 * 64-bit guest; the -pv32 build, a 32-bit PAE guest, checks the same facts in its own layout:
 * the magic, the page-table count, the hole and the m2p differ, each where it is checked).
 *
 * A PV kernel sizes and lays out its memory from three sources, and a shim that gets one wrong
 * breaks Linux early and obscurely:
 *  - XENMEM_memory_map: the guest's pseudo-physical map in E820 form. Entries must be sorted,
 *    non-overlapping, of valid E820 types, and the RAM in it must hold the nr_pages we were given.
 *    -ENOSYS is allowed (public/memory.h; Linux then assumes one RAM region of nr_pages). Which
 *    of the two a shim gives is its documented choice, checked exactly (testbed.shim,
 *    lib/testbed.h): the stock shim -ENOSYS (Xen 4.17 has no map set for this guest), ours a
 *    map (pv/hypercall/memory.c: one RAM entry of the guest's pages).
 *  - XENMEM_current_reservation (our pages now: nr_pages at boot) and _maximum_reservation
 *    (at least that); XENMEM_maximum_gpfn (for a PV guest: the count it wrote in shared_info's
 *    arch.max_pfn, less one, and 0 while that is 0: x86 mm.c domain_get_maximum_gpfn);
 *    XENMEM_machphys_mapping (where the read-only m2p is: inside Xen's hole).
 *  - start_info (startinfo.c) and the bootstrap address space it describes (layout.c), after
 *    public/xen.h "Start-of-day memory layout": element order, 4 KiB alignment, read-only page
 *    tables, a p2m and m2p that agree, at least 512 KiB of mapped padding, a 4 MiB-aligned end.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none. The -pv32 build: stock PASS on xen; ours
 * PASS on xen and none.
 */
#include "guest.h"
#include "memmap.h"

const char test_title[] = "memmap: memory map, reservations, start_info and the bootstrap layout";

/* One entry of the map XENMEM_memory_map returns: the BIOS E820 format, 20 bytes, packed. */
struct e820_entry {
	uint64_t addr, size;
	uint32_t type;
} __attribute__((packed));

#define E820_MAX 128

static const char *e820_type(uint32_t t)
{
	static const char *const names[] = { "?", "RAM", "reserved", "ACPI", "NVS", "unusable",
					     "?", "persistent" };

	return t < ARRAY_SIZE(names) ? names[t] : "?";
}

static bool e820_type_valid(uint32_t t)
{
	return (t >= 1 && t <= 5) || t == 7;
}

static void memory_map(void)
{
	static struct e820_entry map[E820_MAX];
	struct xen_memory_map mm = { .nr_entries = E820_MAX };
	uint64_t ram = 0, prev_end = 0;
	bool sorted = true, sane = true;
	long rc;

	set_xen_guest_handle(mm.buffer, map);
	rc = hypercall_memory_op(XENMEM_memory_map, &mm);
	if (!testbed_ours()) {
		check(rc == -XEN_ENOSYS, "stock: XENMEM_memory_map is %ld %s (want -ENOSYS: no map set; the guest "
		      "assumes RAM = nr_pages)", rc, errno_name(rc));
		return;
	}
	if (!check(rc == 0, "XENMEM_memory_map: rc %ld (%s)", rc, errno_name(rc)))
		return;
	if (!check(mm.nr_entries >= 1 && mm.nr_entries <= E820_MAX, "%u entries (1..%u)",
		   mm.nr_entries, E820_MAX))
		return;

	for (unsigned int i = 0; i < mm.nr_entries; i++) {
		const struct e820_entry *e = &map[i];
		uint64_t end = e->addr + e->size;

		printf("    %#014llx-%#014llx %s (%u)\n", (unsigned long long)e->addr, (unsigned long long)end,
		       e820_type(e->type), e->type);
		if (!e->size || end < e->addr || !e820_type_valid(e->type))
			sane = false;
		if (i && e->addr < prev_end)
			sorted = false;
		prev_end = end;
		if (e->type == 1)
			ram += e->size;
	}
	check(sane, "every entry has a size, does not wrap, and has a valid E820 type");
	check(sorted, "entries are sorted by address and do not overlap");
	check(ram >= (uint64_t)start_info->nr_pages << PAGE_SHIFT,
	      "RAM in the map (%lu pages) holds nr_pages (%lu)", (unsigned long)(ram >> PAGE_SHIFT),
	      start_info->nr_pages);
}

static void reservations(void)
{
	domid_t self = DOMID_SELF;
	long cur = hypercall_memory_op(XENMEM_current_reservation, &self);
	long max = hypercall_memory_op(XENMEM_maximum_reservation, &self);

	printf("reservation: current %ld pages, maximum %ld pages, start_info nr_pages %lu\n",
	       cur, max, start_info->nr_pages);
	check(cur == (long)start_info->nr_pages, "current reservation equals nr_pages at boot");
	check(max >= cur, "maximum reservation is at least the current one");

	unsigned long saved = shared_info->arch.max_pfn;
	shared_info->arch.max_pfn = 0;
	long g0 = hypercall_memory_op(XENMEM_maximum_gpfn, &self);
	shared_info->arch.max_pfn = start_info->nr_pages;
	long g1 = hypercall_memory_op(XENMEM_maximum_gpfn, &self);
	shared_info->arch.max_pfn = saved;
	check(g0 == 0, "maximum_gpfn with arch.max_pfn 0: %ld (want 0)", g0);
	check(g1 == (long)start_info->nr_pages - 1, "maximum_gpfn with arch.max_pfn %lu: %ld (want %lu)",
	      start_info->nr_pages, g1, start_info->nr_pages - 1);
}

#ifdef __i386__
/*
 * A 32-bit PAE guest's hole runs from HYPERVISOR_VIRT_START (0xF5800000, xen-x86_32.h; lower only
 * for a kernel that asks with XEN_ELFNOTE_HV_START_LOW, which ours does not) to the top of the
 * 4 GiB. A 64-bit Xen maps the compat m2p there from MACH2PHYS_COMPAT_VIRT_START(d) (that start)
 * up to its MACH2PHYS_COMPAT_VIRT_END, 0xFFE00000 (xen/arch/x86/x86_64/compat/mm.c,
 * XENMEM_machphys_mapping), not to xen-x86_32.h's MACH2PHYS_VIRT_END, a 32-bit Xen's.
 */
#define HOLE_LAST 0xffffffffUL
#else
#define HOLE_LAST (HYPERVISOR_VIRT_END - 1)
#endif

static unsigned long machphys(void)
{
	struct xen_machphys_mapping mp = { 0 };
	long rc = hypercall_memory_op(XENMEM_machphys_mapping, &mp);

	if (!check(rc == 0, "XENMEM_machphys_mapping: rc %ld (%s)", rc, errno_name(rc)))
		return 0;
	printf("    m2p at %#lx-%#lx, max_mfn %#lx\n", (unsigned long)mp.v_start,
	       (unsigned long)mp.v_end, (unsigned long)mp.max_mfn);
	if (!check(mp.v_start == (unsigned long)machine_to_phys_mapping &&
		   mp.v_start >= HYPERVISOR_VIRT_START && mp.v_end > mp.v_start &&
		   mp.v_end - 1 <= HOLE_LAST,
		   "the m2p starts at machine_to_phys_mapping, inside Xen's hole"))
		return 0;
	unsigned long slots = (mp.v_end - mp.v_start) / sizeof(unsigned long);

	return mp.max_mfn < slots ? mp.max_mfn + 1 : slots;
}

void test_main(void)
{
	unsigned long m2p_entries;

	memory_map();
	reservations();
	m2p_entries = machphys();
	check_start_info();
	check_layout(m2p_entries);
}
