/*
 * smp: a second vCPU's life cycle and what crosses between vCPUs (run with --vcpus 2).
 *
 * public/vcpu.h: a PV guest's vCPUs other than 0 start down and uninitialised. VCPUOP_is_up(n)
 * says 1 or 0, -ENOENT for a vCPU the domain does not have. VCPUOP_initialise(n, ctx) loads a
 * struct vcpu_guest_context (public/arch-x86/xen.h) once: -EEXIST for an initialised vCPU (vCPU 0
 * always is), -EINVAL for a context Xen's arch_set_info_guest refuses (non-canonical addresses, an
 * LDT base that is not page aligned, a kernel ctrlreg[3] that cannot become an L4 page table,
 * user mode with no user ctrlreg[1]), -EFAULT for one it cannot read; after a refusal the vCPU
 * is still uninitialised. VCPUOP_up of an uninitialised vCPU is -EINVAL;
 * after initialise it enters the context: its registers (rip, rsp, rdi...), its trap table, event
 * callback, kernel stack, FS and kernel GS bases come from there, not from vCPU 0. VCPUOP_down
 * takes a vCPU off until the next VCPUOP_up, which resumes it where it stopped: a vCPU that downs
 * itself comes back from its own VCPUOP_down with 0 (Linux's CPU hotplug parks a CPU that way).
 * Xen's do_vcpu_op lets any vCPU up or down any other; downing the last one powers the domain off.
 * A vCPU that is down (never up, or downed) shows RUNSTATE_offline in VCPUOP_get_runstate_info.
 *
 * Events (public/event_channel.h, 2-level ABI): an IPI port is bound to one vCPU, and its upcall
 * goes to that vCPU's vcpu_info and event callback (shared_info->vcpu_info[1] for vCPU 1), whoever
 * sends. A send that makes an upcall pending for a vCPU halted in SCHEDOP_block must wake it (a
 * remote kick), and a send on a polled port ends a SCHEDOP_poll on another vCPU even when the port
 * is masked. A per-vCPU VIRQ (VIRQ_TIMER) bound for vCPU 1 fires from vCPU 1's own singleshot
 * timer, which only vCPU 1 may set (-EINVAL from another vCPU). Poll and multicall state is per
 * vCPU in Xen: two vCPUs polling at once each end at their own timeout, and two vCPUs issuing
 * multicalls at once never see "reentry" (-EINVAL). Two vCPUs remapping with UVMF_ALL at once
 * both get through, neither starved by the other (Xen's flush IPIs take a fair lock): each does
 * 256 while the other keeps flushing, within 10 s.
 * VCPUOP_send_nmi from vCPU 0 to vCPU 1 halted in SCHEDOP_block wakes it (Xen's vcpu_kick
 * unblocks): block returns 0 and the AP's NMI handler has run once, on the AP.
 *
 * TLB (public/xen.h, update_va_mapping and mmuext_op): after update_va_mapping with
 * UVMF_INVLPG or UVMF_TLB_FLUSH for UVMF_ALL or UVMF_MULTI (a vCPU bitmap), or after a plain
 * mmu_update followed by MMUEXT_INVLPG_MULTI / TLB_FLUSH_MULTI / INVLPG_ALL / TLB_FLUSH_ALL, the
 * other vCPU must see the new translation: before each remap vCPU 1 reads the window, so its TLB
 * holds the old one (QEMU TCG keeps a stale entry until a flush, so a shim that skips the remote
 * flush fails here; a remap flushed only locally shows that, as an informational line: standalone
 * the AP then reads the old frame, under the Xen L0 it happens to read the new one).
 *
 * A documented difference, checked exactly for each shim (testbed.shim, lib/testbed.h): a
 * context refused for its user page tables (ctrlreg[1]) after its kernel L4 was accepted. Xen
 * 4.17's arch_set_info_guest has then set the vCPU's guest_table and does not drop it on that
 * error path, so the L4 keeps a type reference (remapping it writable is -EBUSY on the stock
 * shim); ours gives the reference back (0), which is no less right.
 *
 * Method: vCPU 0 drives; vCPU 1 (the AP) runs a loop that takes commands from a mailbox and
 * counts while idle, and never prints (one console ring, one writer). It stops its 100 Hz
 * periodic timer first, as Linux does on each CPU, and masks its events before it blocks, as an
 * idle loop must (an event that comes first then makes the block return at once instead of being
 * taken before it). Every wait is bounded by the pvclock, so a lost event or a vCPU that never
 * comes back ends in a FAILED line. At the end vCPU 0 goes down and the AP ups it again, then the
 * AP downs itself and vCPU 0 powers off.
 *
 * The 32-bit PAE build (pv32) runs the same with the 32-bit vcpu_guest_context (arch_set_info_guest's
 * compat path): eip/esp/edi/esi, ctrlreg[3] = the PAE L3 in the compat cr3 encoding, the event
 * callback as cs:eip, flat ring-1 ds/es (a null one faults on use), and, as a 32-bit context has no
 * segment bases, %fs and %gs selectors of a GDT of the AP's own (gdt_frames) whose descriptors'
 * bases are the two words; ap_entry hands edi and esi to ap_main on the stack, and the AP's NMI
 * entry is x86_32/nmientry.S. The compat path checks no address for canonical form and has no user
 * page tables (ctrlreg[1]; a 32-bit vCPU always starts in kernel mode), so the two non-canonical
 * refusals, the user-mode one and the documented ctrlreg[1] difference are skipped, each with a
 * line; a GDT frame still mapped writable is refused there instead (pv_set_gdt: -EINVAL).
 *
 * Expect: stock PASS on xen; ours PASS on xen and none (each with --vcpus 2). The -pv32 build:
 * stock PASS on xen, ours PASS on xen and none (--vcpus 2).
 */
#include "guest.h"
#include "events.h"
#include "mm.h"
#include "traps.h"

const char test_title[] = "smp: VCPUOP_initialise/up/down, events, block/poll and TLB flushes across 2 vCPUs";

#define MS 1000000ul
#define WAIT (2000 * MS)                /* the bound of every wait for the other vCPU */
#ifdef __i386__
/* the 32-bit context's registers and words are 32 bits */
#define AP_MAGIC_RDI 0x5ca10001ul       /* registers of the context: ap_main's arguments */
#define AP_MAGIC_RSI 0x5ca10002ul
#define AP_FS_WORD 0xf5f5f5f5ul
#define AP_GS_WORD 0x65656565ul
#else
#define AP_MAGIC_RDI 0x5ca1ab1e0001ul   /* registers of the context: ap_main's arguments */
#define AP_MAGIC_RSI 0x5ca1ab1e0002ul
#define AP_FS_WORD 0xf5f5f5f5f5f5f5f5ul
#define AP_GS_WORD 0x6565656565656565ul
#endif

