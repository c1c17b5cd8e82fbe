/*
 * traps: exceptions, software interrupts, the iret hypercall's edges, single-step and hardware
 * breakpoints, and the segment bases of a 64-bit PV guest kernel (public/xen.h set_trap_table,
 * iret, set_segment_base, set_debugreg; arch-x86/xen-x86_64.h's iret_context; Xen 4.17's
 * arch/x86/traps.c do_general_protection, pv/traps.c pv_inject_event, pv/iret.c do_iret,
 * pv/misc-hypercalls.c).
 *
 * The rules checked, as Xen 4.17 has them (the stock shim is the oracle):
 *  - an exception reaches the handler of the trap table on the frame [rcx, r11, (error code),
 *    rip, cs, rflags, rsp, ss]: #DE and #UD at the instruction; int3 and int $3 after it; #GP(0)
 *    at lgdt and at an in without I/O privilege; #PF with the fault address in vcpu_info's
 *    arch.cr2 and in the emulated mov from CR2, and an error code without the user bit (the guest
 *    kernel runs in ring 3, but Xen reports its faults as supervisor ones: Linux's fault handler
 *    takes a user-bit fault for a process's); a non-canonical access is #GP(0), not #PF.
 *  - trap-table flag 4 masks events on entry; the frame's rflags.IF and cs bits 32-39 carry the
 *    mask as it was. Without the flag the mask is left alone.
 *  - INT n (n neither 3 nor 4) reaches trap n only if the trap table gives it DPL >= 1 (the guest
 *    kernel counts as ring 1): then after the instruction, with no error code. Otherwise it is
 *    #GP with error code n*8+2 (the IDT bit) at the instruction. Linux registers vector 0x80 so
 *    for its 32-bit processes' system calls. int $3 and int $4 go through whatever DPL the guest
 *    gave them (Xen's own IDT has DPL 3 for both; "the DPL specified by the guest OS for these
 *    vectors is NOT CHECKED").
 *  - iret to kernel mode (CS with RPL 0; RPL 3 would mean user mode): CS comes back with RPL 3
 *    (the kernel runs in ring 3); rax, rcx and r11
 *    come from the frame when VGCF_in_syscall is clear; rflags.IF clear masks events, set unmasks
 *    them; IOPL in the frame is dropped, so port I/O stays #GP (only physdev set_iopl grants I/O
 *    privilege: a kernel that could raise it by iret would own every port of the machine); TF is
 *    kept, so #DB comes after one instruction, with DR6.BS. An instruction the hypervisor
 *    emulates (a mov from CR0) is one instruction too: the step's #DB comes right after it.
 *  - I/O privilege (Xen's iopl_ok): physdev set_iopl gives the kernel port I/O from IOPL 1 (it
 *    counts as ring 1); with VMASST_TYPE_architectural_iopl it counts as ring 0, iret loads the
 *    virtual IOPL from the frame, and trap frames show it. Port I/O to ports the domain does not
 *    own reads all ones. vm_assist takes 4gb_segments(_notify) as no-ops, refuses unknown types.
 *  - set_debugreg: an instruction breakpoint in DR0 enabled in DR7 raises #DB at the instruction
 *    with DR6.B0; DR7 general detect is refused.
 *  - set_segment_base: FS, kernel GS and user GS; the emulated rdmsr of FS_BASE, GS_BASE and
 *    SHADOW_GS_BASE reads them back, and %fs: and %gs: accesses use them; a non-canonical base and
 *    an unknown request are -EINVAL; SEGBASE_GS_USER_SEL with the null selector zeroes the user
 *    GS base and leaves the kernel's alone.
 *
 * The 32-bit PAE build (traps-pv32; x86_32/sites.S) checks the same rules as a ring-1 kernel sees
 * them, where they differ (Xen 4.17's compat paths):
 *  - the frame is [(error code,) eip, cs, eflags] without esp and ss (compat_create_bounce_frame),
 *    the saved event mask in cs bits 16-23; the kernel's CS keeps its RPL 1.
 *  - int $0x82 is Xen's hypercall gate for 32-bit guests (entry_int82, DPL 1): the trap table's
 *    vector 0x82 is never reached from the kernel, so the DPL-1 INT n check uses 0x85.
 *  - compat_iret takes [eax, eip, cs, eflags] (and esp, ss only for a return to ring 2 or 3): CS
 *    comes back as given (RPL 0 would crash the domain), only eax comes from the frame, and a
 *    return to ring 1 takes exactly those four slots off the stack. IF, IOPL and TF as above.
 *    A native iret to ring 1 does not involve Xen: the event mask stays, and IF and IOPL cannot
 *    change at CPL 1 over the real IOPL 0, so port I/O stays #GP.
 *  - no non-canonical addresses: instead a write into Xen's part of the 4 GiB, the m2p it maps
 *    read-only at MACH2PHYS_VIRT_START, is #PF error 3 (present, write, not user).
 *  - set_segment_base is -ENOSYS (do_set_segment_base: x86/64 only); the segment base checks
 *    are 64-bit only and skipped; rdmsr of FS_BASE, GS_BASE and SHADOW_GS_BASE is #GP(0).
 *
 * Expect: stock XFAIL on xen (QEMU 7.2 under the L0: INT n's #GP code n*16+2), the 32-bit build
 * too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "probe.h"
#include "traps.h"

const char test_title[] = "traps: exception frames, INT n, iret edges, single-step and breakpoints, segment bases";

/* sites.S */
#define SITE(n) extern char site_##n##_at[], site_##n##_end[]; void site_##n(void);
SITE(div0) SITE(int3) SITE(int_3) SITE(int_4) SITE(ud2) SITE(lgdt) SITE(inb) SITE(stepcr0)
SITE(int80) SITE(int81) SITE(int83) SITE(bp)
#ifdef __i386__
SITE(int85)		/* the DPL-1 INT n: 0x82 is the hypercall gate (entry_int82) */
long site_hc82(void);	/* int $0x82 with eax = xen_version: the hypercall's result */
unsigned long native_iret_probe(unsigned long eflags);	/* eflags after a native iret */
extern char trap_0x85[];
#else
SITE(int82)
#endif
#undef SITE
extern char site_read_at[], site_read_end[], site_write_at[], site_write_end[];
unsigned long site_read(const void *p);
void site_write(void *p);
extern char trap_0x80[], trap_0x82[], trap_0x83[], trap_4[], trap_6[];
void iret_probe(unsigned long cs, unsigned long rflags, unsigned long flags);
extern char iret_probe_back[], iret_probe_step[];
#ifdef __i386__
/* x86_32/sites.S: compat_iret restores eax only; esp after the iret and before the frame */
extern volatile unsigned long iret_seen[5];
enum { SEEN_RAX, SEEN_SP, SEEN_CS, SEEN_RFLAGS, SEEN_SP0 };
#define IRET_RAX 0x1a1a1a1aul
#else
extern volatile uint64_t iret_seen[5];
enum { SEEN_RAX, SEEN_RCX, SEEN_R11, SEEN_CS, SEEN_RFLAGS };
#define IRET_RAX 0x1a1a1a1a1a1a1a1aul
#define IRET_RCX 0x2c2c2c2c2c2c2c2cul
#define IRET_R11 0x3b3b3b3b3b3b3b3bul
#endif
#define RFLAGS_IF   (1ul << 9)
#define RFLAGS_TF   (1ul << 8)
#define RFLAGS_IOPL (3ul << 12)
#define DR6_BS      (1ul << 14)
#define TI_MASK     4		/* trap_info flags: mask events on entry */
/* iret back to kernel mode: RPL 3 in the frame's CS means guest user mode (bounce frames from
 * kernel mode carry RPL 0) */
