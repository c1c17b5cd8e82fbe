/*
 * db-entry: debug traps raised by the very instruction that enters the hypervisor (the XSA-260
 * class, CVE-2018-8897; XSA-204 for SYSCALL and TF).
 *
 * A MOV SS (or POP SS) holds the debug exceptions it raises, a data breakpoint on the word it
 * loads among them, until the next instruction has run: the pair is meant to set SS:RSP as one.
 * If that next instruction is SYSCALL, INT3 or INT n from user mode, the held #DB is delivered at
 * the first instruction of the hypervisor's entry point, in ring 0. There SYSCALL has switched
 * neither stack nor GS (a #DB taken without an IST stack pushes its frame at the guest's stack
 * pointer); an INT from ring 3 has switched stacks but not GS. Xen 4.17 takes #DB on an IST stack, so it never uses a stack
 * pointer it did not set, and its do_debug (arch/x86/traps.c) treats a #DB outside guest context
 * as noise: it logs "Hit #DB in Xen context", resets DR6 (the status is not merged into the
 * vCPU's DR6) and returns to the entry point, which goes on as if nothing had happened. The guest
 * sees its system call or trap, never the #DB. A hypervisor whose #DB handler trusts the
 * interrupted ring (ring 0: "our GS, our stack") writes its frame onto guest memory and then runs
 * on the guest's GS base.
 *
 * SYSCALL and TF are the other way in (XSA-204): SYSCALL decides on a single-step trap by the
 * RFLAGS it produces, so with TF in the hypervisor's SFMASK no #DB comes at its entry. The system
 * call reaches the guest's callback with TF in the frame's rflags; the callback itself runs with
 * TF clear (Xen's create_bounce_frame clears it); and the step is reported on the way back. For a
 * 64-bit guest, HYPERVISOR_iret with VGCF_in_syscall returns by SYSRET (Xen's restore_all_guest),
 * which restores TF and traps at once: #DB with DR6.BS at the instruction the syscall returns to,
 * as if the SYSCALL had been stepped. A 32-bit guest's return is an IRET
 * (compat_restore_all_guest): the instruction at the return address runs, then the #DB.
 *
 * What the guest checks, in user mode (lib/user.h), each sequence in one run:
 *  (a) TF set by popf, then SYSCALL: the callback once, with the user's rip, cs, rsp and TF in
 *      rflags; no #DB in the kernel; then exactly one #DB from user mode, DR6.BS only, where the
 *      return puts it (above); rax + 1000 back in user mode.
 *  (b) DR0 = a word holding the user SS selector, DR7 = read/write, 4 bytes; MOV SS from it, then
 *      SYSCALL: the callback once with the user's frame (no TF), rax back, the run returns.
 *  (c) the same MOV SS, then int3 (Xen's DPL-3 int3 gate) or int $0x80 (the guest's DPL-3 trap
 *      gate; Xen's int80 direct path): the guest's #BP or 0x80 handler once, after the
 *      instruction, with the user's cs and stack pointer.
 * For (a) and (b) once more with the stack pointer 8 bytes above a page made not present (the
 * guard; a read of it from user mode is #PF): a hypervisor that pushed a #DB frame there in ring 0
 * would fault inside its own entry. SYSCALL is the case: an INT from ring 3 loads the hypervisor's
 * stack from the TSS first.
 * Whether the MOV SS #DB is held at all is the CPU's, so the test asks the CPU first: MOV SS then
 * two nops. Held (hardware, as the SDM has it): the #DB comes after the first nop, and in (b) and
 * (c) no #DB reaches the guest at all (the hypervisor took it at its entry and dropped it) and DR6
 * keeps no B0. Not held: the #DB comes at the first nop, and in (b) and (c) it reaches the guest
 * in user mode at the SYSCALL or INT itself, DR6.B0, before the entry, which then goes on. This
 * bed's CPUs are the second kind (QEMU's TCG: 7.2 under the Xen L0, 10 standalone, deliver a
 * watchpoint's #DB at the next instruction boundary whatever the shadow), so here no #DB follows
 * the guest into either shim; the test then checks the guest-visible path, and on hardware it
 * checks the entry itself. After every run DR6 must report nothing further, and the guest must
 * power off normally: the hypervisor lived.
 *
 * In (b) user mode also reads back rcx and r11 (64-bit): a SYSRET leaves the return rip and the
 * rflags there, not the kernel's values (our shim returns by iretq and puts them there itself).
 *
 * On this bed (a) is the case that tells: our shim returned from a system call by iretq and
 * reported the step one instruction late (after the nop at the return address) until it raised
 * the step itself (pv_sysret_step). The XSA-260 entry cases cannot fail here, as the CPUs do not
 * hold the #DB (above); on hardware that does, they check our IST #DB and entry handling.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "mm.h"
#include "traps.h"
#include "user.h"

const char test_title[] = "db-entry: debug traps raised by the instruction that enters the hypervisor (XSA-260)";

#define RFLAGS_TF  (1ul << 8)
#define RFLAGS_IF  (1ul << 9)
#define DR6_B0     (1ul << 0)
#define DR6_BS     (1ul << 14)
#define DR6_STATUS 0xe00ful	/* B0-B3, BD, BS, BT */
#define DR7_WATCH  0xf0001ul	/* L0; R/W0 11 (data read or write); LEN0 11 (4 bytes) */
#define NR_TEST    7		/* user.S's system call: rax + 1000 back */
#ifdef __i386__
#define FAULT_VECTOR(r) (((r) >> 16) & 0xff)
#else
#define FAULT_VECTOR(r) (((r) >> 32) & 0xff)
#endif