#ifdef __i386__
/*
 * gcc has no inline 8-byte atomic load or store for i686 without x87 or SSE registers (it calls
 * libatomic, which a guest lacks): an 8-byte field (a pvclock time, an argument) is moved with
 * lock cmpxchg8b; anything smaller as in the 64-bit build.
 */
static inline uint64_t load64(uint64_t *p)
{
	uint64_t v = 0;

	/* equal to 0: 0 is written back (no change); else edx:eax gets the value */
	__asm__ volatile("lock cmpxchg8b %1" : "+A"(v), "+m"(*p) : "b"(0), "c"(0) : "memory", "cc");
	return v;
}

static inline void store64(uint64_t *p, uint64_t v)
{
	uint64_t old = *(volatile uint64_t *)p;

	__asm__ volatile("1:\tlock cmpxchg8b %0\n\tjnz 1b"
			 : "+m"(*p), "+A"(old) : "b"((uint32_t)v), "c"((uint32_t)(v >> 32)) : "memory", "cc");
}

#define LOAD(x) _Generic((x), uint64_t: load64((uint64_t *)&(x)), \
			 default: __atomic_load_n(&(x), __ATOMIC_SEQ_CST))
#define STORE(x, v) _Generic((x), uint64_t: store64((uint64_t *)&(x), (v)), \
			     default: __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST))
#else
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#endif

/* A 2-level event word: 64 ports, 32 in the 32-bit build (xen_ulong_t, BITS_PER_EVTCHN_WORD) */
#define WORD_BITS (8 * sizeof(xen_ulong_t))

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/* ---- the AP (vCPU 1) ---- */

enum ap_cmd {
	AP_NOP,
	AP_EVENTS_ON,   /* clear its upcall mask */
	AP_SEND,        /* send on port arg */
	AP_BLOCK,       /* SCHEDOP_block once */
	AP_POLL,        /* SCHEDOP_poll on port arg, absolute timeout arg2 */
	AP_TIMER,       /* singleshot timer in arg ns, then block once */
	AP_DOWN_SELF,   /* VCPUOP_down on itself */
	AP_READ,        /* read the word at arg */
	AP_MULTICALLS,  /* multicalls until pvclock arg */
	AP_REMAPS,      /* update_va_mapping(UVMF_ALL) of window arg until pvclock arg2 */
	AP_UP_VCPU0,    /* wait until vCPU 0 is down, then up it */
	AP_NMI_HANDLER, /* CALLBACKOP_register(nmi) for itself */
};

static struct {
	unsigned cmd;
	uint64_t arg, arg2;             /* a pvclock deadline too: 64 bits in the 32-bit build */
	unsigned seq;           /* vCPU 0 bumps it to post a command */
	unsigned busy;          /* the AP sets it to seq just before a call that waits */
	unsigned done;          /* and to seq when the command has finished */
	long rc;
	uint64_t val;
	uint64_t t_start, t_end;        /* the AP's pvclock around the call */
	unsigned long spins;            /* the idle loop's counter */
	/* what the AP found on entry */
	unsigned started;
	unsigned vcpu0_back;            /* vCPU 0 is back from its own VCPUOP_down */
	unsigned long rdi, rsi, rsp, fs_word, gs_word;
	unsigned entry_mask;
	long stop_periodic_rc;
} ap;

/* The AP's NMIs (lib/nmientry.S calls this; only the AP registers it). */
static volatile unsigned long ap_nmis, ap_nmi_rip;
void nmi_handler(const uint64_t *frame)
{
	ap_nmis++;
	ap_nmi_rip = frame[0];
}

static char ap_stack[16384] __attribute__((aligned(16)));
static const unsigned long ap_fs_word = AP_FS_WORD, ap_gs_word = AP_GS_WORD;

/* Window pages for the AP's own remaps (AP_REMAPS) and the bitmap it flushes with. */
static uint64_t *ap_win, *ap_frame[2];

/*
 * Each vCPU's count of remaps so far in the "together" phase. Each keeps remapping until both
 * have done REMAPS, so the slower one always runs against the other's flushes. Starvation is
 * then one that cannot reach REMAPS within REMAP_BOUND, not an uneven share of a fixed window:
 * that share is the L0 scheduler's (one pCPU, 30 ms slices), not the shim's.
 */
#define REMAPS 256ul
#define REMAP_BOUND (10000 * (uint64_t)MS)   /* 64-bit: MS is 32 bits in the pv32 build */
static volatile unsigned long remaps[2];

static uint64_t ap_now(void)
{
	return pvclock_ns_on(1);
}

static long mc_pair(void)
{
	multicall_entry_t mc[2] = {
		{ .op = __HYPERVISOR_xen_version, .args = { XENVER_version, 0 } },
		{ .op = __HYPERVISOR_vcpu_op, .args = { VCPUOP_is_up, 0, 0 } },
	};
	long rc = multicall(mc, 2);

	if (rc)
		return rc;
	if ((long)mc[0].result <= 0 || mc[1].result > 1)
		return -XEN_EIO;        /* not the answers those calls give */
	return 0;
}