#define KERNEL_CS_RPL0 (FLAT_KERNEL_CS & ~3ul)
#ifdef __i386__
/* compat_iret takes the frame's CS as it is, and crashes the domain for RPL 0: the kernel's own
 * selector (RPL 1, FLAT_RING1_CS) is the way back to it */
#define IRET_KERNEL_CS ((unsigned long)FLAT_KERNEL_CS)
/* compat_create_bounce_frame: the saved upcall mask is in bits 16-23 of the cs slot */
#define SAVED_MASK(cs) (((cs) >> 16) & 0xff)
#else
#define IRET_KERNEL_CS KERNEL_CS_RPL0
/* create_bounce_frame: the saved upcall mask is in bits 32-39 of the cs slot */
#define SAVED_MASK(cs) (((cs) >> 32) & 0xff)
#endif

#ifndef __i386__
#define MSR_FS_BASE        0xc0000100
#define MSR_GS_BASE        0xc0000101
#define MSR_SHADOW_GS_BASE 0xc0000102
#endif

/* What the last expected trap looked like, caught by trap_hook. */
static volatile struct {
	bool armed;
	unsigned long resume;		/* 0: at the frame's rip */
	unsigned long count, vector, error, rip, cs, rflags, cr2, mask_in;
	bool bp;			/* a breakpoint test: disarm DR7 in the handler */
} t;