/* user.S (x86_32/user.S) */
extern unsigned long sc_count, sc_rip, sc_cs, sc_rflags, sc_rsp, sc_kflags, seq_sp, ss_word, guard_sp, user_rax;
extern char dbe_syscall[], trap_0x80[];
#define SEQ(n) void n(void); extern char n##_at[], n##_ret[];
SEQ(u_ss_nop) SEQ(u_tf_syscall) SEQ(u_tf_syscall_guard) SEQ(u_ss_syscall) SEQ(u_ss_syscall_guard)
SEQ(u_ss_int3) SEQ(u_ss_int80)
#undef SEQ
extern char u_tf_syscall_next[], u_tf_syscall_guard_next[];

/* [guard page, made not present][the page the guard runs' stack pointer starts 8 bytes into] */
static char guard_area[2 * PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
static volatile unsigned long sink;

/* Every #DB, #BP and int $0x80 that reaches the guest while a sequence runs, in order. */
#define MAX_EVENTS 8
static struct ev {
	unsigned long vector, rip, cs, sp, rflags, rax, dr6;
} ev[MAX_EVENTS];
static volatile unsigned int nev;
static volatile bool armed;
static unsigned long dr6_after;
/* the CPU holds a MOV SS's #DB past the next instruction (u_ss_nop) */
static bool held;

static unsigned long get_dr6(void)
{
	return (unsigned long)HC(__HYPERVISOR_get_debugreg, 6, 0, 0);
}

/* Note the trap, clear DR6 after a #DB (as an OS's handler does) and TF, resume where it says. */
bool trap_hook(struct trap_frame *f)
{
	if (!armed || (f->vector != 1 && f->vector != 3 && f->vector != 0x80))
		return false;
	if (nev < MAX_EVENTS) {
		struct ev *e = &ev[nev];
		e->vector = f->vector;
		e->rip = f->rip;
		e->cs = f->cs & 0xffff;
		e->sp = trap_sp(f);
		e->rflags = f->rflags;
		e->rax = f->rax;
		e->dr6 = 0;
		if (f->vector == 1) {
			e->dr6 = get_dr6();
			HC(__HYPERVISOR_set_debugreg, 6, 0, 0);
		}
	}
	nev++;
	f->rflags &= ~RFLAGS_TF;
	return true;
}

static const struct { const char *name; const char *at; } labels[] = {
	{ "u_ss_nop_at", u_ss_nop_at }, { "u_ss_nop_ret", u_ss_nop_ret },
	{ "u_tf_syscall_at", u_tf_syscall_at }, { "u_tf_syscall_ret", u_tf_syscall_ret },
	{ "u_tf_syscall_next", u_tf_syscall_next },
	{ "u_tf_syscall_guard_at", u_tf_syscall_guard_at }, { "u_tf_syscall_guard_ret", u_tf_syscall_guard_ret },
	{ "u_tf_syscall_guard_next", u_tf_syscall_guard_next },
	{ "u_ss_syscall_at", u_ss_syscall_at }, { "u_ss_syscall_ret", u_ss_syscall_ret },
	{ "u_ss_syscall_guard_at", u_ss_syscall_guard_at }, { "u_ss_syscall_guard_ret", u_ss_syscall_guard_ret },
	{ "u_ss_int3_at", u_ss_int3_at }, { "u_ss_int3_ret", u_ss_int3_ret },
	{ "u_ss_int80_at", u_ss_int80_at }, { "u_ss_int80_ret", u_ss_int80_ret },
};

static const char *where(unsigned long rip)
{
	static char buf[4][24];
	static unsigned int n;

	for (unsigned int i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if ((unsigned long)labels[i].at == rip)
			return labels[i].name;
	char *b = buf[n++ % 4];
	snprintf(b, sizeof(buf[0]), "%#lx", rip);
	return b;
}

/* One sequence in user mode, the watchpoint armed or not; the run's result. */
static unsigned long seq(void (*fn)(void), bool watch)
{
	nev = 0;
	sc_count = 0;
	user_rax = 0;
	seq_sp = 0;
	HC(__HYPERVISOR_set_debugreg, 6, 0, 0);
	if (watch) {
		long rc0 = HC(__HYPERVISOR_set_debugreg, 0, &ss_word, 0);
		long rc7 = HC(__HYPERVISOR_set_debugreg, 7, DR7_WATCH, 0);
		if (rc0 || rc7)
			test_fail("set_debugreg DR0 = %p, DR7 = %#lx: %ld %s, %ld %s", (void *)&ss_word, DR7_WATCH, rc0,
				  errno_name(rc0), rc7, errno_name(rc7));
	}
	armed = true;
	unsigned long r = user_run(fn);
	armed = false;
	dr6_after = get_dr6();
	if (watch)
		HC(__HYPERVISOR_set_debugreg, 7, 0, 0);
	for (unsigned int i = 0; i < nev && i < MAX_EVENTS; i++)
		printf("  trap %lu at %s, cs %#lx sp %#lx rflags %#lx dr6 %#lx\n", ev[i].vector, where(ev[i].rip),
		       ev[i].cs, ev[i].sp, ev[i].rflags, ev[i].dr6);
	return r;
}

static bool user_cs(unsigned long cs)
{
	return (cs & 0xffff) == FLAT_USER_CS;
}

static void check_ran(const char *what, unsigned long r)
{
	check(r == 0, "%s: the run returned normally (result %#lx, rip %s)", what, r, r ? where(user_fault_rip) : "-");
}

/* DR6 after the run, past what the guest's #DB handler read and cleared: nothing more. */
static void check_dr6_after(void)
{
	check(!(dr6_after & DR6_STATUS), "  DR6 then reports nothing (%#lx)", dr6_after);
}

/*
 * The watchpoint's #DB as the guest sees it before the entry: not held, ev[0] in user mode at
 * the entering instruction with B0; held, nothing (the hypervisor took it). The index of the
 * next event.
 */
static unsigned int check_watch_db(const char *at)
{
	if (held) {
		check(nev == 0 || ev[0].vector != 1,
		      "  no #DB reached the guest: the hypervisor took it at its entry and went on (first trap %lu at %s)",
		      nev ? ev[0].vector : 0ul, nev ? where(ev[0].rip) : "-");
		return 0;
	}
	check(nev >= 1 && ev[0].vector == 1 && ev[0].rip == (unsigned long)at && user_cs(ev[0].cs) &&
	      ev[0].sp == seq_sp && (ev[0].dr6 & DR6_STATUS) == DR6_B0,
	      "  the #DB reached the guest in user mode at the instruction, before the entry: rip %s (want %s), cs %#lx, sp %#lx (want %#lx), DR6 %#lx (B0 only)",
	      nev ? where(ev[0].rip) : "-", where((unsigned long)at), nev ? ev[0].cs : 0ul, nev ? ev[0].sp : 0ul,
	      seq_sp, nev ? ev[0].dr6 : 0ul);
	return 1;
}

static void check_callback(const char *ret, bool tf)
{
	check(sc_count == 1 && sc_rip == (unsigned long)ret && user_cs(sc_cs) && sc_rsp == seq_sp &&
	      !!(sc_rflags & RFLAGS_TF) == tf,
	      "  the syscall reached the callback once (%lu) with the user's frame: rip %s (want %s), cs %#lx, sp %#lx (want %#lx), rflags %#lx (TF %s)",
	      sc_count, where(sc_rip), where((unsigned long)ret), sc_cs & 0xffff, sc_rsp, seq_sp, sc_rflags,
	      tf ? "set" : "clear");
	check(user_rax == NR_TEST + 1000, "  user mode got its result back (%lu)", user_rax);
}

/* The CPU: is a MOV SS's data-breakpoint #DB held past the next instruction? */
static void calibrate(void)
{
	printf("the CPU: MOV SS from the watched word, then two nops\n");
	unsigned long r = seq(u_ss_nop, true);
	check_ran("MOV SS; nop; nop", r);
	bool one = nev == 1 && ev[0].vector == 1 && user_cs(ev[0].cs) && (ev[0].dr6 & DR6_STATUS) == DR6_B0;
	check(one && (ev[0].rip == (unsigned long)u_ss_nop_at || ev[0].rip == (unsigned long)u_ss_nop_ret),
	      "  one #DB in user mode, DR6 %#lx (B0 only), at %s (the first nop, or the second)",
	      nev ? ev[0].dr6 : 0ul, nev ? where(ev[0].rip) : "-");
	held = one && ev[0].rip == (unsigned long)u_ss_nop_ret;
	printf("  this CPU %s\n", held ? "holds the #DB past the next instruction (as the SDM's MOV SS)"
				       : "delivers the #DB right after the MOV SS: here none follows the guest into the hypervisor");
	check_dr6_after();
}

/* (a) TF, then SYSCALL */
static void tf_syscall(const char *what, void (*fn)(void), const char *ret, const char *next)
{
	printf("%s\n", what);
	unsigned long r = seq(fn, false);
	check_ran(what, r);
	check_callback(ret, true);
	check(!(sc_kflags & RFLAGS_TF), "  the callback ran with TF clear (rflags %#lx)", sc_kflags);
#ifdef __i386__
	/* compat_restore_all_guest: IRET, so the instruction at the return address runs first */
	const char *step = next;
	(void)ret;
#else
	/* VGCF_in_syscall: SYSRET, which traps at once on the TF it restores */
	const char *step = ret;
	(void)next;
#endif
	check(nev == 1 && ev[0].vector == 1 && ev[0].rip == (unsigned long)step && user_cs(ev[0].cs) &&
	      (ev[0].dr6 & DR6_STATUS) == DR6_BS,
	      "  then one #DB (%u), in user mode, DR6 %#lx (BS only), at %s (want %s: the hypervisor's return to user mode)",
	      nev, nev ? ev[0].dr6 : 0ul, nev ? where(ev[0].rip) : "-", where((unsigned long)step));
	check_dr6_after();
}

/* (b) MOV SS, then SYSCALL */
static void ss_syscall(const char *what, void (*fn)(void), const char *at, const char *ret)
{
	printf("%s\n", what);
	unsigned long r = seq(fn, true);
	check_ran(what, r);
	unsigned int i = check_watch_db(at);
	check(nev == i, "  no other trap (%u)", nev - i);
	check_callback(ret, false);
#ifndef __i386__
	/* Xen's return from it is SYSRET (VGCF_in_syscall): rcx holds the rip it went back to, r11
	 * the rflags (IF set, no TF), never what the kernel had in them */
	extern unsigned long user_rcx, user_r11;
	if (fn == u_ss_syscall)
		check(user_rcx == (unsigned long)ret && (user_r11 & (RFLAGS_IF | RFLAGS_TF)) == RFLAGS_IF,
		      "  rcx %s (want %s) and r11 %#lx (IF, no TF) as a SYSRET leaves them", where(user_rcx),
		      where((unsigned long)ret), user_r11);
#endif
	check_dr6_after();
}

/* (c) MOV SS, then int3 or int $0x80 */
static void ss_int(const char *what, void (*fn)(void), const char *at, const char *ret, unsigned long vector)
{
	printf("%s\n", what);
	unsigned long r = seq(fn, true);
	check_ran(what, r);
	unsigned int i = check_watch_db(at);
	const struct ev *e = nev > i ? &ev[i] : NULL;
	check(nev == i + 1 && e->vector == vector && e->rip == (unsigned long)ret && user_cs(e->cs) && e->sp == seq_sp &&
	      (vector != 0x80 || e->rax == NR_TEST),
	      "  then the guest's handler of vector %lu once (%u), after the instruction: rip %s (want %s), cs %#lx, sp %#lx (want %#lx)",
	      vector, nev - i, e ? where(e->rip) : "-", where((unsigned long)ret), e ? e->cs : 0ul, e ? e->sp : 0ul, seq_sp);
	check(sc_count == 0, "  no system call (%lu)", sc_count);
	check_dr6_after();
}

static void touch_guard(void)
{
	sink = *(volatile unsigned long *)guard_area;
}

void test_main(void)
{
	long rc;

	user_init();
#ifdef __i386__
	/* SYSCALL from ring 3 needs one (compat_syscall; without it #GP) */
	struct callback_register cb = { .type = CALLBACKTYPE_syscall32, .flags = CALLBACKF_mask_events,
					.address = { FLAT_KERNEL_CS, (unsigned long)dbe_syscall } };
#else
	struct callback_register cb = { .type = CALLBACKTYPE_syscall, .flags = CALLBACKF_mask_events,
					.address = (unsigned long)dbe_syscall };
#endif
	rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
	check(rc == 0, "our syscall callback registered: %ld %s", rc, errno_name(rc));
	static struct trap_info ti[2] = { { 0x80, 3 | 4, FLAT_KERNEL_CS, 0 } };
	ti[0].address = (unsigned long)trap_0x80;
	rc = hypercall_set_trap_table(ti);
	check(rc == 0, "int $0x80 as a DPL-3 trap gate: %ld %s", rc, errno_name(rc));

	ss_word = FLAT_USER_SS;
	rc = hypercall_update_va_mapping((unsigned long)guard_area, 0, UVMF_INVLPG);
	check(rc == 0, "the guard page made not present: %ld %s", rc, errno_name(rc));
	guard_sp = (unsigned long)guard_area + PAGE_SIZE + 8;
	unsigned long r = user_run(touch_guard);
	check(FAULT_VECTOR(r) == 14 && shared_info->vcpu_info[0].arch.cr2 == (unsigned long)guard_area,
	      "  a read of it from user mode is #PF (result %#lx, cr2 %#lx)", r,
	      (unsigned long)shared_info->vcpu_info[0].arch.cr2);

	calibrate();
	tf_syscall("(a) TF, then syscall", u_tf_syscall, u_tf_syscall_ret, u_tf_syscall_next);
	ss_syscall("(b) MOV SS, then syscall", u_ss_syscall, u_ss_syscall_at, u_ss_syscall_ret);
	ss_int("(c) MOV SS, then int3", u_ss_int3, u_ss_int3_at, u_ss_int3_ret, 3);
	ss_int("(c) MOV SS, then int $0x80", u_ss_int80, u_ss_int80_at, u_ss_int80_ret, 0x80);
	tf_syscall("(a) TF, then syscall, rsp 8 bytes above the guard page", u_tf_syscall_guard, u_tf_syscall_guard_ret,
		   u_tf_syscall_guard_next);
	check(seq_sp == guard_sp, "  rsp was %#lx (want %#lx)", seq_sp, guard_sp);
	ss_syscall("(b) MOV SS, then syscall, rsp 8 bytes above the guard page", u_ss_syscall_guard, u_ss_syscall_guard_at,
		   u_ss_syscall_guard_ret);
	check(seq_sp == guard_sp, "  rsp was %#lx (want %#lx)", seq_sp, guard_sp);
}
