/*
 * iret-fault: a fault taken by the hypervisor's own iret back to the guest belongs to the guest
 * (run with --vcpus 2).
 *
 * A PV guest owns its GDT frames and may rewrite any descriptor with update_descriptor at any
 * time, from any vCPU (public/xen.h). The hypervisor returns to a PV guest with iretq (Xen 4.17:
 * restore_all_guest's iret_exit_to_guest, compat_restore_all_guest for a 32-bit guest; sysret
 * only after a SYSCALL entry), which loads CS and SS from the saved frame. So a selector that was
 * fine when the guest left can be unloadable by the time the hypervisor returns, if another vCPU
 * cleared its descriptor meanwhile: the iretq faults in the hypervisor. Xen marks that iretq
 * with a pre-exception fixup (_ASM_PRE_EXTABLE(.Lft0, handle_exception)): the fault, taken with
 * interrupts off in Xen, is moved onto the guest frame the iretq was loading
 * (exception_with_ints_disabled), and handle_exception then treats it as a fault of the guest at
 * that context (do_trap bounces it to the guest's handler with its error code). The guest sees
 * its code at the return address fault as if the CPU had refused the selector there; a
 * hypervisor without that fixup faults in its own code, so any guest could kill it (our shim
 * panicked so until pv_iret_fault). For a not-present code segment the SDM's IRET gives
 * #NP(selector): the error code is the selector with the EXT and IDT bits, both 0 here, in place
 * of the RPL, i.e. index*8 for a GDT selector.
 *
 * Method. vCPU 0 makes a GDT page holding X, a DPL-3 code descriptor (64-bit code, flat, accessed
 * bit set so the CPU never writes it), maps it read-only and starts vCPU 1 with it as its GDT
 * (gdt_frames of VCPUOP_initialise). vCPU 1 enters user mode (lib/user.h), far-returns into
 * CS = X and loops on the forced-emulation CPUID (ud2; .ascii "xen"; cpuid): a #UD that the
 * hypervisor emulates at any CPL (Xen's emulate_forced_invalid_op, unless the guest turned CPUID
 * faulting on; ours pv/vcpu/emulate.c) and leaves with its own iretq to CS = X, the guest kernel
 * never running in between. Meanwhile vCPU 0 flips X between not present and present with
 * update_descriptor. Under the one-pCPU Xen L0 the shim's two CPUs take turns, so the race hits
 * once a turn of CPU 1 ends inside the hypervisor while CPU 0 left X not present; standalone they
 * run side by side. vCPU 1 then takes #NP with error X & 0xfff8 at its user context: the frame's
 * CS is X and its rip in the loop (after the CPUID, or wherever an interrupt into the hypervisor
 * came back to, which returns the same way; the line says which), and user_run ends with
 * USER_FAULT(11, X & 0xfff8). The handler sends it back to user mode through FLAT_USER_CS (its
 * frame's CS would be X again). vCPU 0 stops at the first fault with X present; 20 s without one
 * fail the test ("the race never hit"). Then vCPU 1 runs in X again, 200 emulated CPUIDs with X
 * left alone, and returns normally; it downs itself and the guest powers off: the hypervisor
 * lived through it. Our shim counts these faults in its shutdown report ("N faults of our iret
 * to it"), which its suite lines require to be non-zero.
 *
 * The 32-bit PAE build (pv32): ring 3 shares the ring-1 kernel's page tables (lib/user.c gives
 * the image _PAGE_USER), X is a flat 32-bit code segment of DPL 3 (check_descriptor refuses L for
 * a 32-bit guest), the far returns are 32-bit, and compat_restore_all_guest's iretq carries the
 * same fixup; the #NP and its error code are the same (USER_FAULT keeps 16 bits of it).
 *
 * Expect: stock PASS on xen; ours PASS on xen and none (each with --vcpus 2). The -pv32 build:
 * stock PASS on xen, ours PASS on xen and none (--vcpus 2).
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "traps.h"
#include "user.h"

const char test_title[] = "iret-fault: #NP at the hypervisor's iret to a CS another vCPU made not present";

#define MS 1000000ull
#define RACE_LIMIT (20000 * MS)         /* give up on the race after this */
#define WAIT (10000 * MS)               /* the bound of every other wait for vCPU 1 */
#define AGAIN 200                       /* the CPUIDs of vCPU 1's second run in X */

#define X_IDX 5
#define X_SEL (X_IDX << 3 | 3)          /* GDT, RPL 3 */
#define X_ERROR (X_IDX << 3)            /* #NP(selector): index and TI, no RPL */
#ifdef __i386__
#define X_DESC 0x00cffb000000ffffULL    /* flat 32-bit code, DPL 3, accessed */
#else
#define X_DESC 0x00affb000000ffffULL    /* 64-bit code (L), DPL 3, accessed */
#endif
#define DESC_P (1ULL << 47)
#define GDT_ENTS 8

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* user.S (x86_32/user.S): the loop in user mode, and what it reads and writes */
void x_loop(void);
extern char x_in[], x_after_cpuid[], x_out[];
unsigned long x_sel = X_SEL;
unsigned x_entered, x_stop;
unsigned long x_count, x_limit;

