/*
 * xpti: what guest user mode can reach of the hypervisor's memory (Meltdown, CVE-2017-5754; Xen's
 * XPTI for PV guests, XSA-254). A 64-bit PV guest's L4s carry the hypervisor's slots (256-271),
 * supervisor-only; a CPU affected by Meltdown lets ring 3 read such mappings speculatively, and
 * the direct map there holds all of the guest's memory, its kernel's included. With XPTI the
 * user mode runs on tables where those slots map only the hypervisor's entry path.
 *
 * Checked from user mode (lib/user.h): a read of the direct map's alias of one of our own pages
 * (0xffff830000000000 + its machine address: Xen's DIRECTMAP_VIRT_START, and ours) faults with
 * #PF, and its error code says whether the page was mapped: P set without XPTI (a supervisor
 * page, present), clear with it (nothing there). xpti.expect=on|off on the command line says
 * which. Then user mode still works as before: a read of our own page, and a system call, both
 * return.
 *
 * Expect: stock PASS on xen with xpti.expect=off (this bed's CPU is an AMD model: Xen's XPTI is
 * off); ours PASS on xen and none, off by default here and on with the shim's xpti=on.
 */
#include "guest.h"
#include "mm.h"
#include "user.h"

const char test_title[] = "xpti: the hypervisor's direct map seen from guest user mode";

#define DIRECTMAP 0xffff830000000000ul

static volatile unsigned long probe_va;
static volatile unsigned long seen;

static void probe(void)
{
	seen = *(volatile unsigned long *)probe_va;
}

static unsigned long own_page[512] __attribute__((aligned(4096)));

void test_main(void)
{
	char want[8];

	if (!cmdline_word("xpti.expect", want, sizeof(want)) || (strcmp(want, "on") && strcmp(want, "off")))
		test_fail("no xpti.expect=on|off on the command line: the test has no expectation");
	bool on = !strcmp(want, "on");
	user_init();

	own_page[0] = 0x5a5a;
	probe_va = DIRECTMAP + virt_to_maddr(own_page);
	unsigned long r = user_run(probe);
	unsigned long want_err = on ? 4 : 5;	/* U, and P when the page is there */
	printf("user read of %#lx: %s %#lx\n", probe_va, r ? "fault" : "no fault", r);
	check(r == USER_FAULT(14, want_err), "user read of the direct map: %#lx (want #PF, error %lu: %s)", r,
	      want_err, on ? "not present" : "present, supervisor");

	probe_va = (unsigned long)own_page;
	seen = 0;
	r = user_run(probe);
	check(r == 0 && seen == 0x5a5a, "user read of our own page: %#lx, read %#lx", r, seen);
}
