/*
 * hello: the smallest useful PV guest, and the test of the test framework itself.
 *
 * A 64-bit PV kernel can reach Xen two ways: a raw `syscall` from guest kernel mode (rax =
 * hypercall number, arguments in rdi, rsi, rdx, r10, r8; what Debian's Linux 6.1 does) or the
 * hypercall page the loader fills when the kernel carries XEN_ELFNOTE_HYPERCALL_PAGE (XTF,
 * Mini-OS): 32-byte stubs at hypercall_page + nr*32. A shim must support both: an unfilled page
 * leaves such guests dead at their first hypercall. We print one line through each path (to the
 * console ring, which ends with EVTCHNOP_send through that path), one line through
 * CONSOLEIO_write, and pass.
 *
 * CONSOLEIO_write from a domU may be refused (-EPERM: XSM's console_io check) or silently dropped
 * (release builds); both are allowed by the ABI, so only other errors fail the test.
 *
 * Expect: stock PASS on xen; ours PASS on xen and none.
 */
#include "guest.h"

GUEST_USE_HYPERCALL_PAGE();

const char test_title[] = "hello: syscall and hypercall-page hypercalls, ring and console_io output";

void test_main(void)
{
	static const char line[] = "hello: this line came through CONSOLEIO_write\n";
	long rc;

	check(hypercall_set_path(HC_SYSCALL), "switch to raw syscall hypercalls");
	printf("hello: this line came through the ring, kicked via %s\n",
	       hypercall_path_name(hypercall_get_path()));

	check(hypercall_page_present(), "the image has a hypercall page");
	if (check(hypercall_set_path(HC_PAGE), "switch to hypercall-page hypercalls"))
		printf("hello: this line came through the ring, kicked via %s\n",
		       hypercall_path_name(hypercall_get_path()));

	rc = console_io_write(line, sizeof(line) - 1);
	printf("CONSOLEIO_write returned %ld (%s)\n", rc, errno_name(rc));
	check(rc == 0 || rc == -XEN_EPERM, "CONSOLEIO_write gives 0 or -EPERM");
}
