/*
 * usermode: guest user mode, and the round trip of a system call through the hypervisor.
 *
 * A 64-bit PV kernel runs in ring 3 like its processes, so Xen keeps two modes per vCPU: kernel
 * mode on the kernel's L4 and user mode on the L4 given with MMUEXT_NEW_USER_BASEPTR, and swaps
 * GS bases between them (public/xen.h; arch-x86/xen-x86_64.h "iret"). The kernel enters user mode
 * with HYPERVISOR_iret and a frame whose CS has RPL 3. A SYSCALL in user mode goes to the
 * callback registered as CALLBACKTYPE_syscall (callback.h), on the stack given with
 * stack_switch, with the frame [rcx, r11, rip, cs, rflags, rsp, ss]; the kernel returns with
 * HYPERVISOR_iret and VGCF_in_syscall. An exception in user mode is bounced to the kernel's
 * handler the same way, with the user's CS (RPL 3) in the frame. Linux runs every process so.
 *
 * User mode runs with events masked (IF clear in the iret frame): this guest has no event
 * callback, and an upcall from user mode would need one. We check: with user page tables, a
 * user function runs, makes system calls whose arguments and return values cross correctly,
 * the frame seen by the callback is right (CS RPL 3, rip after the syscall, user rsp), the
 * callback runs on the kernel stack in kernel mode, GS bases are per mode (SEGBASE_GS_USER),
 * a ud2 in user mode reaches the kernel's #UD handler with the user's frame, port I/O in user
 * mode needs a virtual IOPL of 3 (physdev set_iopl; Xen's iopl_ok), and INT n from user
 * mode reaches trap n only if the trap table gives it DPL 3 (Linux's int $0x80 for 32-bit
 * processes), else it is #GP with error code n*8+2 (Xen's do_general_protection).
 *
 * The 32-bit PAE build (usermode-pv32; x86_32/user.S) runs the same round trips through Xen's
 * compat paths, which differ so:
 *  - the ring-1 kernel and ring 3 share one set of page tables: MMUEXT_NEW_USER_BASEPTR is
 *    -EINVAL (compat_mmuext_op), and ring 3 reaches only pages whose L1 entry has _PAGE_USER,
 *    which Xen's builder leaves out for a 32-bit kernel (dom0_construct_pv, COMPAT_L1_PROT): the
 *    test adds it (lib/user.c's user_pages) but to one page, whose read from ring 3 is #PF with
 *    the user bit (error 5).
 *  - no SYSCALL callback: CALLBACKTYPE_syscall is -ENOSYS (compat_register_guest_callback knows
 *    syscall32 and sysenter), so the system calls are int $0x80 through the DPL-3 trap gate, as
 *    Linux's for 32-bit processes; its frame [eip, cs, eflags, esp, ss] sits right below the
 *    stack_switch pointer (compat_create_bounce_frame: no alignment, no rcx and r11).
 *  - SYSCALL from ring 3 (compatibility mode, which has it on AMD CPUs, this bed's) goes through
 *    Xen's cstar_enter to compat_syscall: with no CALLBACKTYPE_syscall32 callback (its CS still
 *    null) it is #GP with error code 0 to the kernel's #GP handler, eip at the instruction
 *    (compat_syscall takes 2 off); once one is registered (compat_register_guest_callback takes
 *    it with CALLBACKF_mask_events) it runs in ring 1 on the stack_switch stack with the frame
 *    [eip after the syscall, cs, eflags, esp, ss], where compat_syscall has put the flat ring-3
 *    FLAT_USER_CS and FLAT_USER_SS (the saved upcall mask above CS, as every bounce), and ecx is
 *    the return eip (SYSCALL's). Checked last, in two more runs of user mode: the #GP first,
 *    then the round trip, twice (the callback returns by HYPERVISOR_iret to the frame).
 *  - no GS bases: set_segment_base is -ENOSYS (do_set_segment_base, x86/64 only); the GS_USER
 *    check is 64-bit only and skipped.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include "guest.h"
#include "mm.h"
#include "traps.h"
#include "user.h"

const char test_title[] = "usermode: iret to user mode, syscall round trips, user-mode exception";

/* user.S */
extern char user_entry[], syscall_callback[], ud_handler[], int80_handler[], gp_handler[];
void user_enter(unsigned long rip, unsigned long rsp);      /* lib/user.S: returns when the user says exit */
extern unsigned long sc_count, sc_last_rax, sc_last_rdi, sc_frame_cs, sc_frame_rip, sc_frame_rsp, sc_kernel_rsp;
extern unsigned long ud_count, ud_frame_cs, ud_frame_rip, user_gs_seen, user_done, gs_magic;
extern char user_syscall_ret[], user_ud_at[], user_int80_ret[], user_int90_at[];
extern unsigned long user_inb, int80_count, int80_frame_cs, int80_frame_rip, gp_count, gp_frame_err, gp_frame_rip;
#ifdef __i386__
extern char kernel_only_page[], user_pf_at[], pf_handler[];
extern unsigned long pf_count, pf_frame_err, pf_frame_rip;
extern char user_sc32_entry[], user_sc32_gp_at[], user_sc32_ret[], sc32_callback[], sc32gp_handler[];
extern unsigned long sc32_count, sc32_eax, sc32_ecx, sc32_frame_eip, sc32_frame_cs, sc32_frame_eflags;
extern unsigned long sc32_frame_esp, sc32_frame_ss, sc32_kernel_esp, sc32_user_eax, sc32_user_ecx, sc32_done;
extern unsigned long sc32gp_count, sc32gp_frame_err, sc32gp_frame_rip, sc32gp_frame_cs;
#endif

