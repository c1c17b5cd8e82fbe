/* xen.c: the Xen L0: memory map, shared_info, vcpu_info, upcall vector and events, pvclock, the guest's
 * store ring and grant frames, shutdown. */
#include "apic.h"
#include "boot.h"
#include "config.h"
#include "console.h"
#include "cpu.h"
#include "debug.h"
#include "evtchn.h"
#include "irq.h"
#include "l0.h"
#include "paging.h"
#include "time.h"
#include "uart.h"
#include "x86.h"
#include "xen.h"
#include "xerrno.h"

bool xen_vmmcall;
uint64_t xen_hcall_count[64];
struct shared_info *xen_shared;
static uint64_t shared_gpfn;
static uint32_t domid = DOMID_SELF;
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
        domid = c;
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

static void xen_upcall(struct cpu_regs *r)
{
    struct cpu *c = this_cpu();
    struct vcpu_info *vi = c->l0_vcpu_info;

    c->nr_upcalls++;
    while (READ_ONCE(vi->evtchn_upcall_pending)) {
        WRITE_ONCE(vi->evtchn_upcall_pending, 0);
        xen_ulong_t sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        while (sel) {
            unsigned l1 = (unsigned)__builtin_ctzl(sel);
            sel &= sel - 1;
            xen_ulong_t pend = READ_ONCE(xen_shared->evtchn_pending[l1]) & ~READ_ONCE(xen_shared->evtchn_mask[l1]);
            while (pend) {
                unsigned bit = (unsigned)__builtin_ctzl(pend);
                pend &= pend - 1;
                __atomic_fetch_and(&xen_shared->evtchn_pending[l1], ~(1ul << bit), __ATOMIC_SEQ_CST);
                evtchn_dispatch(l1 * 64 + bit);
            }
        }
    }
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
    shared_gpfn = ALIGN_UP(top, PAGE_SIZE) >> PAGE_SHIFT;
    struct xen_add_to_physmap xatp = {
        .domid = DOMID_SELF, .space = XENMAPSPACE_shared_info, .idx = 0, .gpfn = shared_gpfn,
    };
    if ((rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp)))
        return ERR((int)rc);
    xen_shared = ioremap(shared_gpfn << PAGE_SHIFT, PAGE_SIZE, PTE_RW);
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

/* Each CPU's runstate as L0 keeps it (VCPUOP_register_runstate_memory_area, at our own virtual
 * address: the shim's mappings are in every page table we run on). L0 rewrites it at each of its
 * context switches of that vCPU. */
static struct vcpu_runstate_info l0_runstate[MAX_CPUS] __aligned(64);
static bool l0_runstate_on[MAX_CPUS];

static void register_runstate(struct cpu *c)
{
    struct vcpu_register_runstate_memory_area a = { .addr.p = (uintptr_t)&l0_runstate[c->id] };
    long rc = HYPERVISOR_vcpu_op(VCPUOP_register_runstate_memory_area, c->vcpu_id, &a);

    if (rc)
        pr_warn("CPU%u: VCPUOP_register_runstate_memory_area failed (%ld): no steal time\n", c->id, rc);
    l0_runstate_on[c->id] = rc == 0;
}

/* Runnable (waiting for a pCPU) plus offline time. Read twice until both agree: L0 may be
 * rewriting the area from another pCPU. */
static uint64_t xen_stolen_ns(unsigned cpu)
{
    const volatile struct vcpu_runstate_info *r = &l0_runstate[cpu];
    uint64_t a, b;

    if (cpu >= MAX_CPUS || !l0_runstate_on[cpu])
        return 0;
    do {
        a = r->time[RUNSTATE_runnable] + r->time[RUNSTATE_offline];
        b = r->time[RUNSTATE_runnable] + r->time[RUNSTATE_offline];
    } while (a != b);
    return a;
}

