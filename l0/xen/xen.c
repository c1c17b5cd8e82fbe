/* xen.c: the Xen L0: memory map, shared_info, vcpu_info and upcall vector per CPU, suspend and
 * resume, shutdown, and the operations table (events.c, time.c and memory.c hold the rest). */
#include "l0/evtchn.h"
#include "l0/l0.h"
#include "l0/pc/uart.h"
#include "l0/xen/xen.h"
#include "shim/apic.h"
#include "shim/boot.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/irq.h"
#include "shim/paging.h"
#include "shim/time.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

bool xen_vmmcall;
uint64_t xen_hcall_count[64];
struct shared_info *xen_shared;
uint64_t xen_shared_gpfn;
uint32_t xen_domid_self = DOMID_SELF;
static bool callback_param_set;

struct __packed e820_entry {
    uint64_t addr, size;
    uint32_t type;
};

static uint32_t xen_vcpu_id(void)
{
    uint32_t a, b, c, d;

    cpuid(xen_cpuid_base + 4, &a, &b, &c, &d);
    return (a & XEN_HVM_CPUID_VCPU_ID_PRESENT) ? b : this_cpu()->id;
}

static void xen_early_init(struct boot_info *bi)
{
    static struct e820_entry map[MAX_MEM_RANGES];
    struct xen_memory_map mm = { .nr_entries = MAX_MEM_RANGES };
    uint32_t a, b, c, d;

    xen_vmmcall = !cpu_has.intel;       /* AMD/Hygon; an unknown vendor gets vmmcall too, and a note */
    if (!cpu_has.intel && !cpu_has.amd)
        boot_note(bi, "unknown CPU vendor '%s': using vmmcall", cpu_has.vendor);
    cpuid(xen_cpuid_base + 4, &a, &b, &c, &d);
    if (a & XEN_HVM_CPUID_DOMID_PRESENT)
        xen_domid_self = c;
    this_cpu()->vcpu_id = xen_vcpu_id();

    /* the first hypercall, as in the stock shim: the e820 the toolstack built for us */
    set_xen_guest_handle(mm.buffer, map);
    long rc = HYPERVISOR_memory_op(XENMEM_memory_map, &mm);
    if (rc == 0 && mm.nr_entries) {
        bi->nr_mem = 0;
        bi->mem_source = "XENMEM_memory_map";
        for (unsigned i = 0; i < mm.nr_entries && i < MAX_MEM_RANGES; i++)
            boot_add_mem(bi, map[i].addr, map[i].size, map[i].type);
    } else {
        boot_note(bi, "XENMEM_memory_map failed (%ld): using the %s map", rc, bi->mem_source);
    }
    uart_init(false);                   /* only if console=com1 asks for it */
    xen_console_early();
}

static int register_vcpu_info(struct cpu *c)
{
    uint64_t pa = virt_to_phys(c->l0_vcpu_area);
    struct vcpu_register_vcpu_info info = { .mfn = pa >> PAGE_SHIFT, .offset = (uint32_t)(pa & (PAGE_SIZE - 1)) };
    long rc = HYPERVISOR_vcpu_op(VCPUOP_register_vcpu_info, c->vcpu_id, &info);

    if (rc == 0) {
        c->l0_vcpu_info = c->l0_vcpu_area;
    } else if (c->vcpu_id < XEN_LEGACY_MAX_VCPUS) {
        pr_warn("CPU%u: VCPUOP_register_vcpu_info failed (%ld): using shared_info's slot\n", c->id, rc);
        c->l0_vcpu_info = &xen_shared->vcpu_info[c->vcpu_id];
    } else {
        return ERR((int)rc);
    }
    c->l0_time = &((struct vcpu_info *)c->l0_vcpu_info)->time;
    return 0;
}

