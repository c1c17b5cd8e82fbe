/* user.c: user.h's setup, and the recovery of a fault taken in user mode. */
#include "guest.h"
#include "mm.h"
#include "traps.h"
#include "user.h"

/* user.S */
void user_enter(uint64_t rip, uint64_t rsp);
extern char user_trampoline[], user_exit[], user_syscall_entry[];
extern void (*user_fn)(void);

static char user_stack[4096] __attribute__((aligned(16)));
static char kernel_stack[8192] __attribute__((aligned(16)));
static volatile bool active;
static volatile unsigned long result;

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

unsigned long user_run(void (*fn)(void))
{
	user_fn = fn;
	result = 0;
	active = true;
	user_enter((uint64_t)user_trampoline, (uint64_t)user_stack + sizeof(user_stack));
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
	f->rip = (uint64_t)user_exit;
	return true;
}