static int xen_cpu_init(struct cpu *c)
{
    int rc;

    c->vcpu_id = xen_vcpu_id();
    if (!c->l0_vcpu_info && (rc = register_vcpu_info(c)))
        return rc;
    if (l0_steal && !l0_runstate_on[c->id])
        register_runstate(c);
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

/* L0 rewrites its record when it reschedules or recalibrates us: a new line, a new version. */
static void xen_clock_line(struct clock_line *l)
{
    const volatile struct vcpu_time_info *t = this_cpu()->l0_time;
    uint32_t v;

    do {
        v = t->version;
        barrier();
        l->tsc0 = t->tsc_timestamp;
        l->ns0 = t->system_time;
        l->mul = t->tsc_to_system_mul;
        l->shift = t->tsc_shift;
        barrier();
    } while ((v & 1) || v != t->version);
}

static uint64_t xen_now_ns(void)
{
    struct clock_line l;

    if (!this_cpu()->l0_time)
        return 0;
    xen_clock_line(&l);
    return clock_line_ns(&l, rdtsc());      /* a record from before a restore reads as its start */
}

static uint32_t xen_clock_gen(void)
{
    return READ_ONCE(((const volatile struct vcpu_time_info *)this_cpu()->l0_time)->version);
}

static uint64_t xen_tsc_hz(void)
{
    const volatile struct vcpu_time_info *t = this_cpu()->l0_time;
    uint64_t hz = (1000000000ull << 32) / t->tsc_to_system_mul;

    return t->tsc_shift >= 0 ? hz >> t->tsc_shift : hz << -t->tsc_shift;
}

static int xen_evtchn_bind_ipi(uint32_t vcpu, uint32_t *port)
{
    struct evtchn_bind_ipi b = { .vcpu = vcpu };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_bind_ipi, &b);

    *port = b.port;
    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_send(uint32_t port)
{
    struct evtchn_send s = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_send, &s);

    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_unmask(uint32_t port)
{
    struct evtchn_unmask u = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_unmask, &u);

    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_close(uint32_t port)
{
    struct evtchn_close cl = { .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_close, &cl);

    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_alloc_unbound(uint16_t remote_dom, uint32_t *port)
{
    struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = remote_dom };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_alloc_unbound, &a);

    *port = a.port;
    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_bind_interdomain(uint16_t remote_dom, uint32_t remote_port, uint32_t *port)
{
    struct evtchn_bind_interdomain b = { .remote_dom = remote_dom, .remote_port = remote_port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_bind_interdomain, &b);

    *port = b.local_port;
    return rc ? ERR((int)rc) : 0;
}

static int xen_evtchn_status(uint32_t port, uint32_t *status, uint16_t *rdom, uint32_t *rport)
{
    struct evtchn_status st = { .dom = DOMID_SELF, .port = port };
    long rc = HYPERVISOR_evtchn_op(EVTCHNOP_status, &st);

    if (rc)
        return ERR((int)rc);
    *status = st.status;
    *rdom = st.status == EVTCHNSTAT_unbound ? st.u.unbound.dom : st.u.interdomain.dom;
    *rport = st.status == EVTCHNSTAT_interdomain ? st.u.interdomain.port : 0;
    return 0;
}

static uint16_t xen_domid(void)
{
    return (uint16_t)domid;
}

/* L0's wallclock is for its system time 0, which is our clock's 0 too (we run on its pvclock). */
static uint64_t xen_wallclock_base(void)
{
    const volatile struct shared_info *s = xen_shared;
    uint32_t v, sec, nsec, hi;

    do {
        v = s->wc_version;
        barrier();
        sec = s->wc_sec;
        nsec = s->wc_nsec;
        hi = s->wc_sec_hi;
        barrier();
    } while ((v & 1) || v != s->wc_version);
    return (((uint64_t)hi << 32) | sec) * 1000000000ull + nsec;
}

/* XENMEM_decrease_reservation / populate_physmap on our own domain, order 0, in batches of at
 * most a page of gfns (what L0 handles without a continuation). */
#define L0_BATCH 512

static unsigned reservation_op(unsigned op, const uint64_t *gfns, unsigned n)
{
    unsigned done = 0;

    while (done < n) {
        unsigned k = MIN(n - done, L0_BATCH);
        struct xen_memory_reservation r = { .nr_extents = k, .extent_order = 0, .domid = DOMID_SELF };
        set_xen_guest_handle(r.extent_start, (xen_pfn_t *)(uintptr_t)(gfns + done));
        long rc = HYPERVISOR_memory_op(op, &r);
        if (rc > 0)
            done += (unsigned)MIN((unsigned long)rc, k);
        if (rc != (long)k)
            break;
    }
    return done;
}

static int xen_store_ring(uint64_t move_to, uint64_t *pfn, uint32_t *port)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = HVM_PARAM_STORE_PFN };
    long rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p);

    if (rc)
        return ERR((int)rc);
    *pfn = p.value;
    if (move_to && move_to != p.value) {
        /* the ring's frame goes to gfn move_to (the frame there goes back to L0) */
        struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_gmfn, .idx = p.value,
                                           .gpfn = move_to };
        if ((rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp)))
            return ERR((int)rc);
        *pfn = move_to;
        /* and L0's gfn gets a plain page in its place (the one move_to gave back): a live
         * migration sends what is there before the ring comes home at the suspend, and the
         * toolstack must find a page there at the other end */
        uint64_t gfn = p.value;
        if (reservation_op(XENMEM_populate_physmap, &gfn, 1) != 1)
            pr_warn("no page for the store ring's gfn %#lx: a live migration may lose the ring\n", p.value);
    }
    p.index = HVM_PARAM_STORE_EVTCHN;
    if ((rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p)))
        return ERR((int)rc);
    *port = (uint32_t)p.value;
    return 0;
}