static void ap_do(unsigned seq, unsigned cmd, uint64_t arg, uint64_t arg2)
{
	long rc = 0;

	switch (cmd) {
	case AP_NOP:
		break;
	case AP_EVENTS_ON:
		events_enable_on(1);
		break;
	case AP_SEND:
		rc = evtchn_send((evtchn_port_t)arg);
		break;
	case AP_BLOCK:
		events_disable_on(1);   /* a send that comes before the block makes it return at once */
		STORE(ap.busy, seq);
		STORE(ap.t_start, ap_now());
		rc = sched_block();
		STORE(ap.t_end, ap_now());
		break;
	case AP_POLL: {
		evtchn_port_t port = (evtchn_port_t)arg;
		struct sched_poll sp = { .nr_ports = 1, .timeout = arg2 };

		set_xen_guest_handle(sp.ports, &port);
		STORE(ap.busy, seq);
		STORE(ap.t_start, ap_now());
		rc = hypercall_sched_op(SCHEDOP_poll, &sp);
		STORE(ap.t_end, ap_now());
		break;
	}
	case AP_TIMER: {
		/* as an idle loop must: events off before the timer is set, so that one firing before
		 * the block stays pending for it (block turns events on and returns at once then) */
		events_disable_on(1);
		uint64_t t0 = ap_now();
		struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = t0 + arg };

		STORE(ap.t_start, t0);
		rc = vcpu_op(VCPUOP_set_singleshot_timer, 1, &ss);
		STORE(ap.busy, seq);
		if (rc == 0)
			rc = sched_block();
		STORE(ap.t_end, ap_now());
		break;
	}
	case AP_DOWN_SELF:
		STORE(ap.busy, seq);
		rc = vcpu_op(VCPUOP_down, 1, NULL);
		break;
	case AP_READ:
		STORE(ap.val, *(volatile uint64_t *)(unsigned long)arg);
		break;
	case AP_MULTICALLS: {
		uint64_t n = 0;

		while (rc == 0 && ap_now() < arg) {
			rc = mc_pair();
			n++;
		}
		STORE(ap.val, n);
		break;
	}
	case AP_REMAPS: {
		unsigned long n = 0;

		while (rc == 0 && (n < REMAPS || remaps[0] < REMAPS) && ap_now() < arg2) {
			rc = hypercall_update_va_mapping((unsigned long)arg, pte_of(ap_frame[n & 1], PTE_RW_FLAGS),
							 UVMF_INVLPG | UVMF_ALL);
			if (rc == 0 && *(volatile uint64_t *)(unsigned long)arg != ap_frame[n & 1][0])
				rc = -XEN_EIO;  /* our own read did not see the new frame */
			STORE(remaps[1], ++n);
		}
		STORE(ap.val, n);
		break;
	}
	case AP_UP_VCPU0: {
		struct vcpu_runstate_info ri = { .state = -1 };
		uint64_t end = ap_now() + WAIT;

		STORE(ap.busy, seq);
		while (vcpu_op(VCPUOP_is_up, 0, NULL) != 0 && ap_now() < end)
			cpu_relax();
		rc = vcpu_op(VCPUOP_is_up, 0, NULL);
		/* give vCPU 0 time to be off its CPU, as a remote down needs */
		while (vcpu_op(VCPUOP_get_runstate_info, 0, &ri) == 0 && ri.state != RUNSTATE_offline &&
		       ap_now() < end)
			cpu_relax();
		STORE(ap.val, (uint64_t)(uint32_t)ri.state << 32 | (uint32_t)rc);
		rc = vcpu_op(VCPUOP_up, 0, NULL);
		/* nobody else could end the test: vCPU 0 is down, so the console is ours */
		end = ap_now() + WAIT;
		while (!LOAD(ap.vcpu0_back) && ap_now() < end)
			cpu_relax();
		if (!LOAD(ap.vcpu0_back))
			test_fail("vCPU 0 did not come back from its VCPUOP_down (the AP's up: %ld %s)", rc,
				  errno_name(rc));
		break;
	}
	case AP_NMI_HANDLER: {
		struct callback_register c = { .type = CALLBACKTYPE_nmi };
#ifdef __i386__
		/* a 32-bit guest's callbacks are cs:eip (compat_register_guest_callback) */
		c.address.cs = FLAT_KERNEL_CS;
		c.address.eip = (unsigned long)nmi_entry;
#else
		c.address = (unsigned long)nmi_entry;
#endif

		rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &c, 0);
		break;
	}
	default:
		rc = -XEN_ENOSYS;
	}
	STORE(ap.rc, rc);
	STORE(ap.done, seq);
}

/* vCPU 1 enters here from its VCPUOP_initialise context, rdi and rsi as that context had them
 * (through ap_entry in the 32-bit build). */
_Noreturn void ap_main(unsigned long rdi, unsigned long rsi);
_Noreturn void ap_main(unsigned long rdi, unsigned long rsi)
{
	unsigned long rsp, fs_word, gs_word;
	unsigned seen;

#ifdef __i386__
	__asm__ volatile("mov %%esp, %0" : "=r"(rsp));
#else
	__asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
#endif
	__asm__ volatile("mov %%fs:0, %0" : "=r"(fs_word));
	__asm__ volatile("mov %%gs:0, %0" : "=r"(gs_word));
	ap.rdi = rdi;
	ap.rsi = rsi;
	ap.rsp = rsp;
	ap.fs_word = fs_word;
	ap.gs_word = gs_word;
	ap.entry_mask = shared_info->vcpu_info[1].evtchn_upcall_mask;
	/* as Linux on each CPU: no 100 Hz tick (a VIRQ_TIMER bound later must come from our timer) */
	ap.stop_periodic_rc = vcpu_op(VCPUOP_stop_periodic_timer, 1, NULL);
	seen = LOAD(ap.seq);
	STORE(ap.started, 1);
	for (;;) {
		unsigned seq = LOAD(ap.seq);

		if (seq == seen) {
			STORE(ap.spins, ap.spins + 1);
			cpu_relax();
			continue;
		}
		seen = seq;
		ap_do(seq, LOAD(ap.cmd), LOAD(ap.arg), LOAD(ap.arg2));
	}
}

/* ---- vCPU 0's side ---- */

static uint64_t now(void)
{
	return pvclock_ns();
}

static void delay(uint64_t ns)
{
	uint64_t end = now() + ns;

	while (now() < end)
		cpu_relax();
}

/* Wait at most ns for *p to differ from / equal v. */
static bool wait_ne(const unsigned long *p, unsigned long v, uint64_t ns)
{
	uint64_t end = now() + ns;

	while (LOAD(*p) == v && now() < end)
		cpu_relax();
	return LOAD(*p) != v;
}

static bool wait_eq_u(const unsigned *p, unsigned v, uint64_t ns)
{
	uint64_t end = now() + ns;

	while (LOAD(*p) != v && now() < end)
		cpu_relax();
	return LOAD(*p) == v;
}

static bool wait_seen(evtchn_port_t port, uint32_t count, uint64_t ns)
{
	uint64_t end = now() + ns;

	while (LOAD(events_seen[port]) < count && now() < end)
		cpu_relax();
	return LOAD(events_seen[port]) >= count;
}

static bool wait_runstate(unsigned vcpu, int state, uint64_t ns)
{
	struct vcpu_runstate_info ri = { .state = -1 };
	uint64_t end = now() + ns;

	while (vcpu_op(VCPUOP_get_runstate_info, vcpu, &ri) == 0 && ri.state != state && now() < end)
		cpu_relax();
	return ri.state == state;
}

static bool wait_is_up(unsigned vcpu, long want, uint64_t ns)
{
	uint64_t end = now() + ns;

	while (vcpu_op(VCPUOP_is_up, vcpu, NULL) != want && now() < end)
		cpu_relax();
	return vcpu_op(VCPUOP_is_up, vcpu, NULL) == want;
}