_Static_assert(PHYSDEVOP_set_iopl == 6, "user.S's SET_IOPL");

static char user_stack[4096] __attribute__((aligned(16)));
static char kernel_stack[8192] __attribute__((aligned(16)));

#ifdef __i386__
/* The 32-bit build's setup: one set of page tables, no SYSCALL callback, no GS bases. */
static void setup32(void)
{
	/* the kernel's own (pinned, current) top table: a 64-bit guest's could be installed */
	long rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn((void *)start_info->pt_base));
	check(rc == -XEN_EINVAL, "MMUEXT_NEW_USER_BASEPTR: %ld %s (want -EINVAL: compat_mmuext_op; ring 3 shares the kernel's tables)",
	      rc, errno_name(rc));
	uint64_t *e = pt_entry((unsigned long)user_entry, 1);
	check(e && !(*e & PTE_USER), "the kernel's code is not user-accessible as Xen built it (L1 entry %#llx: COMPAT_L1_PROT)",
	      e ? (unsigned long long)*e : 0ull);
	rc = user_pages(_image_start, _image_end);
	check(rc == 0, "_PAGE_USER added to the image's L1 entries: %ld %s", rc, errno_name(rc));
	rc = hypercall_update_va_mapping((unsigned long)kernel_only_page, pte_of(kernel_only_page, PTE_RW_FLAGS),
					 UVMF_INVLPG);
	check(rc == 0, "  but to the one at %p: %ld %s", kernel_only_page, rc, errno_name(rc));
	rc = HC(__HYPERVISOR_stack_switch, FLAT_KERNEL_SS, kernel_stack + sizeof(kernel_stack), 0);
	check(rc == 0, "stack_switch: %ld %s", rc, errno_name(rc));
	struct callback_register cb = { .type = CALLBACKTYPE_syscall, .flags = CALLBACKF_mask_events,
					.address = { FLAT_KERNEL_CS, (unsigned long)syscall_callback } };
	rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
	check(rc == -XEN_ENOSYS, "callback_op register syscall: %ld %s (want -ENOSYS: compat_register_guest_callback)",
	      rc, errno_name(rc));
	rc = HC(__HYPERVISOR_set_segment_base, 2 /* SEGBASE_GS_USER, xen-x86_64.h */, 0x1000, 0);
	check(rc == -XEN_ENOSYS, "set_segment_base GS_USER: %ld %s (want -ENOSYS: do_set_segment_base is x86/64 only)",
	      rc, errno_name(rc));
	/* Only these change, the rest of the table stays: #UD, #GP, #PF, int $0x80 for ring 3 (the
	 * system call: DPL 3, as Linux registers it for 32-bit processes) and 0x90 for the kernel
	 * only (DPL 1). */
	static struct trap_info traps[6] = {
		{ 6, 3, FLAT_KERNEL_CS, 0 }, { 13, 0, FLAT_KERNEL_CS, 0 }, { 14, 0, FLAT_KERNEL_CS, 0 },
		{ 0x80, 3, FLAT_KERNEL_CS, 0 }, { 0x90, 1, FLAT_KERNEL_CS, 0 },
	};
	traps[0].address = (unsigned long)ud_handler;
	traps[1].address = (unsigned long)gp_handler;
	traps[2].address = (unsigned long)pf_handler;
	traps[3].address = (unsigned long)syscall_callback;
	traps[4].address = (unsigned long)int80_handler;	/* must not be reached from user mode */
	rc = hypercall_set_trap_table(traps);
	check(rc == 0, "set_trap_table for #UD, #GP, #PF, 0x80, 0x90: %ld %s", rc, errno_name(rc));
}
#endif