static int xen_init(void)
{
    struct cpu *c = this_cpu();
    uint64_t top = 4ull << 30;
    long rc;

    xen_console_init();

    /* shared_info at the first frame above RAM and 4 GiB: L0 backs a fresh page there */
    for (unsigned i = 0; i < boot_info.nr_mem; i++)
        top = MAX(top, boot_info.mem[i].end);
    xen_shared_gpfn = ALIGN_UP(top, PAGE_SIZE) >> PAGE_SHIFT;
    struct xen_add_to_physmap xatp = {
        .domid = DOMID_SELF, .space = XENMAPSPACE_shared_info, .idx = 0, .gpfn = xen_shared_gpfn,
    };
    if ((rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp)))
        return ERR((int)rc);
    xen_shared = ioremap(xen_shared_gpfn << PAGE_SHIFT, PAGE_SIZE, PTE_RW);
    if (!xen_shared)
        return ERR(-XEN_ENOMEM);
    /* every port masked; users unmask theirs with EVTCHNOP_unmask */
    memset(xen_shared->evtchn_mask, 0xff, sizeof(xen_shared->evtchn_mask));

    int err = register_vcpu_info(c);
    if (err)
        return err;
    /* the pvclock must be valid before anything reads time; a reschedule makes L0 fill it */
    const struct vcpu_time_info *t = c->l0_time;
    for (unsigned i = 0; i < 1000 && !READ_ONCE(t->tsc_to_system_mul); i++)
        HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
    if (!t->tsc_to_system_mul)
        return ERR(-XEN_ENODEV);
    irq_register(VEC_EVTCHN, xen_upcall);
    return 0;
}

static int xen_cpu_init(struct cpu *c)
{
    int rc;

    c->vcpu_id = xen_vcpu_id();
    if (!c->l0_vcpu_info && (rc = register_vcpu_info(c)))
        return rc;
    if (l0_steal && !xen_runstate_on(c))
        xen_runstate_register(c);
    struct xen_hvm_evtchn_upcall_vector up = { .vcpu = c->vcpu_id, .vector = VEC_EVTCHN };
    long r = HYPERVISOR_hvm_op(HVMOP_set_evtchn_upcall_vector, &up);
    if (r)
        return ERR((int)r);
    if (!callback_param_set) {
        /* as the stock shim: a non-zero callback tells the toolstack we handle PV control */
        struct xen_hvm_param p = { .domid = DOMID_SELF, .index = HVM_PARAM_CALLBACK_IRQ, .value = 1 };
        if ((r = HYPERVISOR_hvm_op(HVMOP_set_param, &p)))
            pr_warn("HVMOP_set_param(CALLBACK_IRQ) failed: %ld\n", r);
        callback_param_set = true;
    }
    return 0;
}

static uint16_t xen_domid(void)
{
    return (uint16_t)xen_domid_self;
}

static void xen_report(void)
{
    xen_extraversion_t extra = { 0 };
    long ver = HYPERVISOR_xen_version(XENVER_version, NULL);

    HYPERVISOR_xen_version(XENVER_extraversion, extra);
    extra[sizeof(extra) - 1] = '\0';
    pr_info("L0: Xen %ld.%ld%s, domid %u, CPUID leaves at %#x, hypercalls by %s\n", ver >> 16, ver & 0xffff,
            extra, xen_domid_self, xen_cpuid_base, xen_vmmcall ? "vmmcall" : "vmcall");
    pr_info("  shared_info at gfn %#lx, event upcall vector %#x\n", xen_shared_gpfn, VEC_EVTCHN);
    xen_console_report();
}

static void xen_report_counters(void)
{
    static const struct { unsigned op; const char *name; } ops[] = {
        { __HYPERVISOR_memory_op, "memory_op" }, { __HYPERVISOR_console_io, "console_io" },
        { __HYPERVISOR_xen_version, "xen_version" }, { __HYPERVISOR_vcpu_op, "vcpu_op" },
        { __HYPERVISOR_sched_op, "sched_op" }, { __HYPERVISOR_event_channel_op, "event_channel_op" },
        { __HYPERVISOR_hvm_op, "hvm_op" }, { __HYPERVISOR_grant_table_op, "grant_table_op" },
    };
    char buf[200];
    size_t n = 0;

    for (unsigned i = 0; i < ARRAY_SIZE(ops) && n < sizeof(buf); i++)
        if (xen_hcall_count[ops[i].op])
            n += (size_t)snprintf_(buf + n, sizeof(buf) - n, " %s %lu", ops[i].name, xen_hcall_count[ops[i].op]);
    pr_info("hypercalls to L0:%s\n", n ? buf : " none");
}