static unsigned post(unsigned cmd, uint64_t arg, uint64_t arg2)
{
	unsigned seq = ap.seq + 1;

	STORE(ap.cmd, cmd);
	STORE(ap.arg, arg);
	STORE(ap.arg2, arg2);
	STORE(ap.seq, seq);
	return seq;
}

/* Run a command on the AP and wait for it; false if it did not finish within WAIT. */
static bool ap_call(unsigned cmd, uint64_t arg, uint64_t arg2)
{
	return wait_eq_u(&ap.done, post(cmd, arg, arg2), WAIT);
}

static struct vcpu_guest_context ctx;  /* 5 KiB: not for our stack */

static unsigned long ap_stack_top(void)
{
	return (unsigned long)ap_stack + sizeof(ap_stack);
}

#ifdef __i386__
/*
 * A 32-bit context has no register arguments and no segment bases: ap_entry passes edi and esi
 * on as ap_main's (cdecl) arguments, and the AP's %fs and %gs are selectors of a GDT of its own
 * whose data descriptors (DPL 1, 4 GiB) have the two words as bases.
 */
__asm__(".text\n"
	".globl ap_entry\n"
	"ap_entry:\n"
	"	push	%esi\n"
	"	push	%edi\n"
	"	call	ap_main\n"
	"	ud2\n");
extern char ap_entry[];

static uint64_t ap_gdt[512] __attribute__((aligned(4096)));
#define AP_SEL_FS 0x09                  /* ap_gdt[1], RPL 1 */
#define AP_SEL_GS 0x11                  /* ap_gdt[2], RPL 1 */
#define AP_GDT_ENTS 3

static uint64_t data_desc_dpl1(unsigned long base)
{
	uint32_t b = (uint32_t)base;
	uint32_t lo = 0xffff | (b << 16);
	uint32_t hi = ((b >> 16) & 0xff) | (0xb2u << 8) | (0xfu << 16) | (0xcu << 20) | (b & 0xff000000u);

	return ((uint64_t)hi << 32) | lo;
}

/* Fill the AP's GDT page once and map it read-only (a descriptor page may have no writable
 * mapping: pv_set_gdt, which arch_set_info_guest calls for the context's gdt_frames). */
static void ap_gdt_setup(void)
{
	static bool done;

	if (done)
		return;
	ap_gdt[AP_SEL_FS >> 3] = data_desc_dpl1((unsigned long)&ap_fs_word);
	ap_gdt[AP_SEL_GS >> 3] = data_desc_dpl1((unsigned long)&ap_gs_word);
	long rc = page_ro(ap_gdt);
	if (rc)
		test_fail("cannot map the AP's GDT page read-only: %ld %s", rc, errno_name(rc));
	done = true;
}

/* A check the 32-bit ABI has no form for: said, not counted. */
static void skip32(const char *what, const char *why)
{
	printf("skip: %s: %s\n", what, why);
}
#endif

/* The context Linux's cpu_initialize_context would give: kernel mode, our flat selectors and
 * page tables, our trap table, a stack of its own (rsp as right after a call), its callback. */
static void good_context(struct vcpu_guest_context *c)
{
	memset(c, 0, sizeof(*c));
#ifdef __i386__
	/* arch_set_info_guest's compat path: the 32-bit layout, ctrlreg[3] = the PAE L3 in the
	 * compat encoding (xen_pfn_to_cr3 of the 32-bit ABI), callbacks as cs:eip */
	ap_gdt_setup();
	c->flags = VGCF_in_kernel;
	c->user_regs.eip = (unsigned long)ap_entry;
	c->user_regs.esp = ap_stack_top();
	c->user_regs.edi = AP_MAGIC_RDI;
	c->user_regs.esi = AP_MAGIC_RSI;
	c->user_regs.cs = FLAT_KERNEL_CS;
	c->user_regs.ss = FLAT_KERNEL_SS;
	c->user_regs.ds = FLAT_KERNEL_DS;
	c->user_regs.es = FLAT_KERNEL_DS;
	c->user_regs.fs = AP_SEL_FS;
	c->user_regs.gs = AP_SEL_GS;
	c->user_regs.eflags = 0x202;
	traps_copy(c->trap_ctxt);
	c->gdt_frames[0] = virt_to_mfn(ap_gdt);
	c->gdt_ents = AP_GDT_ENTS;
	c->kernel_ss = FLAT_KERNEL_SS;
	c->kernel_sp = ap_stack_top();
	c->ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn((void *)start_info->pt_base));
	c->event_callback_cs = FLAT_KERNEL_CS;
	c->event_callback_eip = events_callback(1);
	c->failsafe_callback_cs = FLAT_KERNEL_CS;
#else
	c->flags = VGCF_in_kernel;
	c->user_regs.rip = (unsigned long)ap_main;
	c->user_regs.rsp = ap_stack_top() - 8;
	c->user_regs.rdi = AP_MAGIC_RDI;
	c->user_regs.rsi = AP_MAGIC_RSI;
	c->user_regs.cs = FLAT_KERNEL_CS;
	c->user_regs.ss = FLAT_KERNEL_SS;
	c->user_regs.rflags = 0x202;
	traps_copy(c->trap_ctxt);
	c->kernel_ss = FLAT_KERNEL_SS;
	c->kernel_sp = ap_stack_top();
	c->ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn((void *)start_info->pt_base));
	c->event_callback_eip = events_callback(1);
	c->fs_base = (unsigned long)&ap_fs_word;
	c->gs_base_kernel = (unsigned long)&ap_gs_word;
#endif
}

static long initialise(unsigned vcpu, struct vcpu_guest_context *c)
{
	return vcpu_op(VCPUOP_initialise, vcpu, c);
}

/* 1. how many vCPUs: is_up probing */
static void count(void)
{
	long rc = vcpu_op(VCPUOP_is_up, 0, NULL);

	check(rc == 1, "is_up(vCPU 0): %ld (want 1)", rc);
	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	if (rc == -XEN_ENOENT)
		test_fail("is_up(vCPU 1): -ENOENT: the guest has 1 vCPU; run it with --vcpus 2");
	check(rc == 0, "is_up(vCPU 1) before it is brought up: %ld %s (want 0)", rc, errno_name(rc));
	rc = vcpu_op(VCPUOP_is_up, 2, NULL);
	check(rc == -XEN_ENOENT, "is_up(vCPU 2): %ld %s (want -ENOENT: run with --vcpus 2)", rc, errno_name(rc));
	check(wait_runstate(1, RUNSTATE_offline, 0), "vCPU 1's runstate before up is offline");
}

