/* console.c: console sinks on a Xen L0: CONSOLEIO_write, and the console ring (the host log,
 * and what an operator types into `xl console`: its in[]). */
#include "l0/evtchn.h"
#include "l0/l0.h"
#include "l0/xen/xen.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/x86.h"

static struct xencons_interface *ring;
static uint64_t ring_pa;
static uint32_t ring_port;
static uint64_t ring_dropped;

static void consoleio_write(const char *s, size_t n)
{
    HYPERVISOR_console_io(CONSOLEIO_write, n, s);
}

static void ring_notify(void)
{
    struct evtchn_send send = { .port = ring_port };

    HYPERVISOR_evtchn_op(EVTCHNOP_send, &send);
}

/* Room in out[]; when full, let dom0's xenconsoled run (we may share its only pCPU). */
static bool ring_wait_room(void)
{
    for (unsigned tries = 0; tries < 2000; tries++) {
        if (ring->out_prod - READ_ONCE(ring->out_cons) < sizeof(ring->out))
            return true;
        ring_notify();
        HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
    }
    return false;
}

static void ring_write(const char *s, size_t n)
{
    XENCONS_RING_IDX prod = ring->out_prod;

    for (size_t i = 0; i < n; i++) {
        if (prod - READ_ONCE(ring->out_cons) >= sizeof(ring->out)) {
            barrier();
            ring->out_prod = prod;
            if (!ring_wait_room()) {
                ring_dropped += n - i;  /* nobody drains the ring: drop rather than hang */
                break;
            }
        }
        ring->out[MASK_XENCONS_IDX(prod, ring->out)] = s[i];
        prod++;
    }
    barrier();                          /* x86: stores are not reordered with stores */
    ring->out_prod = prod;
    ring_notify();
}

static void ring_flush(void)
{
    /* before shutdown: give xenconsoled up to ~2 s to take what we wrote */
    for (unsigned tries = 0; tries < 4000 && READ_ONCE(ring->out_cons) != ring->out_prod; tries++) {
        ring_notify();
        HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
        for (unsigned i = 0; i < 20000; i++)    /* no clock needed: this also runs in early panics */
            cpu_relax();
    }
}

/* Typed input: xenconsoled fills in[] and fires the ring's port. Called under the reader's lock. */
static size_t ring_read(char *buf, size_t max)
{
    XENCONS_RING_IDX cons = ring->in_cons, prod = READ_ONCE(ring->in_prod);
    size_t n = 0;

    barrier();                          /* x86: the bytes are read after in_prod */
    if (prod - cons > sizeof(ring->in))
        cons = prod - sizeof(ring->in);
    while (cons != prod && n < max)
        buf[n++] = ring->in[MASK_XENCONS_IDX(cons++, ring->in)];
    barrier();
    ring->in_cons = cons;
    if (n)
        ring_notify();                  /* room again for xenconsoled */
    return n;
}

static void ring_event(uint32_t port, void *arg)
{
    (void)port, (void)arg;
    console_input_ready();
}

/* The port also fires when xenconsoled took output; the reader then finds nothing, cheaply. */
static bool input_started;

static void ring_input_start(void)
{
    input_started = true;
    if (ring_port && evtchn_register(ring_port, ring_event, NULL) == 0 && l0->evtchn_unmask)
        l0->evtchn_unmask(ring_port);
}

static struct console_sink sink_xen = { .name = "xen", .bit = CONS_XEN, .write = consoleio_write };
static struct console_sink sink_pv = {
    .name = "pv", .bit = CONS_PV, .write = ring_write, .flush = ring_flush,
    .read = ring_read, .input_start = ring_input_start,
};

static int get_param(uint32_t index, uint64_t *value)
{
    struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };
    long rc = HYPERVISOR_hvm_op(HVMOP_get_param, &p);

    *value = p.value;
    return (int)rc;
}

void xen_console_early(void)
{
    uint64_t pfn = 0, port = 0;

    /* like the stock shim: console_io from the first line, until console= says otherwise */
    console_register(&sink_xen, true, false);
    if (get_param(HVM_PARAM_CONSOLE_PFN, &pfn) || get_param(HVM_PARAM_CONSOLE_EVTCHN, &port) || !pfn)
        return;
    ring_pa = pfn << PAGE_SHIFT;
    ring_port = (uint32_t)port;
    if (ring_pa >= (4ull << 30))
        return;                         /* not reachable before our own page tables */
    ring = phys_to_virt(ring_pa);       /* identity-mapped now, kept so by paging_init */
    paging_keep_identity(ring_pa);
    console_register(&sink_pv, true, true);
}

void xen_console_init(void)
{
    if (!ring_pa)
        return;
    struct xencons_interface *r = ioremap(ring_pa, PAGE_SIZE, PTE_RW);
    if (!r) {
        pr_err("cannot map the L0 console ring\n");
        return;
    }
    bool was_there = ring != NULL;
    ring = r;
    if (!was_there)
        console_register(&sink_pv, true, true);
}

/* The ring stays at its gfn; the restore zeroed it (our indexes live in it) and the toolstack
 * gave it a new port. */
void xen_console_resume(void)
{
    uint64_t port = 0;

    if (!ring || get_param(HVM_PARAM_CONSOLE_EVTCHN, &port))
        return;
    ring_port = (uint32_t)port;
    if (input_started)
        ring_input_start();
}

void xen_console_report(void)
{
    if (ring_pa)
        pr_info("  console ring: pfn %#lx, event channel %u%s\n", ring_pa >> PAGE_SHIFT, ring_port,
                ring_dropped ? " (output was dropped)" : "");
    else
        pr_info("  console ring: none\n");
}