bool trap_hook(struct trap_frame *f)
{
	if (!t.armed)
		return false;
	t.armed = false;
	t.count++;
	t.vector = f->vector;
	t.error = f->error_code;
	t.rip = f->rip;
	t.cs = f->cs;
	t.rflags = f->rflags;
	t.cr2 = f->vector == 14 ? shared_info->vcpu_info[0].arch.cr2 : 0;
	t.mask_in = shared_info->vcpu_info[0].evtchn_upcall_mask;
	if (t.resume)
		f->rip = t.resume;
	f->rflags &= ~RFLAGS_TF;	/* one step is enough */
	if (t.bp)
		HC(__HYPERVISOR_set_debugreg, 7, 0, 0);
	return true;
}

static void arm(void *resume)
{
	t.resume = (unsigned long)resume;
	t.bp = false;
	t.vector = t.error = t.rip = t.cr2 = ~0ul;
	t.armed = true;
}

/* Run site fn expecting one trap; false (and a FAILED line) if none came. */
static bool expect(void (*fn)(void), void *resume, const char *what)
{
	unsigned long before = t.count;

	arm(resume);
	fn();
	t.armed = false;
	return check(t.count == before + 1, "%s traps once (%lu)", what, t.count - before);
}

static void expect_vector(void (*fn)(void), void *resume, const char *what, unsigned long vector,
			  unsigned long error, void *rip)
{
	if (expect(fn, resume, what))
		check(t.vector == vector && t.error == error && t.rip == (unsigned long)rip,
		      "  vector %lu error %#lx rip %#lx (want %lu %#lx %#lx)", t.vector, t.error, t.rip,
		      vector, error, (unsigned long)rip);
}

static long set_trap(unsigned vector, unsigned flags, void *handler)
{
	struct trap_info ti[2] = {
		{ (uint8_t)vector, (uint8_t)flags, FLAT_KERNEL_CS, (unsigned long)handler },
		{ 0, 0, 0, 0 },
	};
	return hypercall_set_trap_table(ti);
}

#ifndef __i386__
static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}
#endif