/* 2. up before initialise, initialise refused, and nothing left behind by a refusal */
static void refusals(void)
{
	long rc = vcpu_op(VCPUOP_up, 1, NULL);

	check(rc == -XEN_EINVAL, "up(vCPU 1) never initialised: %ld %s (want -EINVAL)", rc, errno_name(rc));
	good_context(&ctx);
	rc = initialise(0, &ctx);
	check(rc == -XEN_EEXIST, "initialise(vCPU 0): %ld %s (want -EEXIST)", rc, errno_name(rc));
	rc = initialise(1, NULL);
	check(rc == -XEN_EFAULT, "initialise(vCPU 1) with an unreadable context: %ld %s (want -EFAULT)", rc,
	      errno_name(rc));

#ifdef __i386__
	skip32("initialise with a non-canonical rip", "a 32-bit address has no non-canonical form "
	       "(arch_set_info_guest's canonical checks are for 64-bit contexts only)");
	skip32("initialise with a non-canonical event callback", "the same");
	/* in their place: pv_set_gdt (arch_set_info_guest) refuses a GDT frame still mapped writable */
	good_context(&ctx);
	ctx.gdt_frames[0] = virt_to_mfn(ap_stack);
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with a GDT frame still mapped writable: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
#else
	good_context(&ctx);
	ctx.user_regs.rip = 0x0000800000000000ul;
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with a non-canonical rip: %ld %s (want -EINVAL)", rc, errno_name(rc));
	good_context(&ctx);
	ctx.event_callback_eip = 0xffff700000000000ul;
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with a non-canonical event callback: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
#endif
	good_context(&ctx);
	ctx.ldt_base = (unsigned long)ap_stack + 8;
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with an LDT base not page aligned: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	good_context(&ctx);
	ctx.ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn(ap_stack));
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with ctrlreg[3] = a writable data page: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
	good_context(&ctx);
	ctx.ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn(pt_entry((unsigned long)ap_stack, 1)));
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with ctrlreg[3] = an L1 page table in use: %ld %s (want -EINVAL)",
	      rc, errno_name(rc));
	good_context(&ctx);
	ctx.ctrlreg[3] = xen_pfn_to_cr3(0xfffffffful);
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with ctrlreg[3] = a frame we do not own: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
#ifdef __i386__
	skip32("initialise in user mode with no user page tables", "a 32-bit vCPU has no user page tables "
	       "(ctrlreg[1]) and arch_set_info_guest starts it in kernel mode whatever VGCF_in_kernel says: "
	       "the context would be taken");
#else
	good_context(&ctx);
	ctx.flags = 0;
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise in user mode with no user page tables: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));
#endif

	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	check(rc == 0, "after the refusals vCPU 1 is still down: %ld", rc);
	rc = vcpu_op(VCPUOP_up, 1, NULL);
	check(rc == -XEN_EINVAL, "  and still uninitialised (up: %ld %s, want -EINVAL)", rc, errno_name(rc));

#ifdef __i386__
	skip32("initialise with a good L4 and ctrlreg[1] = a data page", "a 32-bit context has no user page "
	       "tables: arch_set_info_guest's compat path never reads ctrlreg[1]");
#else
	/* An empty L4 as kernel tables and a data page as user tables: refused after the L4 was taken.
	 * Whether the L4 gets its reference back shows in whether it can be made writable again. */
	uint64_t *l4 = page_alloc();
	if (page_ro(l4))
		test_fail("cannot make a page read-only");
	good_context(&ctx);
	ctx.ctrlreg[3] = xen_pfn_to_cr3(virt_to_mfn(l4));
	ctx.ctrlreg[1] = xen_pfn_to_cr3(virt_to_mfn(ap_stack));
	rc = initialise(1, &ctx);
	check(rc == -XEN_EINVAL, "initialise with a good L4 and ctrlreg[1] = a data page: %ld %s (want -EINVAL)",
	      rc, errno_name(rc));
	rc = page_rw(l4);
	if (testbed_ours())
		check(rc == 0, "ours: the refused context's L4 got its reference back, it can be made writable "
		      "again: %ld %s", rc, errno_name(rc));
	else
		check(rc == -XEN_EBUSY, "stock: the refused context's L4 kept its reference (Xen 4.17), making it "
		      "writable is %ld %s (want -EBUSY)", rc, errno_name(rc));
#endif
}

/* 3. the real context: initialise, up, the AP runs with what the context said */
static void bring_up(void)
{
	good_context(&ctx);
	long rc = initialise(1, &ctx);

	if (!check(rc == 0, "initialise(vCPU 1) with a good context: %ld %s", rc, errno_name(rc)))
		test_fail("no second vCPU to test");
	rc = initialise(1, &ctx);
	check(rc == -XEN_EEXIST, "initialise(vCPU 1) again: %ld %s (want -EEXIST)", rc, errno_name(rc));
	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	check(rc == 0, "is_up(vCPU 1) after initialise, before up: %ld (want 0)", rc);
	struct vcpu_set_singleshot_timer ss = { .timeout_abs_ns = now() + 1000 * MS };
	rc = vcpu_op(VCPUOP_set_singleshot_timer, 1, &ss);
	check(rc == -XEN_EINVAL, "set_singleshot_timer for vCPU 1 from vCPU 0: %ld %s (want -EINVAL)", rc,
	      errno_name(rc));

	rc = vcpu_op(VCPUOP_up, 1, NULL);
	check(rc == 0, "up(vCPU 1): %ld %s", rc, errno_name(rc));
	if (!check(wait_eq_u(&ap.started, 1, WAIT), "  the AP runs (its started flag within 2 s)"))
		test_fail("vCPU 1 never ran");
	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	check(rc == 1, "is_up(vCPU 1): %ld (want 1)", rc);
	rc = vcpu_op(VCPUOP_up, 1, NULL);
	check(rc == 0, "up(vCPU 1) while it is up: %ld %s (want 0)", rc, errno_name(rc));
	check(ap.rdi == AP_MAGIC_RDI && ap.rsi == AP_MAGIC_RSI, "  the context's rdi and rsi reached it (%#lx %#lx)",
	      ap.rdi, ap.rsi);
	check(ap.rsp > (unsigned long)ap_stack && ap.rsp < ap_stack_top(), "  it runs on its own stack (rsp %#lx)",
	      ap.rsp);
#ifdef __i386__
	check(ap.fs_word == AP_FS_WORD, "  its %%fs is the context's (a selector of its own GDT, based at a word: "
	      "%%fs:0 = %#lx)", ap.fs_word);
	check(ap.gs_word == AP_GS_WORD, "  its %%gs is the context's (%%gs:0 = %#lx)", ap.gs_word);
#else
	check(ap.fs_word == AP_FS_WORD, "  its FS base is the context's fs_base (%%fs:0 = %#lx)", ap.fs_word);
	check(ap.gs_word == AP_GS_WORD, "  its GS base is the context's gs_base_kernel (%%gs:0 = %#lx)", ap.gs_word);
#endif
	check(ap.stop_periodic_rc == 0, "  VCPUOP_stop_periodic_timer on itself: %ld", ap.stop_periodic_rc);
	printf("  vCPU 1's evtchn_upcall_mask on entry: %u\n", ap.entry_mask);
	check(shared_info->vcpu_info[1].time.tsc_to_system_mul != 0, "  vCPU 1's vcpu_info has a clock");
	check(ap_call(AP_NOP, 0, 0), "  it answers a command");
}

