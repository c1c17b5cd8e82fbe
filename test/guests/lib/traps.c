/*
 * traps.c: every exception is unexpected in these tests, except a fault inside a probe (probe.h)
 * that asked for it. The handler prints what happened, gives the verdict RESULT FAIL and crashes
 * the domain (SHUTDOWN_crash), so a test can never pass by accident after a fault.
 */
#include "guest.h"
#include "traps.h"

#define T(v) extern char trap_##v[];
T(0) T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(10) T(11) T(12) T(13) T(14)
T(16) T(17) T(18) T(19) T(20) T(21)
#undef T

/*
 * flags: bits 0-1 = the DPL a software INT needs (3 for int3/into, which the ring-3 kernel of a
 * 64-bit PV guest may execute; 0 makes any other INT n a #GP), bit 2 = mask events on entry.
 */
#define E(v, dpl) { (v), (dpl) | 4, FLAT_KERNEL_CS, (unsigned long)trap_##v }
static struct trap_info trap_table[] = {
	E(0, 0), E(1, 0), E(2, 0), E(3, 3), E(4, 3), E(5, 0), E(6, 0), E(7, 0),
	E(8, 0), E(10, 0), E(11, 0), E(12, 0), E(13, 0), E(14, 0), E(16, 0),
	E(17, 0), E(18, 0), E(19, 0), E(20, 0), E(21, 0),
	{ 0, 0, 0, 0 },	/* end of table: address 0 */
};
#undef E

long traps_init(void)
{
	return hypercall_set_trap_table(trap_table);
}

void traps_copy(struct trap_info ctxt[256])
{
	for (const struct trap_info *t = trap_table; t->address; t++)
		ctxt[t->vector] = *t;
}

static const char *const vector_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "?9", "#TS", "#NP",
	"#SS", "#GP", "#PF", "?15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

/* probe.c's and user.c's recoveries; weak, so a test that never probes or runs user code does
 * not link them (NULL). */
bool probe_recover(struct trap_frame *f) __attribute__((weak));
bool user_recover(struct trap_frame *f) __attribute__((weak));

void trap_entry(struct trap_frame *f)
{
	if (trap_hook && trap_hook(f))
		return;
	if (probe_recover && probe_recover(f))
		return;
	if (user_recover && user_recover(f))
		return;
	trap_fatal(f);
}

_Noreturn void trap_iret_failed(long rc)
{
	printf("HYPERVISOR_iret returned %ld (%s) instead of resuming after an expected fault\n", rc,
	       errno_name(rc));
	test_crash("no way back from an expected fault");
}

_Noreturn void trap_fatal(const struct trap_frame *f)
{
	const char *name = f->vector < 32 && vector_names[f->vector] ? vector_names[f->vector] : "?";

	/* Xen keeps the saved upcall mask in the high bits of the cs slot: show the selector. */
	printf("TRAP %s vector %lu error %#lx at rip %#lx (cs %#lx rflags %#lx rsp %#lx)\n",
	       name, (unsigned long)f->vector, (unsigned long)f->error_code, (unsigned long)f->rip,
	       (unsigned long)f->cs & 0xffff, (unsigned long)f->rflags, trap_sp(f));
	if (f->vector == 14 && shared_info)	/* PV guests read the fault address from vcpu_info */
		printf("  cr2 %#lx\n", shared_info->vcpu_info[0].arch.cr2);
	printf("  rax %#lx rbx %#lx rcx %#lx rdx %#lx\n", (unsigned long)f->rax, (unsigned long)f->rbx,
	       (unsigned long)f->rcx, (unsigned long)f->rdx);
	printf("  rsi %#lx rdi %#lx rbp %#lx\n", (unsigned long)f->rsi, (unsigned long)f->rdi,
	       (unsigned long)f->rbp);
	test_crash("unexpected exception");
}