static unsigned long read_cr2(void)
{
	unsigned long v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static void exceptions(void)
{
	printf("exceptions from the guest kernel:\n");
	expect_vector(site_div0, site_div0_end, "div by 0", 0, 0, site_div0_at);
	expect_vector(site_int3, NULL, "int3", 3, 0, site_int3_end);
	expect_vector(site_int_3, NULL, "int $3", 3, 0, site_int_3_end);
	expect_vector(site_ud2, site_ud2_end, "ud2", 6, 0, site_ud2_at);
	expect_vector(site_lgdt, site_lgdt_end, "lgdt", 13, 0, site_lgdt_at);
	expect_vector(site_inb, site_inb_end, "inb without I/O privilege", 13, 0, site_inb_at);

	/* #PF: page 0 is unmapped (lib/start.c); a read-only page of ours */
	arm(site_read_end);
	site_read((void *)0x18);
	check(t.vector == 14 && t.error == 0 && t.rip == (unsigned long)site_read_at && t.cr2 == 0x18,
	      "read of unmapped 0x18: #PF error %#lx (want 0: not present, read, not user) rip %#lx cr2 %#lx",
	      t.error, t.rip, t.cr2);
	check(read_cr2() == 0x18, "  mov from CR2 reads %#lx", read_cr2());
	static char ro_page[4096] __attribute__((aligned(4096)));
	long rc = page_ro(ro_page);
	check(rc == 0, "page made read-only: %ld", rc);
	arm(site_write_end);
	site_write(ro_page + 8);
	check(t.vector == 14 && t.error == 3 && t.rip == (unsigned long)site_write_at &&
	      t.cr2 == (unsigned long)ro_page + 8,
	      "write to a read-only page: #PF error %#lx (want 3: present, write, not user) cr2 %#lx (want %p)",
	      t.error, t.cr2, ro_page + 8);
	check(read_cr2() == (unsigned long)ro_page + 8, "  mov from CR2 reads %#lx", read_cr2());
	page_rw(ro_page);
#ifdef __i386__
	/* No non-canonical addresses in 32 bits. Xen's part of the 4 GiB holds the m2p, mapped
	 * read-only for the guest at MACH2PHYS_VIRT_START (xen-x86_32.h): a write is the guest's
	 * own #PF, a supervisor one from ring 1 (pv_inject_event's PFEC_user_mode rule). */
	unsigned long *m2p_slot = &machine_to_phys_mapping[virt_to_mfn(ro_page)];
	arm(site_write_end);
	site_write(m2p_slot);
	check(t.vector == 14 && t.error == 3 && t.rip == (unsigned long)site_write_at &&
	      t.cr2 == (unsigned long)m2p_slot,
	      "write to Xen's read-only m2p at %p: vector %lu error %#lx (want #PF 3: present, write, not user) cr2 %#lx",
	      (void *)m2p_slot, t.vector, t.error, t.cr2);
#else
	arm(site_read_end);
	site_read((void *)0x8000000000000000ul);
	check(t.vector == 13 && t.error == 0 && t.rip == (unsigned long)site_read_at,
	      "non-canonical read: vector %lu error %#lx (want #GP(0)) at the access", t.vector, t.error);
#endif
}

static void event_masks(void)
{
	struct vcpu_info *vi = &shared_info->vcpu_info[0];

	printf("the event mask on entry (trap-table flag 4):\n");
	events_enable();
	expect_vector(site_ud2, site_ud2_end, "ud2 with events on, handler flag 4", 6, 0, site_ud2_at);
	check(t.mask_in == 1 && (t.rflags & RFLAGS_IF) && SAVED_MASK(t.cs) == 0,
	      "  masked in the handler (%lu); the frame says they were on: IF %lu, saved mask %lu",
	      t.mask_in, (t.rflags >> 9) & 1, SAVED_MASK(t.cs));
	check(vi->evtchn_upcall_mask == 0, "  iret with IF set unmasked them again (%u)",
	      vi->evtchn_upcall_mask);
	events_disable();
	expect(site_ud2, site_ud2_end, "ud2 with events masked");
	check(t.mask_in == 1 && !(t.rflags & RFLAGS_IF) && SAVED_MASK(t.cs) == 1,
	      "  the frame says they were masked: IF %lu, saved mask %lu", (t.rflags >> 9) & 1,
	      SAVED_MASK(t.cs));
	check(vi->evtchn_upcall_mask == 1, "  still masked after the iret (%u)", vi->evtchn_upcall_mask);

	long rc = set_trap(6, 0, trap_6);
	check(rc == 0, "#UD handler registered without flag 4: %ld", rc);
	events_enable();
	expect(site_ud2, site_ud2_end, "ud2 with events on, handler without flag 4");
	check(t.mask_in == 0, "  events still on in the handler (mask %lu)", t.mask_in);
	events_disable();
	set_trap(6, TI_MASK, trap_6);
}

static void soft_ints(void)
{
	printf("INT n from the guest kernel:\n");
#ifdef __i386__
	check(set_trap(0x80, 3 | TI_MASK, trap_0x80) == 0 && set_trap(0x82, 1 | TI_MASK, trap_0x82) == 0 &&
	      set_trap(0x85, 1 | TI_MASK, trap_0x85) == 0 && set_trap(0x83, 0 | TI_MASK, trap_0x83) == 0,
	      "vectors 0x80 (DPL 3), 0x82 and 0x85 (DPL 1), 0x83 (DPL 0) registered");
	expect_vector(site_int80, NULL, "int $0x80, DPL 3", 0x80, 0, site_int80_end);
	/* resume after the int either way: a #GP at it (this bed's QEMU 7.2, see the suite) must not
	 * repeat */
	expect_vector(site_int85, site_int85_end, "int $0x85, DPL 1", 0x85, 0, site_int85_end);
	/* Xen's IDT gives 0x82 to 32-bit guests' hypercalls (entry_int82, DPL 1): from the ring-1
	 * kernel it is a hypercall whatever the trap table says; trap 0x82 is never raised. */
	unsigned long before = t.count;
	arm(NULL);
	long ver = site_hc82();
	t.armed = false;
	long want_ver = hypercall_xen_version(XENVER_version, NULL);
	check(t.count == before && ver == want_ver && ver > 0,
	      "int $0x82 with trap 0x82 registered is the hypercall gate: xen_version %#lx (want %#lx), %lu traps",
	      ver, want_ver, t.count - before);
#else
	check(set_trap(0x80, 3 | TI_MASK, trap_0x80) == 0 && set_trap(0x82, 1 | TI_MASK, trap_0x82) == 0 &&
	      set_trap(0x83, 0 | TI_MASK, trap_0x83) == 0, "vectors 0x80 (DPL 3), 0x82 (DPL 1), 0x83 (DPL 0) registered");
	expect_vector(site_int80, NULL, "int $0x80, DPL 3", 0x80, 0, site_int80_end);
	expect_vector(site_int82, NULL, "int $0x82, DPL 1", 0x82, 0, site_int82_end);
#endif
	expect_vector(site_int83, site_int83_end, "int $0x83, DPL 0", 13, 0x83 * 8 + 2, site_int83_at);
	expect_vector(site_int81, site_int81_end, "int $0x81, no handler", 13, 0x81 * 8 + 2, site_int81_at);
	check(set_trap(4, 0 | TI_MASK, trap_4) == 0, "vector 4 registered with DPL 0");
	expect_vector(site_int_4, NULL, "int $4, DPL 0 (not checked for 3 and 4)", 4, 0, site_int_4_end);
	set_trap(4, 3 | TI_MASK, trap_4);
}

static void irets(void)
{
	struct vcpu_info *vi = &shared_info->vcpu_info[0];

	printf("the iret hypercall:\n");
	events_disable();
	iret_probe(IRET_KERNEL_CS, RFLAGS_IF | 2, 0);
#ifdef __i386__
	/* compat_iret: CS as given, eax from the frame, and back in ring 1 (ring_1) esp moves past
	 * the four slots: esp and ss are not read from the frame */
	check((iret_seen[SEEN_CS] & 0xffff) == FLAT_KERNEL_CS, "CS %#x (RPL 1) comes back as %#lx",
	      FLAT_KERNEL_CS, iret_seen[SEEN_CS] & 0xffff);
	check(iret_seen[SEEN_RAX] == IRET_RAX, "  eax %#lx is the frame's", iret_seen[SEEN_RAX]);
	check(iret_seen[SEEN_SP] == iret_seen[SEEN_SP0],
	      "  back to ring 1: [eax, eip, cs, eflags] are off the stack, esp %#lx (want %#lx)",
	      iret_seen[SEEN_SP], iret_seen[SEEN_SP0]);
	printf("  skipped: CS with RPL 0 coming back with RPL 3, rcx and r11 from the frame (64-bit do_iret only;"
	       " compat_iret crashes the domain for RPL 0 and has no rcx or r11)\n");
#else
	check((iret_seen[SEEN_CS] & 0xffff) == FLAT_KERNEL_CS, "CS with RPL 0 comes back as %#lx (want %#x)",
	      iret_seen[SEEN_CS] & 0xffff, FLAT_KERNEL_CS);
	check(iret_seen[SEEN_RAX] == IRET_RAX && iret_seen[SEEN_RCX] == IRET_RCX && iret_seen[SEEN_R11] == IRET_R11,
	      "  rax %#lx rcx %#lx r11 %#lx are the frame's", iret_seen[SEEN_RAX], iret_seen[SEEN_RCX],
	      iret_seen[SEEN_R11]);
#endif
	check(vi->evtchn_upcall_mask == 0, "  IF set: events unmasked (%u)", vi->evtchn_upcall_mask);
	iret_probe(IRET_KERNEL_CS, 2, 0);
	check(vi->evtchn_upcall_mask == 1, "IF clear: events masked (%u)", vi->evtchn_upcall_mask);

	iret_probe(IRET_KERNEL_CS, RFLAGS_IOPL | 2, 0);
	expect_vector(site_inb, site_inb_end, "inb after an iret with IOPL 3", 13, 0, site_inb_at);

	HC(__HYPERVISOR_set_debugreg, 6, 0, 0);
	arm(NULL);
	iret_probe(IRET_KERNEL_CS, RFLAGS_TF | 2, 0);
	t.armed = false;
	check(t.vector == 1 && t.rip == (unsigned long)iret_probe_step,
	      "TF in the frame: #DB after one instruction: vector %lu rip %#lx (want 1 %p)", t.vector,
	      t.rip, iret_probe_step);
	long dr6 = HC(__HYPERVISOR_get_debugreg, 6, 0, 0);
	check(dr6 & DR6_BS, "  DR6 %#lx has BS", dr6);
	check(!(iret_seen[SEEN_RFLAGS] & RFLAGS_TF), "  TF is off once the handler returned (rflags %#lx)",
	      (unsigned long)iret_seen[SEEN_RFLAGS]);
	/* an instruction the hypervisor emulates is stepped as any other: the #DB right after it
	 * (Xen's emulator retires it with the step), not after the next one */
	HC(__HYPERVISOR_set_debugreg, 6, 0, 0);
	expect_vector(site_stepcr0, NULL, "TF by popf, then a mov from CR0 (emulated)", 1, 0, site_stepcr0_end);
	dr6 = HC(__HYPERVISOR_get_debugreg, 6, 0, 0);
	check(dr6 & DR6_BS, "  DR6 %#lx has BS", dr6);
#ifdef __i386__
	/* A ring-1 kernel may also leave by a native iret to ring 1. Xen is not asked: the frame's IF
	 * does not reach the event mask, and the CPU at CPL 1 over the real IOPL 0 (which
	 * compat_restore_all_guest keeps) changes neither IF nor IOPL, so port I/O stays #GP. */
	events_enable();
	unsigned long fl = native_iret_probe(RFLAGS_IOPL | 2);
	unsigned int mask = vi->evtchn_upcall_mask;
	events_disable();
	check(mask == 0 && (fl & RFLAGS_IF) && !(fl & RFLAGS_IOPL),
	      "native iret to ring 1 with IF clear and IOPL 3: event mask %u (want 0), eflags %#lx (IF set, IOPL 0)",
	      mask, fl);
	expect_vector(site_inb, site_inb_end, "inb after it", 13, 0, site_inb_at);
#endif
}

/* Port I/O from the kernel: true if it ran, false if it trapped (#GP). */
static bool inb_runs(void)
{
	unsigned long before = t.count;

	arm(site_inb_end);
	site_inb();
	t.armed = false;
	return t.count == before;
}

static long set_iopl(unsigned iopl)
{
	struct physdev_set_iopl s = { .iopl = iopl };

	return HC(__HYPERVISOR_physdev_op, PHYSDEVOP_set_iopl, &s, 0);
}

static void iopl(void)
{
	printf("I/O privilege (physdev set_iopl, VMASST_TYPE_architectural_iopl):\n");
	long rc = set_iopl(1);
	check(rc == 0 && inb_runs(), "set_iopl 1: %ld; the kernel (ring 1 to Xen) may do port I/O", rc);
	rc = set_iopl(0);
	check(rc == 0 && !inb_runs(), "set_iopl 0: %ld; port I/O is #GP again", rc);
	rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_enable, VMASST_TYPE_architectural_iopl, 0);
	check(rc == 0, "vm_assist(enable, architectural_iopl): %ld %s", rc, errno_name(rc));
	check(inb_runs(), "  the kernel counts as ring 0 now: port I/O with IOPL 0");
	iret_probe(IRET_KERNEL_CS, RFLAGS_IOPL | 2, 0);
	expect(site_ud2, site_ud2_end, "ud2 after an iret with IOPL 3");
	check((t.rflags & RFLAGS_IOPL) == RFLAGS_IOPL, "  iret set the virtual IOPL: the trap frame shows it (rflags %#lx)",
	      t.rflags);
	iret_probe(IRET_KERNEL_CS, 2, 0);
	expect(site_ud2, site_ud2_end, "ud2 after an iret with IOPL 0");
	check(!(t.rflags & RFLAGS_IOPL), "  the frame shows IOPL 0 (rflags %#lx)", t.rflags);
	rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_disable, VMASST_TYPE_architectural_iopl, 0);
	check(rc == 0 && !inb_runs(), "vm_assist(disable, architectural_iopl): %ld; port I/O with IOPL 0 is #GP", rc);
	rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_enable, VMASST_TYPE_4gb_segments, 0);
	long rc2 = HC(__HYPERVISOR_vm_assist, VMASST_CMD_enable, VMASST_TYPE_4gb_segments_notify, 0);