/* 4. IPIs both ways, a blocked AP woken by a send, polls on masked ports */
static evtchn_port_t p1;        /* an IPI bound to vCPU 1 */

static void ipis(void)
{
	struct evtchn_status st;
	evtchn_port_t p0;
	long rc;

	check(ap_call(AP_EVENTS_ON, 0, 0), "the AP unmasks its events");
	rc = evtchn_bind_ipi(1, &p1);
	if (!check(rc == 0, "bind_ipi(vCPU 1): %ld %s, port %u", rc, errno_name(rc), p1))
		test_fail("no IPI port for vCPU 1");
	rc = evtchn_status(p1, &st);
	check(rc == 0 && st.status == EVTCHNSTAT_ipi && st.vcpu == 1, "  status: %ld, status %u vcpu %u", rc,
	      st.status, st.vcpu);
	unsigned long up1 = LOAD(events_upcalls_on[1]);
	rc = evtchn_send(p1);
	bool seen1 = wait_seen(p1, 1, WAIT);
	check(rc == 0 && seen1, "send from vCPU 0 is delivered to vCPU 1's callback: %ld, seen %u", rc,
	      events_seen[p1]);
	check(LOAD(events_upcalls_on[1]) > up1, "  as an upcall on vCPU 1 (%lu)", LOAD(events_upcalls_on[1]) - up1);
	check(!port_pending(p1), "  which took the port");

	rc = evtchn_bind_ipi(0, &p0);
	if (!check(rc == 0, "bind_ipi(vCPU 0): %ld %s, port %u", rc, errno_name(rc), p0))
		return;
	unsigned long up0 = LOAD(events_upcalls_on[0]);
	bool sent = ap_call(AP_SEND, p0, 0);
	check(sent && ap.rc == 0, "send from vCPU 1 on vCPU 0's IPI: %ld", ap.rc);
	bool seen0 = wait_seen(p0, 1, WAIT);
	check(seen0, "  delivered to vCPU 0 (seen %u)", events_seen[p0]);
	check(LOAD(events_upcalls_on[0]) > up0, "  as an upcall on vCPU 0");
}

/* Post a command in which the AP waits in the hypervisor; its seq once the AP is about to wait,
 * then 20 ms later it must still be there. */
static unsigned post_waiting(unsigned cmd, uint64_t arg, uint64_t arg2, const char *what)
{
	unsigned seq = post(cmd, arg, arg2);

	check(wait_eq_u(&ap.busy, seq, WAIT), "the AP %s", what);
	delay(20 * MS);
	check(LOAD(ap.done) != seq, "  and stays there with nothing pending (20 ms)");
	return seq;
}

/* the remote kick: the AP halted in SCHEDOP_block wakes up on a send */
static void block_kick(void)
{
	unsigned seq = post_waiting(AP_BLOCK, 0, 0, "goes into SCHEDOP_block");
	uint32_t seen = events_seen[p1];
	long rc = evtchn_send(p1);

	check(rc == 0 && wait_eq_u(&ap.done, seq, WAIT), "  a send to its IPI from vCPU 0 wakes it: %ld", rc);
	check(ap.rc == 0 && wait_seen(p1, seen + 1, WAIT), "  block returned %ld and the event was delivered (%u)",
	      ap.rc, events_seen[p1] - seen);
}

/* VCPUOP_send_nmi to the AP halted in SCHEDOP_block: its handler runs there and block returns */
static void nmi_kick(void)
{
	check(ap_call(AP_NMI_HANDLER, 0, 0) && ap.rc == 0, "the AP registers an NMI callback: %ld %s", ap.rc,
	      errno_name(ap.rc));
	unsigned seq = post_waiting(AP_BLOCK, 0, 0, "goes into SCHEDOP_block again");
	unsigned long before = ap_nmis;
	long rc = vcpu_op(VCPUOP_send_nmi, 1, NULL);

	check(rc == 0 && wait_eq_u(&ap.done, seq, WAIT), "  VCPUOP_send_nmi from vCPU 0 wakes it: %ld %s", rc,
	      errno_name(rc));
	check(ap.rc == 0 && LOAD(ap_nmis) == before + 1, "  block returned %ld and its NMI handler ran %lu time(s)",
	      ap.rc, LOAD(ap_nmis) - before);
}

/* An IPI port bound to vcpu and masked, for polling (0: none). */
static evtchn_port_t masked_ipi(unsigned vcpu)
{
	evtchn_port_t p = 0;
	long rc = evtchn_bind_ipi(vcpu, &p);

	if (!check(rc == 0, "bind_ipi(vCPU %u) for polling: %ld %s, port %u", vcpu, rc, errno_name(rc), p))
		return 0;
	port_mask(p);
	return p;
}

/* SCHEDOP_poll on the AP for a masked port ends when vCPU 0 sends on it; then both vCPUs poll at
 * once, each for its own masked port, and each poll ends at its own timeout */
static void polls(void)
{
	evtchn_port_t q = masked_ipi(1), r = masked_ipi(0);

	if (!q || !r)
		return;
	uint64_t deadline = now() + 3000 * MS;
	unsigned seq = post_waiting(AP_POLL, q, deadline, "polls its masked port (3 s timeout)");
	uint64_t sent_at = now();
	long rc = evtchn_send(q);
	check(rc == 0 && wait_eq_u(&ap.done, seq, WAIT), "  a send from vCPU 0 ends the poll: %ld", rc);
	check(ap.rc == 0 && ap.t_end < deadline - 1000 * MS, "  poll returned %ld, %ld us after the send (by the AP's "
	      "clock)", ap.rc, (long)((int64_t)(ap.t_end - sent_at) / 1000));
	check(port_pending(q) && events_seen[q] == 0, "  the port stays pending, not delivered (masked)");
	__atomic_fetch_and(&shared_info->evtchn_pending[q / WORD_BITS], ~(1ul << (q % WORD_BITS)), __ATOMIC_SEQ_CST);

	uint64_t ap_deadline = now() + 300 * MS;
	seq = post(AP_POLL, q, ap_deadline);
	check(wait_eq_u(&ap.busy, seq, WAIT), "the AP polls port %u until +300 ms", q);
	uint64_t my_deadline = now() + 1000 * MS;
	while (now() < my_deadline) {   /* other events may end a poll early: poll again */
		struct sched_poll sp = { .nr_ports = 1, .timeout = my_deadline };
		set_xen_guest_handle(sp.ports, &r);
		hypercall_sched_op(SCHEDOP_poll, &sp);
	}
	check(wait_eq_u(&ap.done, seq, WAIT), "  meanwhile vCPU 0 polls port %u until +1 s; the AP's poll ends", r);
	check(ap.rc == 0 && ap.t_end + MS >= ap_deadline && ap.t_end < my_deadline - 300 * MS,
	      "  at its own timeout: %ld, %ld ms after it (vCPU 0's ended %ld ms later)", ap.rc,
	      (long)((int64_t)(ap.t_end - ap_deadline) / (int64_t)MS),
	      (long)((int64_t)(my_deadline - ap.t_end) / (int64_t)MS));
}