/* The guest's query_size, passed through with count 1, as the stock shim does. */
static int xen_grant_query_size(struct gnttab_query_size *q)
{
    long rc = HYPERVISOR_grant_table_op(GNTTABOP_query_size, q, 1);

    return rc ? ERR((int)rc) : 0;
}

/* L0's grant-table frame idx at our gfn: the stock shim's way to hand the guest its frames. */
static int xen_grant_frame(unsigned idx, uint64_t gfn)
{
    struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_grant_table, .idx = idx,
                                       .gpfn = gfn };
    long rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp);

    return rc ? ERR((int)rc) : 0;
}

static unsigned xen_release_frames(const uint64_t *gfns, unsigned n)
{
    return reservation_op(XENMEM_decrease_reservation, gfns, n);
}

static unsigned xen_populate_frames(const uint64_t *gfns, unsigned n)
{
    return reservation_op(XENMEM_populate_physmap, gfns, n);
}

static void xen_report(void)
{
    xen_extraversion_t extra = { 0 };
    long ver = HYPERVISOR_xen_version(XENVER_version, NULL);

    HYPERVISOR_xen_version(XENVER_extraversion, extra);
    extra[sizeof(extra) - 1] = '\0';
    pr_info("L0: Xen %ld.%ld%s, domid %u, CPUID leaves at %#x, hypercalls by %s\n", ver >> 16, ver & 0xffff,
            extra, domid, xen_cpuid_base, xen_vmmcall ? "vmmcall" : "vmcall");
    pr_info("  shared_info at gfn %#lx, event upcall vector %#x\n", shared_gpfn, VEC_EVTCHN);
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
    l0_runstate_on[c->id] = false;
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
 * with its new port. The store ring and grant frames are the guest side's (pv/suspend.c). */
static int xen_resume(void)
{
    struct xen_add_to_physmap xatp = {
        .domid = DOMID_SELF, .space = XENMAPSPACE_shared_info, .idx = 0, .gpfn = shared_gpfn,
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

/* Before a suspend: the store ring's frame back at the gfn L0's HVM_PARAM_STORE_PFN names (the
 * toolstack saves, clears and reintroduces the ring there), from our gfn `from`; the page that
 * held its place there goes back to L0. */
static int xen_store_ring_home(uint64_t from)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = HVM_PARAM_STORE_PFN };
    long rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p);

    if (rc)
        return ERR((int)rc);
    if (p.value == from)
        return 0;
    struct xen_add_to_physmap xatp = { .domid = DOMID_SELF, .space = XENMAPSPACE_gmfn, .idx = from,
                                       .gpfn = p.value };
    rc = HYPERVISOR_memory_op(XENMEM_add_to_physmap, &xatp);
    return rc ? ERR((int)rc) : 0;
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