static uint64_t gdt[512] __attribute__((aligned(4096)));
static char ap_stack[16384] __attribute__((aligned(16)));
static struct vcpu_guest_context ctx;

/* vCPU 1's side, seen by vCPU 0 */
static struct {
	unsigned done1, phase2, done2;
	unsigned long result1, result2;
} ap;

/* The first fault taken in CS = X (vCPU 1's kernel records it). */
static unsigned long x_faults, xf_vector, xf_error, xf_rip, xf_cs;

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/*
 * Every trap comes here first (lib/traps.c). One in CS = X is the one this test provokes: note
 * it, and send the return to user mode through the flat user CS, since X may be not present
 * again by then. user_recover (lib/user.c) then ends the run with USER_FAULT(vector, error).
 */
bool trap_hook(struct trap_frame *f)
{
	if ((f->cs & 0xffff) != X_SEL)
		return false;
	if (LOAD(x_faults) == 0) {
		xf_vector = f->vector;
		xf_error = f->error_code;
		xf_rip = f->rip;
		xf_cs = f->cs & 0xffff;
	}
	STORE(x_faults, LOAD(x_faults) + 1);
	f->cs = (f->cs & ~0xfffful) | FLAT_USER_CS;	/* the bits above: the saved upcall mask */
	return false;
}

/* vCPU 1 starts here (its VCPUOP_initialise context) and never prints. */
_Noreturn void ap_main(void);
_Noreturn void ap_main(void)
{
	shared_info->vcpu_info[1].evtchn_upcall_mask = 1;
	vcpu_op(VCPUOP_stop_periodic_timer, 1, NULL);
	user_init();
	STORE(ap.result1, user_run(x_loop));
	STORE(ap.done1, 1);
	while (!LOAD(ap.phase2))
		cpu_relax();
	STORE(ap.result2, user_run(x_loop));
	STORE(ap.done2, 1);
	vcpu_op(VCPUOP_down, 1, NULL);
	for (;;)
		cpu_relax();
}

static uint64_t now(void)
{
	return pvclock_ns_shared();
}

/* Wait at most ns for *p to become non-zero. */
static bool wait_set(const unsigned *p, uint64_t ns)
{
	uint64_t end = now() + ns;

	while (!LOAD(*p) && now() < end)
		cpu_relax();
	return LOAD(*p) != 0;
}

/* vCPU 1 in kernel mode on its own stack, with our trap table, page tables and X's GDT page. */
static void ap_context(struct vcpu_guest_context *c)
{
	unsigned long top = (unsigned long)ap_stack + sizeof(ap_stack);

	memset(c, 0, sizeof(*c));
	c->flags = VGCF_in_kernel;
#ifdef __i386__
	c->user_regs.eip = (unsigned long)ap_main;
	c->user_regs.esp = top - 4;	/* as right after a call */
	c->user_regs.cs = FLAT_KERNEL_CS;
	c->user_regs.ss = FLAT_KERNEL_SS;
	c->user_regs.ds = FLAT_KERNEL_DS;
	c->user_regs.es = FLAT_KERNEL_DS;
	c->user_regs.eflags = 0x2;
	c->event_callback_cs = FLAT_KERNEL_CS;
	c->failsafe_callback_cs = FLAT_KERNEL_CS;
#else
	c->user_regs.rip = (unsigned long)ap_main;
	c->user_regs.rsp = top - 8;	/* as right after a call */
	c->user_regs.cs = FLAT_KERNEL_CS;
	c->user_regs.ss = FLAT_KERNEL_SS;
	c->user_regs.rflags = 0x2;
#endif
	c->event_callback_eip = events_callback(1);
	traps_copy(c->trap_ctxt);
	c->gdt_frames[0] = virt_to_mfn(gdt);
	c->gdt_ents = GDT_ENTS;
	c->kernel_ss = FLAT_KERNEL_SS;
	c->kernel_sp = top;
	c->ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn((void *)start_info->pt_base));
}

