/* user.c: user.h's setup, and the recovery of a fault taken in user mode. */
#include "guest.h"
#include "mm.h"
#include "traps.h"
#include "user.h"

/* user.S (x86_32/user.S) */
void user_enter(unsigned long rip, unsigned long rsp);
extern char user_trampoline[], user_exit[], user_syscall_entry[];
extern void (*user_fn)(void);

static char user_stack[4096] __attribute__((aligned(16)));
static char kernel_stack[8192] __attribute__((aligned(16)));
static volatile bool active;
static volatile unsigned long result;
volatile unsigned long user_fault_rip;

#ifdef __i386__
long user_pages(const void *start, const void *end)
{
	for (unsigned long va = (unsigned long)start & ~(PAGE_SIZE - 1); va < (unsigned long)end;
	     va += PAGE_SIZE) {
		uint64_t *e = pt_entry(va, 1);

		if (!e || !(*e & PTE_PRESENT) || (*e & PTE_USER))
			continue;
		long rc = hypercall_update_va_mapping(va, *e | PTE_USER, 0);
		if (rc)
			return rc;
	}
	return tlb_flush();
}

void user_init(void)
{
	long rc;

	/* One set of page tables for both rings: ring 3 needs _PAGE_USER, which Xen's builder
	 * leaves out of a 32-bit kernel's L1 entries (dom0_construct_pv, COMPAT_L1_PROT) */
	if ((rc = user_pages(_image_start, _image_end)))
		test_fail("user_init: the image's pages for ring 3: %ld %s", rc, errno_name(rc));
	if ((rc = HC(__HYPERVISOR_stack_switch, FLAT_KERNEL_SS, kernel_stack + sizeof(kernel_stack), 0)))
		test_fail("user_init: stack_switch: %ld %s", rc, errno_name(rc));
	/* No SYSCALL callback for a 32-bit guest (compat_register_guest_callback): user mode leaves
	 * by int $0x80, a trap gate of DPL 3 (user mode may raise it), events masked on entry */
	struct trap_info ti[2] = {
		{ 0x80, 3 | 4, FLAT_KERNEL_CS, (unsigned long)user_syscall_entry },
		{ 0, 0, 0, 0 },
	};
	if ((rc = hypercall_set_trap_table(ti)))
		test_fail("user_init: set_trap_table for int $0x80: %ld %s", rc, errno_name(rc));
}
#else
void user_init(void)
{
	uint64_t *ul4 = page_alloc(), *kl4 = (uint64_t *)start_info->pt_base;
	long rc;

	for (unsigned int i = 0; i < 512; i++)
		if (i < 256 || i > 271)
			ul4[i] = kl4[i];
	if (page_ro(ul4) || pin(4, ul4))
		test_fail("user_init: cannot pin the user L4");
	if ((rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(ul4))))
		test_fail("user_init: MMUEXT_NEW_USER_BASEPTR: %ld %s", rc, errno_name(rc));
	if ((rc = HC(__HYPERVISOR_stack_switch, FLAT_KERNEL_SS, kernel_stack + sizeof(kernel_stack), 0)))
		test_fail("user_init: stack_switch: %ld %s", rc, errno_name(rc));
	struct callback_register cb = { .type = CALLBACKTYPE_syscall, .flags = CALLBACKF_mask_events,
					.address = (unsigned long)user_syscall_entry };
	if ((rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0)))
		test_fail("user_init: callback_op register syscall: %ld %s", rc, errno_name(rc));
}
#endif

unsigned long user_run(void (*fn)(void))
{
	user_fn = fn;
	result = 0;
	active = true;
	user_enter((unsigned long)user_trampoline, (unsigned long)user_stack + sizeof(user_stack));
	active = false;
	return result;
}

/* traps.c asks first: a fault from user mode during a run ends the run (it resumes at
 * user_exit, which leaves user mode). */
bool user_recover(struct trap_frame *f)
{
	if (!active || (f->cs & 3) != 3)
		return false;
	result = USER_FAULT(f->vector, f->error_code);
	user_fault_rip = f->rip;
	f->rip = (unsigned long)user_exit;
	return true;
}