#ifdef __i386__
/*
 * SYSCALL from ring 3, after the checks above (two more runs of user mode, user_sc32_entry):
 * first with no syscall32 callback (#GP), then with one (the round trip). Xen's compat_syscall.
 */
static void syscall32(void)
{
	static struct trap_info gp[2] = { { 13, 0, FLAT_KERNEL_CS, 0 } };
	gp[0].address = (unsigned long)sc32gp_handler;
	long rc = hypercall_set_trap_table(gp);
	check(rc == 0, "set_trap_table for #GP (the SYSCALL one): %ld %s", rc, errno_name(rc));

	user_enter((unsigned long)user_sc32_entry, (unsigned long)user_stack + sizeof(user_stack));
	check(sc32gp_count == 1 && sc32gp_frame_err == 0 && sc32gp_frame_rip == (unsigned long)user_sc32_gp_at &&
	      (sc32gp_frame_cs & 0xffff) == FLAT_USER_CS && sc32_count == 0 && sc32_user_eax == 5,
	      "SYSCALL in ring 3, no syscall32 callback: #GP error %#lx (want 0) at eip %#lx (want %p, the instruction), cs %#lx (want %#x), count %lu, callback %lu, eax %#lx (want 5)",
	      sc32gp_frame_err, sc32gp_frame_rip, user_sc32_gp_at, sc32gp_frame_cs & 0xffff, FLAT_USER_CS,
	      sc32gp_count, sc32_count, sc32_user_eax);

	struct callback_register cb = { .type = CALLBACKTYPE_syscall32, .flags = CALLBACKF_mask_events,
					.address = { FLAT_KERNEL_CS, (unsigned long)sc32_callback } };
	rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
	check(rc == 0, "callback_op register syscall32: %ld %s (compat_register_guest_callback)", rc, errno_name(rc));

	user_enter((unsigned long)user_sc32_entry, (unsigned long)user_stack + sizeof(user_stack));
	check(sc32_count == 2 && sc32_done == 1 && sc32gp_count == 1,
	      "two SYSCALLs from ring 3 reached the syscall32 callback and returned (count %lu, done %lu, #GPs %lu)",
	      sc32_count, sc32_done, sc32gp_count);
	check(sc32_eax == 5 && sc32_user_eax == 1005,
	      "  eax crossed both ways (the callback got %#lx, want 5; ring 3 got %#lx, want 1005)", sc32_eax, sc32_user_eax);
	check(sc32_ecx == (unsigned long)user_sc32_ret && sc32_user_ecx == (unsigned long)user_sc32_ret,
	      "  ecx is the return eip, SYSCALL's (callback %#lx, ring 3 after %#lx, want %p)",
	      sc32_ecx, sc32_user_ecx, user_sc32_ret);
	check(sc32_frame_eip == (unsigned long)user_sc32_ret, "  the frame's eip is after the syscall (%#lx, want %p)",
	      sc32_frame_eip, user_sc32_ret);
	check((sc32_frame_cs & 0xffff) == FLAT_USER_CS && ((sc32_frame_cs >> 16) & 0xff) == 1,
	      "  its cs is the flat ring-3 CS with the saved upcall mask 1 above it (%#lx, want %#x)",
	      sc32_frame_cs, 1 << 16 | FLAT_USER_CS);
	check(!(sc32_frame_eflags & 0x200) && (sc32_frame_eflags & 2),
	      "  its eflags has IF clear, ring 3 ran with events masked (%#lx)", sc32_frame_eflags);
	check(sc32_frame_esp == (unsigned long)user_stack + sizeof(user_stack) && (sc32_frame_ss & 0xffff) == FLAT_USER_SS,
	      "  its esp and ss are ring 3's (%#lx:%#lx, want %#x:%p)", sc32_frame_ss & 0xffff, sc32_frame_esp,
	      FLAT_USER_SS, user_stack + sizeof(user_stack));
	check(sc32_kernel_esp == (unsigned long)kernel_stack + sizeof(kernel_stack) - 20,
	      "  the callback ran on the stack_switch stack, the frame right below its top (%#lx, want %p)",
	      sc32_kernel_esp, kernel_stack + sizeof(kernel_stack) - 20);
}
#endif