/* 5. VIRQ_TIMER bound for vCPU 1 fires from its own singleshot timer */
static void timer(void)
{
	evtchn_port_t t;
	long rc = evtchn_bind_virq(VIRQ_TIMER, 1, &t);

	if (!check(rc == 0, "bind_virq(VIRQ_TIMER, vCPU 1): %ld %s, port %u", rc, errno_name(rc), t))
		return;
	unsigned seq = post(AP_TIMER, 5 * MS, 0);
	bool done = wait_eq_u(&ap.done, seq, WAIT);
	if (!done)
		evtchn_send(p1);        /* unstick its block */
	check(done && ap.rc == 0, "the AP sets a 5 ms singleshot timer and blocks: %ld, woken after %lu us", ap.rc,
	      (unsigned long)(ap.t_end - ap.t_start) / 1000);
	bool seen = wait_seen(t, 1, WAIT);
	check(seen && ap.t_end - ap.t_start >= 5 * MS, "  by its VIRQ_TIMER, delivered to it (seen %u)",
	      events_seen[t]);
}

/* 6. VCPUOP_down from vCPU 0 while the AP spins; VCPUOP_down by the AP itself */
static void downs(void)
{
	long rc = vcpu_op(VCPUOP_down, 1, NULL);

	check(rc == 0, "down(vCPU 1) from vCPU 0 while it spins: %ld %s", rc, errno_name(rc));
	rc = vcpu_op(VCPUOP_is_up, 1, NULL);
	check(rc == 0, "  is_up(vCPU 1): %ld (want 0)", rc);
	check(wait_runstate(1, RUNSTATE_offline, WAIT), "  its runstate becomes offline");
	unsigned long c1 = LOAD(ap.spins);
	delay(100 * MS);
	unsigned long c2 = LOAD(ap.spins);
	check(c1 == c2, "  its counter stays still for 100 ms (%lu -> %lu)", c1, c2);
	rc = vcpu_op(VCPUOP_up, 1, NULL);
	check(rc == 0, "up(vCPU 1) again: %ld %s", rc, errno_name(rc));
	check(wait_ne(&ap.spins, c2, WAIT), "  its counter moves again");
	check(vcpu_op(VCPUOP_is_up, 1, NULL) == 1, "  is_up(vCPU 1) is 1");
	check(ap_call(AP_NOP, 0, 0), "  it answers commands");

	unsigned seq = post(AP_DOWN_SELF, 0, 0);
	check(wait_eq_u(&ap.busy, seq, WAIT), "the AP calls VCPUOP_down on itself");
	check(wait_is_up(1, 0, WAIT), "  is_up(vCPU 1) becomes 0");
	check(wait_runstate(1, RUNSTATE_offline, WAIT), "  its runstate becomes offline");
	delay(100 * MS);
	check(LOAD(ap.done) != seq, "  its VCPUOP_down has not returned after 100 ms");
	rc = vcpu_op(VCPUOP_up, 1, NULL);
	check(rc == 0, "up(vCPU 1) from vCPU 0: %ld %s", rc, errno_name(rc));
	check(wait_eq_u(&ap.done, seq, WAIT) && ap.rc == 0, "  the AP's own VCPUOP_down returns 0 and it goes on (%ld)",
	      ap.rc);
	check(ap_call(AP_NOP, 0, 0), "  it answers commands");
}

/* 7. remote TLB flushes: the AP must see every remap of the window that was flushed for it */
static uint64_t *win, *win_l1e, *frame[2];
static unsigned cur;                    /* the frame the window maps now */

static bool ap_reads(uint64_t *val)
{
	bool ok = ap_call(AP_READ, (unsigned long)win, 0);

	*val = ap.val;
	return ok;
}

/* Remap the window to the other frame with `how`; the AP read it just before. */
static void remap(const char *what, long (*how)(uint64_t pte, unsigned long arg), unsigned long arg)
{
	uint64_t before, after;
	unsigned next = cur ^ 1;

	if (!ap_reads(&before) || before != frame[cur][0]) {
		check(false, "%s: the AP reads the window first (%#llx, want %#llx)", what, (unsigned long long)before,
		      (unsigned long long)frame[cur][0]);
		return;
	}
	long rc = how(pte_of(frame[next], PTE_RW_FLAGS), arg);
	bool read = ap_reads(&after);
	check(rc == 0 && read && after == frame[next][0], "%s: %ld %s, the AP then reads %#llx (want %#llx)", what, rc,
	      errno_name(rc), (unsigned long long)after, (unsigned long long)frame[next][0]);
	cur = next;
}

static long by_uvm(uint64_t pte, unsigned long flags)
{
	return hypercall_update_va_mapping((unsigned long)win, pte, flags);
}

static unsigned long both = 3, ap_only = 2;     /* vCPU bitmaps */

static long by_mmu_update(uint64_t pte, unsigned long cmd)
{
	struct mmuext_op op = { .cmd = (unsigned)cmd, .arg1.linear_addr = (unsigned long)win };
	long rc = mmu_update1(virt_to_maddr(win_l1e), pte);

	if (cmd == MMUEXT_INVLPG_MULTI)
		set_xen_guest_handle(op.arg2.vcpumask, &both);
	if (cmd == MMUEXT_TLB_FLUSH_MULTI)
		set_xen_guest_handle(op.arg2.vcpumask, &ap_only);
	return rc ? rc : mmuext(&op, 1, NULL);
}