void test_main(void)
{
	long rc = vcpu_op(VCPUOP_is_up, 1, NULL);

	if (rc == -XEN_ENOENT)
		test_fail("is_up(vCPU 1): -ENOENT: the guest has 1 vCPU; run it with --vcpus 2");

	/* X's GDT page, read-only (a descriptor page may have no writable mapping), for vCPU 1 */
	gdt[X_IDX] = X_DESC;
	rc = page_ro(gdt);
	if (!check(rc == 0, "the GDT page mapped read-only: %ld %s", rc, errno_name(rc)))
		test_fail("no GDT page");
	STORE(x_limit, ~0ul);
	ap_context(&ctx);
	rc = vcpu_op(VCPUOP_initialise, 1, &ctx);
	if (!check(rc == 0, "VCPUOP_initialise(vCPU 1) with X's page as its GDT (%d entries): %ld %s", GDT_ENTS, rc,
		   errno_name(rc)))
		test_fail("no vCPU 1");
	rc = vcpu_op(VCPUOP_up, 1, NULL);
	if (!check(rc == 0, "VCPUOP_up(vCPU 1): %ld %s", rc, errno_name(rc)))
		test_fail("no vCPU 1");
	if (!check(wait_set(&x_entered, WAIT), "vCPU 1 far-returned into CS %#x in user mode", X_SEL))
		test_fail("vCPU 1 never reached its loop (done %u, result %#lx)", LOAD(ap.done1), LOAD(ap.result1));

	/* the race: X not present, present again, until vCPU 1 faults; always left present */
	uint64_t ma = ((uint64_t)virt_to_mfn(gdt) << PAGE_SHIFT) + X_IDX * 8;
	uint64_t t0 = now(), t1 = t0;
	unsigned long flips = 0;
	long rc_off = 0, rc_on = 0;

	while (!LOAD(x_faults) && !LOAD(ap.done1) && (flips % 16 || (t1 = now()) < t0 + RACE_LIMIT)) {
		rc_off = hypercall_update_descriptor(ma, X_DESC & ~DESC_P);
		rc_on = hypercall_update_descriptor(ma, X_DESC);
		if (rc_off || rc_on)
			break;
		flips++;
	}
	t1 = now();
	STORE(x_stop, 1);
	unsigned long cpuids = LOAD(x_count);
	check(rc_off == 0 && rc_on == 0, "update_descriptor of X, not present and present: %ld %s, %ld %s",
	      rc_off, errno_name(rc_off), rc_on, errno_name(rc_on));
	printf("  %lu flips of X in %lu ms; vCPU 1 made %lu emulated CPUIDs in CS %#x meanwhile\n", flips,
	       (unsigned long)((t1 - t0) / MS), cpuids, X_SEL);
	check(gdt[X_IDX] == X_DESC, "vCPU 0 stopped flipping with X present: %#llx (want %#llx)",
	      (unsigned long long)gdt[X_IDX], (unsigned long long)X_DESC);
	check(wait_set(&ap.done1, WAIT), "vCPU 1's run in user mode ended");

	unsigned long r1 = LOAD(ap.result1), faults = LOAD(x_faults);
	if (!check(faults > 0, "the race hit: a return to vCPU 1 found CS %#x not present (within %llu s)", X_SEL,
		   RACE_LIMIT / MS / 1000))
		printf("  the race never hit: %lu flips, %lu CPUIDs, run result %#lx\n", flips, cpuids, r1);
	check(r1 == USER_FAULT(11, X_ERROR),
	      "vCPU 1's run ended in #NP with error %#x (the selector, RPL bits clear: IRET's #NP(selector)): result %#lx (want %#lx)",
	      X_ERROR, r1, USER_FAULT(11, X_ERROR));
	check(faults == 1 && xf_vector == 11 && xf_error == X_ERROR && xf_cs == X_SEL &&
	      xf_rip >= (unsigned long)x_in && xf_rip < (unsigned long)x_out,
	      "  one fault (%lu), vector %lu error %#lx, at the user context returned to: cs %#lx (want %#x), rip %#lx in [%p, %p)",
	      faults, xf_vector, xf_error, xf_cs, X_SEL, xf_rip, x_in, x_out);
	printf("  the fault's rip %s the emulated CPUID's return (%p)\n",
	       xf_rip == (unsigned long)x_after_cpuid ? "is" : "is not", x_after_cpuid);

	/* vCPU 1 again in X, left alone: the hypervisor's returns there work as before */
	STORE(x_count, 0ul);
	STORE(x_limit, (unsigned long)AGAIN);
	STORE(x_stop, 0u);
	STORE(ap.phase2, 1);
	bool done2 = wait_set(&ap.done2, WAIT);
	unsigned long r2 = LOAD(ap.result2), n2 = LOAD(x_count);
	check(done2 && r2 == 0 && n2 == AGAIN && LOAD(x_faults) == faults,
	      "vCPU 1 ran in CS %#x again: %lu emulated CPUIDs (want %u), a normal return (result %#lx), no fault (%lu)",
	      X_SEL, n2, AGAIN, r2, LOAD(x_faults) - faults);

	uint64_t end = now() + WAIT;
	while ((rc = vcpu_op(VCPUOP_is_up, 1, NULL)) == 1 && now() < end)
		cpu_relax();
	check(rc == 0, "vCPU 1 took itself down: is_up %ld", rc);
}
