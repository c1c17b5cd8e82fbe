/*
 * hcpage: a guest that reaches the hypervisor only through its hypercall page.
 *
 * Guests built on XTF or Mini-OS carry XEN_ELFNOTE_HYPERCALL_PAGE and call hypercall_page +
 * nr * 32; the domain builder must fill that page (for a 64-bit PV guest: stubs that `syscall`
 * from guest kernel mode), or the guest dies at its first hypercall (the page holds int3 here,
 * so it would trap loudly). We check that every stub of the page's 128 slots was written, that
 * the iret slot differs from an ordinary one, that hypercalls through the page work
 * (xen_version, console output, an unknown number gets -ENOSYS), and that a stub returns with
 * the caller's rcx and r11 intact (the stubs save them around `syscall`, which clobbers them).
 *
 * The 32-bit build: Xen fills the page by pv_ring1_init_hypercall_page (xen/arch/x86/pv/
 * hypercall.c) instead of pv_ring3_init_hypercall_page: each slot `mov $nr,%eax; int $0x82; ret`
 * and the iret slot `push %eax; mov $__HYPERVISOR_iret,%eax; int $0x82`, the rest of the page
 * int3 (init_hypercall_page's memset). Those bytes are checked instead of the rcx/r11 check,
 * which is 64-bit only (no `syscall` in a ring-1 stub) and skipped with a line saying so.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"

GUEST_USE_HYPERCALL_PAGE();

extern char hypercall_page[];

const char test_title[] = "hcpage: every hypercall through the hypercall page";

static void page_filled(void)
{
	unsigned int empty = 0;

	for (unsigned int nr = 0; nr < 4096 / 32; nr++)
		if ((unsigned char)hypercall_page[nr * 32] == 0xcc)
			empty++;
	check(!empty, "all 128 stubs of the hypercall page are filled (%u still int3)", empty);
	check(memcmp(hypercall_page + __HYPERVISOR_iret * 32, hypercall_page + __HYPERVISOR_xen_version * 32, 32),
	      "the iret stub is not an ordinary stub");
}

#ifdef __i386__
/*
 * pv_ring1_init_hypercall_page: an ordinary slot is b8 <nr:4> cd 82 c3 then int3 to its end; the
 * iret slot (jumped to, never called) is 50 b8 <23:4> cd 82, then int3.
 */
static void stubs_ring1(void)
{
	unsigned int bad = 0, first_bad = ~0u;

	for (unsigned int nr = 0; nr < 4096 / 32; nr++) {
		const unsigned char *p = (const unsigned char *)hypercall_page + nr * 32;
		unsigned char want[32];
		unsigned int n = 0;

		memset(want, 0xcc, sizeof(want));
		if (nr == __HYPERVISOR_iret)
			want[n++] = 0x50;	/* push %eax */
		want[n++] = 0xb8;		/* mov $nr, %eax */
		memcpy(want + n, &nr, 4);
		n += 4;
		want[n++] = 0xcd;		/* int $0x82 */
		want[n++] = 0x82;
		if (nr != __HYPERVISOR_iret)
			want[n++] = 0xc3;	/* ret */
		if (memcmp(p, want, sizeof(want))) {
			if (!bad)
				first_bad = nr;
			bad++;
		}
	}
	check(!bad, "every slot is `mov $nr,%%eax; int $0x82; ret`, the iret slot `push %%eax; mov $23,%%eax; "
	      "int $0x82`, the rest int3 (%u differ, first %u)", bad, first_bad);
}
#else
/* Call the xen_version stub directly with known rcx/r11 and see them come back. */
static void registers_kept(void)
{
	unsigned long rax, out_rcx, out_r11, rdi = XENVER_version, rsi = 0;
	void *stub = hypercall_page + __HYPERVISOR_xen_version * 32;

	__asm__ volatile("movabs $0x1234567890abcdef, %%rcx\n\t"
			 "movabs $0xfedcba0987654321, %%r11\n\t"
			 "call *%[stub]\n\t"
			 "mov %%rcx, %[c]\n\t"
			 "mov %%r11, %[r]"
			 : "=a"(rax), [c] "=m"(out_rcx), [r] "=m"(out_r11), "+D"(rdi), "+S"(rsi)
			 : [stub] "r"(stub)
			 : "rcx", "r11", "rdx", "r8", "r9", "r10", "memory", "cc");
	check((long)rax > 0, "xen_version through the stub: %#lx", rax);
	check(out_rcx == 0x1234567890abcdefUL && out_r11 == 0xfedcba0987654321UL,
	      "rcx and r11 survive the stub (rcx %#lx r11 %#lx)", out_rcx, out_r11);
}
#endif

void test_main(void)
{
	long rc;

	check(hypercall_set_path(HC_PAGE), "switch to hypercall-page hypercalls");
	page_filled();
	printf("hcpage: this line reached the ring through the hypercall page\n");
	rc = hypercall_xen_version(XENVER_version, NULL);
	check(rc > 0, "XENVER_version through the page: %#lx", rc);
	rc = hypercall(60, 0, 0, 0, 0, 0);
	check(rc == -XEN_ENOSYS, "unknown hypercall 60 through the page: %ld (%s)", rc, errno_name(rc));
#ifdef __i386__
	/* A ring-1 stub is int 0x82 (pv_ring1_init_hypercall_page): no syscall, nothing to save. */
	stubs_ring1();
	printf("  skipped: rcx and r11 kept across a stub (64-bit only: pv_ring3_init_hypercall_page's "
	       "push/pop around syscall)\n");
#else
	registers_kept();
#endif
}