static void tlb(void)
{
	win = page_alloc();
	win_l1e = pt_entry((unsigned long)win, 1);
	for (unsigned i = 0; i < 2; i++) {
		frame[i] = page_alloc();
		frame[i][0] = 0xa11ce00000000000ul + i;
	}
	if (!win_l1e || by_uvm(pte_of(frame[0], PTE_RW_FLAGS), UVMF_TLB_FLUSH | UVMF_ALL))
		test_fail("setup: window entry %p", (void *)win_l1e);
	cur = 0;

	remap("update_va_mapping UVMF_INVLPG|UVMF_MULTI {0,1}", by_uvm, UVMF_INVLPG | UVMF_MULTI | (unsigned long)&both);
	remap("update_va_mapping UVMF_TLB_FLUSH|UVMF_MULTI {1}", by_uvm,
	      UVMF_TLB_FLUSH | UVMF_MULTI | (unsigned long)&ap_only);
	remap("update_va_mapping UVMF_INVLPG|UVMF_ALL", by_uvm, UVMF_INVLPG | UVMF_ALL);
	remap("update_va_mapping UVMF_TLB_FLUSH|UVMF_ALL", by_uvm, UVMF_TLB_FLUSH | UVMF_ALL);
	remap("mmu_update, MMUEXT_INVLPG_MULTI {0,1}", by_mmu_update, MMUEXT_INVLPG_MULTI);
	remap("mmu_update, MMUEXT_TLB_FLUSH_MULTI {1}", by_mmu_update, MMUEXT_TLB_FLUSH_MULTI);
	remap("mmu_update, MMUEXT_INVLPG_ALL", by_mmu_update, MMUEXT_INVLPG_ALL);
	remap("mmu_update, MMUEXT_TLB_FLUSH_ALL", by_mmu_update, MMUEXT_TLB_FLUSH_ALL);

	/* no verdict: a remap flushed only here; does the AP still see the old frame? */
	uint64_t before, after;
	ap_reads(&before);
	long rc = by_uvm(pte_of(frame[cur ^ 1], PTE_RW_FLAGS), UVMF_INVLPG | UVMF_LOCAL);
	ap_reads(&after);
	printf("  a remap flushed only on vCPU 0 (%ld): the AP then read the %s frame%s\n", rc,
	       after == before ? "old" : "new", after == before ? " (its stale TLB entry: remote flushes are needed)" : "");
	by_uvm(pte_of(frame[cur], PTE_RW_FLAGS), UVMF_INVLPG | UVMF_ALL);
}

/* 8. both vCPUs at once: multicalls (per-vCPU multicall state) and remaps flushed everywhere */
static void together(void)
{
	uint64_t end = now() + 300 * MS, n = 0;
	long rc = 0;
	unsigned seq = post(AP_MULTICALLS, end, 0);

	while (rc == 0 && now() < end) {
		rc = mc_pair();
		n++;
	}
	check(wait_eq_u(&ap.done, seq, WAIT), "both vCPUs issue multicalls for 300 ms");
	check(rc == 0 && ap.rc == 0, "  every multicall returned 0 with the right results: vCPU 0 %ld %s after %lu, "
	      "vCPU 1 %ld %s after %lu", rc, errno_name(rc), (unsigned long)n, ap.rc, errno_name(ap.rc),
	      (unsigned long)ap.val);

	ap_win = page_alloc();
	for (unsigned i = 0; i < 2; i++) {
		ap_frame[i] = page_alloc();
		ap_frame[i][0] = 0xb0b0000000000000ul + i;
	}
	uint64_t t0 = now();

	end = t0 + REMAP_BOUND;
	n = 0;
	rc = 0;
	seq = post(AP_REMAPS, (unsigned long)ap_win, end);
	while (rc == 0 && (n < REMAPS || remaps[1] < REMAPS) && now() < end) {
		rc = by_uvm(pte_of(frame[n & 1], PTE_RW_FLAGS), UVMF_INVLPG | UVMF_ALL);
		if (rc == 0 && *(volatile uint64_t *)win != frame[n & 1][0])
			rc = -XEN_EIO;
		STORE(remaps[0], ++n);
	}
	uint64_t took = now() - t0;
	check(wait_eq_u(&ap.done, seq, WAIT), "both vCPUs remap a window of their own with UVMF_ALL at once");
	check(rc == 0 && ap.rc == 0, "  every remap returned 0 and was seen: vCPU 0 %ld %s after %lu, vCPU 1 %ld %s "
	      "after %lu", rc, errno_name(rc), (unsigned long)n, ap.rc, errno_name(ap.rc), (unsigned long)ap.val);
	check(n >= REMAPS && ap.val >= REMAPS, "  neither vCPU starves the other of flushes: %lu and %lu remaps in "
	      "%lu ms (each needs %lu within %lu ms)", (unsigned long)n, (unsigned long)ap.val,
	      (unsigned long)(took / MS), REMAPS, (unsigned long)(REMAP_BOUND / MS));
	hypercall_update_va_mapping((unsigned long)win, pte_of(frame[cur], PTE_RW_FLAGS), UVMF_INVLPG | UVMF_ALL);
}

/* 9. vCPU 0 goes down with the AP up; the AP ups it again */
static void vcpu0_down(void)
{
	unsigned seq = post(AP_UP_VCPU0, 0, 0);

	check(wait_eq_u(&ap.busy, seq, WAIT), "the AP waits for vCPU 0 to go down");
	long rc = vcpu_op(VCPUOP_down, 0, NULL);
	STORE(ap.vcpu0_back, 1);
	check(rc == 0, "vCPU 0's own VCPUOP_down returns 0 once the AP ups it again");
	check(wait_eq_u(&ap.done, seq, WAIT) && ap.rc == 0, "  the AP's up(vCPU 0): %ld %s", ap.rc, errno_name(ap.rc));
	check((uint32_t)ap.val == 0 && ap.val >> 32 == RUNSTATE_offline,
	      "  the AP saw vCPU 0 down: is_up %d, runstate %lu (want 0, offline)", (int)(uint32_t)ap.val,
	      (unsigned long)(ap.val >> 32));
}

/* 10. the AP goes down for good; vCPU 0 powers off */
static void finish(void)
{
	unsigned seq = post(AP_DOWN_SELF, 0, 0);

	check(wait_eq_u(&ap.busy, seq, WAIT) && wait_is_up(1, 0, WAIT), "the AP downs itself at the end");
}

void test_main(void)
{
	long rc = events_init();

	if (rc)
		test_fail("CALLBACKOP_register(event): %ld %s", rc, errno_name(rc));
	events_enable();
	count();
	refusals();
	bring_up();
	ipis();
	block_kick();
	nmi_kick();
	polls();
	timer();
	downs();
	tlb();
	together();
	vcpu0_down();
	finish();
}