#ifdef __i386__
	/* accepted (COMPAT_VM_ASSIST_VALID has them); only a 32-bit Xen ever emulated 4GB segments */
	check(rc == 0 && rc2 == 0, "vm_assist(enable, 4gb_segments / _notify), no-ops on a 64-bit Xen: %ld %ld", rc, rc2);
#else
	check(rc == 0 && rc2 == 0, "vm_assist(enable, 4gb_segments / _notify), no-ops for 64-bit guests: %ld %ld", rc, rc2);
#endif
	rc = HC(__HYPERVISOR_vm_assist, VMASST_CMD_enable, 31, 0);
	check(rc == -XEN_EINVAL, "vm_assist(enable, 31): %ld %s", rc, errno_name(rc));
}

static void breakpoints(void)
{
	printf("hardware breakpoints:\n");
	long rc = HC(__HYPERVISOR_set_debugreg, 7, 1ul << 13, 0);
	check(rc == -XEN_EPERM, "DR7 with general detect: %ld %s (want -EPERM)", rc, errno_name(rc));
	HC(__HYPERVISOR_set_debugreg, 6, 0, 0);
	rc = HC(__HYPERVISOR_set_debugreg, 0, (unsigned long)site_bp_at, 0);
	long rc7 = HC(__HYPERVISOR_set_debugreg, 7, 1, 0);		/* L0, execute, 1 byte */
	check(rc == 0 && rc7 == 0, "DR0 = %p, DR7 = 1: %ld %ld", site_bp_at, rc, rc7);
	arm(NULL);
	t.bp = true;
	site_bp();
	t.armed = false;
	check(t.vector == 1 && t.rip == (unsigned long)site_bp_at,
	      "the instruction breakpoint: vector %lu at rip %#lx (want 1 %p)", t.vector, t.rip, site_bp_at);
	long dr6 = HC(__HYPERVISOR_get_debugreg, 6, 0, 0);
	check(dr6 & 1, "  DR6 %#lx has B0", dr6);
	long dr7 = HC(__HYPERVISOR_get_debugreg, 7, 0, 0);
	check((dr7 & 0xff) == 0, "  DR7 %#lx: disabled by the handler", dr7);
	HC(__HYPERVISOR_set_debugreg, 0, 0, 0);
}

