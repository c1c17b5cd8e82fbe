/*
 * version: what __HYPERVISOR_xen_version tells a 64-bit PV guest, checked against the ABI.
 *
 * Linux calls XENVER_get_features early (xen_setup_features) and decides how to drive the MMU
 * from it, so a wrong bit breaks boot in odd places: a PV guest is never auto-translated
 * (XENFEAT_auto_translated_physmap = 0), never sees the HVM-only bits, and a domU does not get
 * XENFEAT_dom0. Beyond that (public/version.h and the dummy XSM policy, which says these
 * sub-ops "MUST always be accessible to any guest"):
 *  - XENVER_version = major << 16 | minor, with a major of at least 3 (we asked for "xen-3.0");
 *  - XENVER_extraversion, _capabilities, _changeset, _compile_info fill NUL-terminated strings
 *    (a denying policy returns "<denied>", still with rc 0);
 *  - XENVER_capabilities names the PV ABIs the hypervisor runs, "xen-3.0-x86_64" and, as it
 *    runs 32-bit PAE guests too, "xen-3.0-x86_32p" (Xen's arch_get_xen_caps with CONFIG_PV32);
 *  - XENVER_platform_parameters: virt_start is where Xen's hole begins for a 64-bit PV guest;
 *  - XENVER_pagesize = 4096; XENVER_guest_handle succeeds;
 *  - an unknown sub-op returns -ENOSYS.
 * Beside it, the toolstack's sysctl and domctl, which a domU may ask for (XTF probes their
 * interface version as it starts): a shim has neither (the stock shim, a Xen built as
 * PV_SHIM_EXCLUSIVE, answers -ENOSYS before it reads anything, whatever the version).
 * Everything seen is printed, so a shim's answers can be compared with the stock one's.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"

const char test_title[] = "version: XENVER_* sub-ops seen by a 64-bit PV domU";

/* A string Xen filled: rc 0 and a NUL within the buffer (pre-filled with non-NULs). */
static void check_string(const char *what, int cmd, char *buf, size_t size)
{
	long rc;

	memset(buf, 0xff, size);
	rc = hypercall_xen_version(cmd, buf);
	if (!check(rc == 0, "%s: rc %ld (%s)", what, rc, errno_name(rc)))
		return;
	if (check(strnlen(buf, size) < size, "%s is NUL-terminated within %zu bytes", what, size))
		printf("    %s = \"%s\"\n", what, buf);
}

static void version_number(void)
{
	long v = hypercall_xen_version(XENVER_version, NULL);
	unsigned int major = (unsigned long)v >> 16, minor = v & 0xffff;

	printf("XENVER_version = %#lx: Xen %u.%u\n", v, major, minor);
	check(v > 0, "XENVER_version is a positive number");
	check(major >= 3 && major < 256, "major version %u is sane (3..255)", major);
	check(minor < 256, "minor version %u is sane (< 256)", minor);
}

static void strings(void)
{
	xen_extraversion_t extra;
	xen_capabilities_info_t caps;
	xen_changeset_info_t changeset;
	xen_compile_info_t ci;
	long rc;

	check_string("XENVER_extraversion", XENVER_extraversion, extra, sizeof(extra));
	check_string("XENVER_capabilities", XENVER_capabilities, caps, sizeof(caps));
	check(strnlen(caps, sizeof(caps)) < sizeof(caps) && strstr(caps, "xen-3.0-x86_64"),
	      "capabilities include xen-3.0-x86_64");
	check(strnlen(caps, sizeof(caps)) < sizeof(caps) && strstr(caps, "xen-3.0-x86_32p"),
	      "capabilities include xen-3.0-x86_32p (32-bit PAE PV guests)");
	check_string("XENVER_changeset", XENVER_changeset, changeset, sizeof(changeset));

	memset(&ci, 0xff, sizeof(ci));
	rc = hypercall_xen_version(XENVER_compile_info, &ci);
	if (check(rc == 0, "XENVER_compile_info: rc %ld (%s)", rc, errno_name(rc))) {
		check(strnlen(ci.compiler, sizeof(ci.compiler)) < sizeof(ci.compiler) &&
		      strnlen(ci.compile_by, sizeof(ci.compile_by)) < sizeof(ci.compile_by) &&
		      strnlen(ci.compile_domain, sizeof(ci.compile_domain)) < sizeof(ci.compile_domain) &&
		      strnlen(ci.compile_date, sizeof(ci.compile_date)) < sizeof(ci.compile_date),
		      "compile_info strings are NUL-terminated");
		printf("    compiled by \"%.16s\" on \"%.32s\" with \"%.64s\"\n", ci.compile_by,
		       ci.compile_date, ci.compiler);
	}
}