/* SHUTDOWN_suspend at L0: the toolstack saves the domain. L0's answer: 0 when we run again in a
 * new domain (restored, or migrated), 1 when the suspend was cancelled (xl save -c, a failed
 * save: libxc writes 1 into our rax), or an error. */
static long xen_suspend(void)
{
    struct sched_shutdown s = { .reason = SHUTDOWN_suspend };

    return HYPERVISOR_sched_op(SCHEDOP_shutdown, &s);
}

/* This CPU in a new domain: none of its registrations came along (vcpu_info, upcall vector,
 * runstate area). Each CPU must do its own: L0 takes a vcpu_info only from its vCPU. */
static int xen_cpu_resume(struct cpu *c)
{
    c->l0_vcpu_info = NULL;
    xen_runstate_forget(c);
    int rc = xen_cpu_init(c);
    if (rc)
        return rc;
    /* the new vcpu_info starts as shared_info's zeroed slot: wait for L0 to write our clock */
    const volatile struct vcpu_time_info *t = c->l0_time;
    for (unsigned i = 0; i < 1000 && !t->tsc_to_system_mul; i++)
        HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
    return t->tsc_to_system_mul ? 0 : ERR(-XEN_ENODEV);
}

/* The BSP, first, in a new domain: shared_info goes back at its gfn (the restore left a plain
 * page there), every port masked and forgotten (L0 has none of them now), the console ring
 * with its new port. The store ring and grant frames are the guest side's (pv/domain/suspend.c). */
static int xen_resume(void)
{
    struct xen_add_to_physmap xatp = {
        .domid = DOMID_SELF, .space = XENMAPSPACE_shared_info, .idx = 0, .gpfn = xen_shared_gpfn,
    };
    long rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp);

    if (rc)
        return ERR((int)rc);
    memset(xen_shared->evtchn_mask, 0xff, sizeof(xen_shared->evtchn_mask));
    evtchn_unregister_all();
    callback_param_set = false;
    int err = xen_cpu_resume(this_cpu());
    if (err)
        return err;
    xen_console_resume();
    return 0;
}

static __noreturn void xen_shutdown(unsigned reason)
{
    struct sched_shutdown s = { .reason = reason };

    for (;;) {
        HYPERVISOR_sched_op(SCHEDOP_shutdown, &s);
        cli();
        halt();
    }
}

static int xen_flush_tlb(void)
{
    return (int)HYPERVISOR_hvm_op(HVMOP_flush_tlbs, NULL);
}

static void xen_yield(void)
{
    HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
}

const struct l0_ops l0_xen = {
    .name = "xen",
    .early_init = xen_early_init,
    .init = xen_init,
    .cpu_init = xen_cpu_init,
    .vcpu_id = xen_vcpu_id,
    .default_console = CONS_PV,
    .clock_name = "xen pvclock (vcpu_time_info)",
    .now_ns = xen_now_ns,
    .tsc_hz = xen_tsc_hz,
    .clock_line = xen_clock_line,
    .clock_gen = xen_clock_gen,
    .evtchn_bind_ipi = xen_evtchn_bind_ipi,
    .evtchn_send = xen_evtchn_send,
    .evtchn_unmask = xen_evtchn_unmask,
    .evtchn_close = xen_evtchn_close,
    .evtchn_alloc_unbound = xen_evtchn_alloc_unbound,
    .evtchn_bind_interdomain = xen_evtchn_bind_interdomain,
    .evtchn_status = xen_evtchn_status,
    .domid = xen_domid,
    .wallclock_base = xen_wallclock_base,
    .grant_query_size = xen_grant_query_size,
    .grant_frame = xen_grant_frame,
    .grant_set_version = xen_grant_set_version,
    .store_ring = xen_store_ring,
    .store_ring_home = xen_store_ring_home,
    .release_frames = xen_release_frames,
    .populate_frames = xen_populate_frames,
    .flush_tlb = xen_flush_tlb,
    .yield = xen_yield,
    .stolen_ns = xen_stolen_ns,
    .report = xen_report,
    .report_counters = xen_report_counters,
    .hcall_count = xen_hcall_count,
    .shutdown = xen_shutdown,
    .suspend = xen_suspend,
    .resume = xen_resume,
    .cpu_resume = xen_cpu_resume,
};