void test_main(void)
{
#ifdef __i386__
	setup32();
#else
	long rc;
	uint64_t *ul4 = page_alloc();
	uint64_t *kl4 = (uint64_t *)start_info->pt_base;

	/* the user L4: the same guest mappings (everything is U for a PV guest anyway) */
	for (unsigned int i = 0; i < 512; i++)
		if (i < 256 || i > 271)
			ul4[i] = kl4[i];
	if (page_ro(ul4) || pin(4, ul4))
		test_fail("cannot pin the user L4");
	rc = mmuext1(MMUEXT_NEW_USER_BASEPTR, virt_to_mfn(ul4));
	check(rc == 0, "MMUEXT_NEW_USER_BASEPTR: %ld %s", rc, errno_name(rc));
	rc = HC(__HYPERVISOR_stack_switch, FLAT_KERNEL_SS, kernel_stack + sizeof(kernel_stack), 0);
	check(rc == 0, "stack_switch: %ld %s", rc, errno_name(rc));
	struct callback_register cb = { .type = CALLBACKTYPE_syscall, .flags = CALLBACKF_mask_events,
					.address = (unsigned long)syscall_callback };
	rc = HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
	check(rc == 0, "callback_op register syscall: %ld %s", rc, errno_name(rc));
	rc = HC(__HYPERVISOR_set_segment_base, SEGBASE_GS_USER, &gs_magic, 0);
	check(rc == 0, "set_segment_base GS_USER: %ld %s", rc, errno_name(rc));
	/* Only these change, the rest of the table stays: #UD, #GP, int $0x80 for user mode (DPL 3,
	 * as Linux registers it for 32-bit processes) and 0x90 for the kernel only (DPL 1). */
	static struct trap_info traps[5] = {
		{ 6, 3, FLAT_KERNEL_CS, 0 }, { 13, 0, FLAT_KERNEL_CS, 0 }, { 0x80, 3, FLAT_KERNEL_CS, 0 },
		{ 0x90, 1, FLAT_KERNEL_CS, 0 },
	};
	traps[0].address = (unsigned long)ud_handler;
	traps[1].address = (unsigned long)gp_handler;
	traps[2].address = (unsigned long)int80_handler;
	traps[3].address = (unsigned long)int80_handler;	/* must not be reached from user mode */
	rc = hypercall_set_trap_table(traps);
	check(rc == 0, "set_trap_table for #UD, #GP, 0x80, 0x90: %ld %s", rc, errno_name(rc));
#endif

	user_enter((unsigned long)user_entry, (unsigned long)user_stack + sizeof(user_stack));

	check(user_done == 1, "the user function ran to its exit call");
#ifdef __i386__
	/* int $0x80 through the DPL-3 gate (compat_int80_direct_trap): the frame Xen bounces onto the
	 * stack_switch stack, [eip, cs, eflags, esp, ss], 20 bytes right below its top */
	check(sc_count == 4, "four system calls (int $0x80) reached the kernel's handler (%lu)", sc_count);
	check(sc_last_rdi == 0x1234, "the last one carried its argument (edi %#lx)", sc_last_rdi);
	check((sc_frame_cs & 0xffff) == FLAT_USER_CS, "the int $0x80 frame's CS is the user's, RPL 3 (%#lx, want %#x)",
	      sc_frame_cs & 0xffff, FLAT_USER_CS);
	check(sc_frame_rip == (unsigned long)user_syscall_ret, "its eip is after the int (%#lx, want %p)",
	      sc_frame_rip, user_syscall_ret);
	check(sc_frame_rsp > (unsigned long)user_stack && sc_frame_rsp <= (unsigned long)user_stack + sizeof(user_stack),
	      "its esp is the user's (%#lx)", sc_frame_rsp);
	check(sc_kernel_rsp == (unsigned long)kernel_stack + sizeof(kernel_stack) - 20,
	      "the handler ran on the stack_switch stack, the frame right below its top (%#lx, want %p)",
	      sc_kernel_rsp, kernel_stack + sizeof(kernel_stack) - 20);
	printf("  skipped: the user GS base (set_segment_base GS_USER: 64-bit only)\n");
#else
	check(sc_count == 4, "four system calls reached the callback (%lu)", sc_count);
	check(sc_last_rdi == 0x1234, "the last one carried its argument (rdi %#lx)", sc_last_rdi);
	check((sc_frame_cs & 3) == 3, "the syscall frame's CS has RPL 3 (%#lx)", sc_frame_cs);
	check(sc_frame_rip == (unsigned long)user_syscall_ret, "its rip is after the syscall (%#lx, want %p)",
	      sc_frame_rip, user_syscall_ret);
	check(sc_frame_rsp > (unsigned long)user_stack && sc_frame_rsp <= (unsigned long)user_stack + sizeof(user_stack),
	      "its rsp is the user's (%#lx)", sc_frame_rsp);
	check(sc_kernel_rsp > (unsigned long)kernel_stack && sc_kernel_rsp <= (unsigned long)kernel_stack + sizeof(kernel_stack),
	      "the callback ran on the stack_switch stack (%#lx)", sc_kernel_rsp);
	check(user_gs_seen == 0x5a5a5a5a, "user mode read through the GS_USER base (%#lx)", user_gs_seen);
#endif
	check(ud_count == 1 && (ud_frame_cs & 3) == 3 && ud_frame_rip == (unsigned long)user_ud_at,
	      "ud2 in user mode reached the kernel's #UD handler (count %lu, cs %#lx, rip %#lx, want %p)",
	      ud_count, ud_frame_cs, ud_frame_rip, user_ud_at);
	check(gp_count == 2 && (user_inb & 0xff) == 0xff,
	      "port I/O in user mode: #GP with IOPL 0, runs with IOPL 3 (#GPs %lu, want 2 with int $0x90's; al %#lx)",
	      gp_count, user_inb & 0xff);
#ifdef __i386__
	/* int $0x80 is the system call here: its frame is checked above */
	check(int80_count == 0, "0x90's handler was not reached (%lu)", int80_count);
	check(pf_count == 1 && pf_frame_err == 5 && pf_frame_rip == (unsigned long)user_pf_at &&
	      shared_info->vcpu_info[0].arch.cr2 == (unsigned long)kernel_only_page,
	      "a read from ring 3 of the page without _PAGE_USER: #PF error %#lx (want 5: present, read, user), count %lu, eip %#lx (want %p), cr2 %#lx",
	      pf_frame_err, pf_count, pf_frame_rip, user_pf_at, shared_info->vcpu_info[0].arch.cr2);
#else
	check(int80_count == 1 && (int80_frame_cs & 3) == 3 && int80_frame_rip == (unsigned long)user_int80_ret,
	      "int $0x80 in user mode (trap DPL 3) reached its handler (count %lu, cs %#lx, rip %#lx, want %p)",
	      int80_count, int80_frame_cs, int80_frame_rip, user_int80_ret);
#endif
	/* The error code is n*8+2 on hardware; QEMU 7.2 (this bed's L0) gives n*16+2, so only its IDT
	 * bit is checked here: test/guests/traps checks the value, on the stock shim as an XFAIL. */
	check(gp_count >= 1 && (gp_frame_err & 3) == 2 && gp_frame_rip == (unsigned long)user_int90_at,
	      "int $0x90 in user mode (trap DPL 1) is #GP with the IDT bit (count %lu, error %#lx; rip %#lx, want %p)",
	      gp_count, gp_frame_err, gp_frame_rip, user_int90_at);
#ifdef __i386__
	syscall32();
#endif
}