/* Names for the bits features.h defines, keyed by its own constants. */
#define F(name) [XENFEAT_##name] = #name
static const char *const feature_names[32] = {
	F(writable_page_tables), F(writable_descriptor_tables), F(auto_translated_physmap),
	F(supervisor_mode_kernel), F(pae_pgdir_above_4gb), F(mmu_pt_update_preserve_ad),
	F(highmem_assist), F(gnttab_map_avail_bits), F(hvm_callback_vector), F(hvm_safe_pvclock),
	F(hvm_pirqs), F(dom0), F(memory_op_vnode_supported),
	F(ARM_SMCCC_supported), F(linux_rsdp_unrestricted), F(not_direct_mapped), F(direct_mapped),
};
#undef F

static void features(void)
{
	xen_feature_info_t fi = { .submap_idx = 0, .submap = 0xdeadbeef };
	long rc = hypercall_xen_version(XENVER_get_features, &fi);

	if (!check(rc == 0, "XENVER_get_features(0): rc %ld (%s)", rc, errno_name(rc)))
		return;
	printf("XENVER_get_features submap 0 = %#x\n", fi.submap);
	for (unsigned int bit = 0; bit < 32; bit++)
		if (fi.submap & (1U << bit))
			printf("    bit %2u %s\n", bit, feature_names[bit] ? feature_names[bit] : "(unnamed)");
	check(!(fi.submap & (1U << XENFEAT_auto_translated_physmap)),
	      "auto_translated_physmap is 0 (a PV guest manages its own p2m)");
	check(!(fi.submap & (1U << XENFEAT_supervisor_mode_kernel)),
	      "supervisor_mode_kernel is 0 (a 64-bit PV kernel runs in ring 3)");
	check(!(fi.submap & ((1U << XENFEAT_hvm_callback_vector) | (1U << XENFEAT_hvm_pirqs))),
	      "the HVM-only bits hvm_callback_vector and hvm_pirqs are 0");
	check(!(fi.submap & (1U << XENFEAT_dom0)), "dom0 is 0 (we are a domU)");
}

static void numbers(void)
{
	xen_platform_parameters_t pp = { .virt_start = 0 };
	xen_domain_handle_t handle;
	long rc;

	rc = hypercall_xen_version(XENVER_platform_parameters, &pp);
	if (check(rc == 0, "XENVER_platform_parameters: rc %ld (%s)", rc, errno_name(rc))) {
		printf("    virt_start = %#lx\n", (unsigned long)pp.virt_start);
		check(pp.virt_start == HYPERVISOR_VIRT_START,
		      "virt_start is HYPERVISOR_VIRT_START (%#lx) for a 64-bit PV guest",
		      (unsigned long)HYPERVISOR_VIRT_START);
	}

	rc = hypercall_xen_version(XENVER_pagesize, NULL);
	check(rc == 4096, "XENVER_pagesize = %ld", rc);

	memset(handle, 0, sizeof(handle));
	rc = hypercall_xen_version(XENVER_guest_handle, handle);
	if (check(rc == 0, "XENVER_guest_handle: rc %ld (%s)", rc, errno_name(rc))) {
		printf("    handle =");
		for (unsigned int i = 0; i < sizeof(handle); i++)
			printf(" %02x", handle[i]);
		printf("\n");
	}

	rc = hypercall_xen_version(0x7ff0, NULL);
	check(rc == -XEN_ENOSYS, "unknown sub-op 0x7ff0: %ld (%s), want -ENOSYS", rc, errno_name(rc));
}

/* sysctl and domctl: cmd, interface_version and (domctl) domain at the start of a 256-byte
 * structure, the rest zero */
static long ctl(unsigned int nr, uint32_t cmd, uint32_t version, uint16_t domain)
{
	static uint8_t op[256];

	memset(op, 0, sizeof(op));
	memcpy(op, &cmd, 4);
	memcpy(op + 4, &version, 4);
	memcpy(op + 8, &domain, 2);
	return HC(nr, op, 0, 0);
}

static void toolstack(void)
{
	enum { SYSCTL_physinfo = 3, DOMCTL_createdomain = 1, VERSION = 0x15 };
	long rc = HC(__HYPERVISOR_sysctl, NULL, 0, 0);
	check(rc == -XEN_ENOSYS, "sysctl of a NULL structure: %ld (%s), want -ENOSYS", rc, errno_name(rc));
	rc = ctl(__HYPERVISOR_sysctl, SYSCTL_physinfo, VERSION, 0);
	check(rc == -XEN_ENOSYS, "sysctl physinfo, interface version 0x15: %ld (%s), want -ENOSYS", rc, errno_name(rc));
	rc = ctl(__HYPERVISOR_domctl, DOMCTL_createdomain, VERSION, 0);
	check(rc == -XEN_ENOSYS, "domctl createdomain, version 0x15: %ld (%s), want -ENOSYS", rc, errno_name(rc));
}

void test_main(void)
{
	version_number();
	strings();
	features();
	numbers();
	toolstack();
}