#ifdef __i386__
static void segment_bases(void)
{
	printf("segment bases:\n");
	/* do_set_segment_base (pv/misc-hypercalls.c) answers a 32-bit guest -ENOSYS ("x86/64 only"):
	 * its bases come from its descriptors */
	enum { SEGBASE_FS = 0, SEGBASE_GS_USER_SEL = 3 };	/* xen-x86_64.h's; 32-bit headers have none */
	long rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_FS, 0x1000, 0);
	long rc2 = HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER_SEL, 0, 0);
	check(rc == -XEN_ENOSYS && rc2 == -XEN_ENOSYS, "set_segment_base FS, GS_USER_SEL: %ld %s, %ld %s (want -ENOSYS)",
	      rc, errno_name(rc), rc2, errno_name(rc2));
	/* nor has it the MSRs: Xen's read_msr answers a compat domain's FS_BASE, GS_BASE and
	 * SHADOW_GS_BASE with #GP(0) */
	static const uint32_t msrs[3] = { 0xc0000100, 0xc0000101, 0xc0000102 };
	for (unsigned int i = 0; i < 3; i++) {
		uint64_t v = 0;
		unsigned long n = probe_fault.count;
		bool read = probe_rdmsr(msrs[i], &v);
		check(!read && probe_fault.count == n + 1 && probe_fault.vector == 13 && probe_fault.error == 0,
		      "rdmsr %#x (a 64-bit segment base) is #GP(0) (%s)", msrs[i], read ? "it read" : "faulted");
	}
	printf("  skipped: FS, kernel and user GS bases by set_segment_base, read back by rdmsr and used by"
	       " %%fs:/%%gs: accesses (64-bit only)\n");
}
#else
static uint64_t fs_word = 0xf5f5f5f5f5f5f5f5ul, gs_word = 0x6565656565656565ul;

