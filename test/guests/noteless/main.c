/*
 * noteless: a kernel whose Xen ELF notes are only in a note section, with no PT_NOTE header.
 *
 * Xen's loader (libelf) reads the notes from PT_NOTE program headers and, when there are none,
 * from SHT_NOTE sections; some PV kernels are linked that way. A builder that only looks at
 * program headers finds no ENTRY, VIRT_BASE or HYPERCALL_PAGE note and refuses the kernel or
 * enters it at the wrong place. This kernel is the library's usual one linked without PT_NOTE
 * (link.ld here). It asks for a hypercall page: reaching test_main at all proves the ENTRY note
 * was found, and a filled page proves HYPERCALL_PAGE was.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"

GUEST_USE_HYPERCALL_PAGE();

extern char hypercall_page[];

const char test_title[] = "noteless: Xen notes only in a section (no PT_NOTE)";

void test_main(void)
{
	check(start_info != NULL, "entered at the ENTRY note's address with start_info");
	check((unsigned char)hypercall_page[__HYPERVISOR_xen_version * 32] != 0xcc,
	      "the HYPERCALL_PAGE note was honoured (the page is filled)");
	if (check(hypercall_set_path(HC_PAGE), "switch to hypercall-page hypercalls"))
		printf("noteless: this line came through the hypercall page\n");
}
