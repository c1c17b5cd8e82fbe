/* startinfo.c: the fields of start_info a PV domU relies on (public/xen.h, struct start_info). */
#include "guest.h"
#include "memmap.h"

#ifdef __i386__
/* Xen's PV builder (xen/arch/x86/pv/dom0_build.c, which the shim builds its guest with) writes
 * "xen-3.0-x86_%d%s": 32, and "p" for a PAE kernel */
#define MAGIC "xen-3.0-x86_32p"
/* One L3, the four L2s a 32-bit guest always gets (dom0_build.c: "# compat L2" is 4, and "Ensure
 * the first four L3 entries are all populated": the fourth holds Xen's slots), an L1 */
#define MIN_PT_FRAMES 6
#define PT_FRAMES_WHAT "an L3, four L2s and an L1"
#else
#define MAGIC "xen-3.0-x86_64"
#define MIN_PT_FRAMES 4
#define PT_FRAMES_WHAT "L4 to L1"
#endif

static void magic_and_size(void)
{
	const start_info_t *si = start_info;
	size_t len = strnlen(si->magic, sizeof(si->magic));

	check(len < sizeof(si->magic), "magic is NUL-terminated");
	printf("    magic \"%.32s\", nr_pages %lu (%lu MiB)\n", si->magic, si->nr_pages,
	       si->nr_pages >> (20 - PAGE_SHIFT));
	check(!strncmp(si->magic, MAGIC, sizeof(MAGIC) - 1), "magic starts with " MAGIC);
	check(si->nr_pages > 0, "nr_pages > 0");
}

static void flags(void)
{
	uint32_t f = start_info->flags;

	printf("    flags %#x (power-management bits %#x)\n", f, (f & SIF_PM_MASK) >> 8);
	check(!(f & (SIF_PRIVILEGED | SIF_INITDOMAIN)), "neither SIF_PRIVILEGED nor SIF_INITDOMAIN");
}

/* The lib mapped shared_info at start; it must be readable and carry a running pvclock. */
static void shared(void)
{
	const volatile struct vcpu_time_info *t;
	uint32_t version;

	printf("    shared_info at machine address %#lx\n", start_info->shared_info);
	check(start_info->shared_info && !(start_info->shared_info & (PAGE_SIZE - 1)),
	      "shared_info is a nonzero, page-aligned machine address");
	if (!check(shared_info != NULL, "shared_info is mapped"))
		return;
	t = &((volatile shared_info_t *)shared_info)->vcpu_info[0].time;
	version = t->version;
	printf("    vcpu 0 time: version %u, system_time %llu ns, tsc mul %#x shift %d; wallclock %u s\n",
	       version, (unsigned long long)t->system_time, t->tsc_to_system_mul, t->tsc_shift,
	       shared_info->wc_sec);
	check(t->tsc_to_system_mul != 0, "vcpu 0's pvclock is set up (tsc_to_system_mul != 0)");
}

static void channels(void)
{
	const start_info_t *si = start_info;

	printf("    store mfn %#lx evtchn %u, console mfn %#lx evtchn %u\n",
	       (unsigned long)si->store_mfn, si->store_evtchn,
	       (unsigned long)si->console.domU.mfn, si->console.domU.evtchn);
	check(si->store_mfn && si->store_evtchn, "xenstore mfn and event channel are set");
	check(si->console.domU.mfn && si->console.domU.evtchn,
	      "console mfn and event channel are set");
	check(si->store_evtchn != si->console.domU.evtchn, "store and console use different ports");
}

static void boot_fields(void)
{
	const start_info_t *si = start_info;
	size_t len = strnlen((const char *)si->cmd_line, MAX_GUEST_CMDLINE);

	printf("    pt_base %#lx nr_pt_frames %lu mfn_list %#lx mod_start %#lx mod_len %lu\n",
	       si->pt_base, si->nr_pt_frames, si->mfn_list, si->mod_start, si->mod_len);
	printf("    first_p2m_pfn %#lx nr_p2m_frames %lu\n", si->first_p2m_pfn, si->nr_p2m_frames);
	check(si->nr_pt_frames >= MIN_PT_FRAMES, "at least %u bootstrap page-table frames (%s)", MIN_PT_FRAMES,
	      PT_FRAMES_WHAT);
	if (check(len < MAX_GUEST_CMDLINE, "cmd_line is NUL-terminated within %u bytes",
		  MAX_GUEST_CMDLINE))
		printf("    cmd_line \"%s\"\n", (const char *)si->cmd_line);
}

void check_start_info(void)
{
	printf("start_info at %p:\n", (void *)start_info);
	magic_and_size();
	flags();
	shared();
	channels();
	boot_fields();
}
