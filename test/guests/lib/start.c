/*
 * start.c: from head.S to test_main(). Order matters: the console ring first (so even a failure
 * to set up traps can be reported where the host sees it), then the trap table, shared_info and
 * an unmapped page 0 (NULL dereferences fault instead of reading pseudo-physical page 0).
 */
#include "guest.h"
#include "traps.h"

start_info_t *start_info;
unsigned long boot_rsp;
shared_info_t *shared_info;

static char shared_info_page[4096] __attribute__((aligned(4096)));

long shared_info_map(void)
{
	uint64_t pte = (start_info->shared_info & ~(PAGE_SIZE - 1)) | PTE_PRESENT | PTE_RW |
		       PTE_USER | PTE_ACCESSED | PTE_DIRTY;
	long rc = hypercall_update_va_mapping((unsigned long)shared_info_page, pte, UVMF_INVLPG);

	if (!rc)
		shared_info = (shared_info_t *)shared_info_page;
	return rc;
}

_Noreturn void guest_start(void);

_Noreturn void guest_start(void)
{
	long ring_rc = console_ring_init();
	long rc;

	printf("--- test guest: %s ---\n", test_title);
	if (ring_rc)
		printf("console ring unavailable (%ld %s): console_io only\n", ring_rc,
		       errno_name(ring_rc));
	rc = traps_init();
	if (rc)
		test_fail("set_trap_table: %ld %s", rc, errno_name(rc));
	rc = shared_info_map();
	if (rc)
		test_fail("mapping shared_info: %ld %s", rc, errno_name(rc));
	rc = hypercall_update_va_mapping(0, 0, UVMF_INVLPG);
	if (rc)
		test_fail("unmapping page 0: %ld %s", rc, errno_name(rc));

	test_main();
	test_pass();
}