static void segment_bases(void)
{
	printf("segment bases:\n");
	long rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_FS, &fs_word, 0);
	uint64_t v;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	check(rc == 0 && v == fs_word, "SEGBASE_FS: %ld, %%fs:0 reads %#lx", rc, v);
	check(rdmsr(MSR_FS_BASE) == (uint64_t)&fs_word, "  rdmsr FS_BASE %#lx", rdmsr(MSR_FS_BASE));
	rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_KERNEL, &gs_word, 0);
	__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	check(rc == 0 && v == gs_word, "SEGBASE_GS_KERNEL: %ld, %%gs:0 reads %#lx", rc, v);
	check(rdmsr(MSR_GS_BASE) == (uint64_t)&gs_word, "  rdmsr GS_BASE %#lx", rdmsr(MSR_GS_BASE));
	rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER, 0x123456789000ul, 0);
	check(rc == 0 && rdmsr(MSR_SHADOW_GS_BASE) == 0x123456789000ul, "SEGBASE_GS_USER: %ld, rdmsr SHADOW_GS_BASE %#lx",
	      rc, rdmsr(MSR_SHADOW_GS_BASE));
	__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	check(v == gs_word, "  the kernel's GS base stays (%%gs:0 %#lx)", v);

	for (unsigned which = SEGBASE_FS; which <= SEGBASE_GS_KERNEL; which++) {
		rc = HC(__HYPERVISOR_set_segment_base, which, 0x8000000000000000ul, 0);
		check(rc == -XEN_EINVAL, "request %u with a non-canonical base: %ld %s", which, rc, errno_name(rc));
	}
	rc = HC(__HYPERVISOR_set_segment_base, 99, 0, 0);
	check(rc == -XEN_EINVAL, "request 99: %ld %s", rc, errno_name(rc));
	__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	check(v == fs_word, "  FS base unchanged by the refusals (%%fs:0 %#lx)", v);

	rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER_SEL, 0, 0);
	__asm__ volatile("mov %%gs:0, %0" : "=r"(v));
	check(rc == 0 && v == gs_word, "SEGBASE_GS_USER_SEL 0: %ld, the kernel's GS base stays (%%gs:0 %#lx)", rc, v);
	check(rdmsr(MSR_SHADOW_GS_BASE) == 0, "  the user GS base is 0 (%#lx)", rdmsr(MSR_SHADOW_GS_BASE));
}
#endif

void test_main(void)
{
	long rc = events_init();
	if (rc)
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	exceptions();
	event_masks();
	soft_ints();
	irets();
	iopl();
	breakpoints();
	segment_bases();
}
