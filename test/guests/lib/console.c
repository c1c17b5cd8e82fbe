/*
 * console.c: output through the xencons ring and through console_io.
 * The ring protocol (xen/io/console.h): we own out_prod, the backend owns out_cons; write the bytes,
 * then publish the new out_prod, then kick the event channel.
 */
#include "guest.h"
#include "events.h"

/* A page-aligned hole in .bss: update_va_mapping puts the ring's frame under it. */
static char ring_page[4096] __attribute__((aligned(4096)));
static volatile struct xencons_interface *ring;
static evtchn_port_t ring_port;

#define barrier() __asm__ volatile("" ::: "memory")

long console_ring_init(void)
{
	uint64_t pte;
	long rc;

	if (!start_info->console.domU.mfn)
		return -XEN_ENODEV;
	pte = ((uint64_t)start_info->console.domU.mfn << 12) | PTE_PRESENT | PTE_RW | PTE_USER |
	      PTE_ACCESSED | PTE_DIRTY;
	rc = hypercall_update_va_mapping((unsigned long)ring_page, pte, UVMF_INVLPG);
	if (rc)
		return rc;
	ring_port = start_info->console.domU.evtchn;
	ring = (volatile struct xencons_interface *)ring_page;
	return 0;
}

bool console_ring_ready(void)
{
	return ring != NULL;
}

static void ring_kick(void)
{
	struct evtchn_send send = { .port = ring_port };

	hypercall_event_channel_op(EVTCHNOP_send, &send);
}

/* Give up on a backend that has not drained a full ring after this many yields. */
#define RING_PATIENCE 1000000

static void ring_write(const char *s, size_t n)
{
	XENCONS_RING_IDX prod = ring->out_prod;
	unsigned long waited = 0;

	while (n) {
		XENCONS_RING_IDX cons = ring->out_cons;

		barrier();
		if (prod - cons >= sizeof(ring->out)) {	/* full: let the backend run */
			ring->out_prod = prod;
			ring_kick();
			hypercall_sched_op(SCHEDOP_yield, NULL);
			if (++waited == RING_PATIENCE) {
				ring = NULL;	/* nobody listens; console_io is all we have */
				console_io_write(s, n);
				return;
			}
			continue;
		}
		ring->out[MASK_XENCONS_IDX(prod, ring->out)] = *s++;
		prod++;
		n--;
	}
	barrier();	/* bytes before index: x86 keeps stores in order, the compiler must too */
	ring->out_prod = prod;
	ring_kick();
}

/*
 * A guest that powers off at once can lose its last lines: a console backend that ran out of its
 * notification allowance (xenconsoled takes 30 a domain per 200 ms, then waits for the next
 * period) reads the ring late, and a dead domain's ring is never read. The stock shim passes
 * each kick on to the L0's ring, so a test's burst of "ok:" lines goes over: 5 of 40
 * mmu-xsa286 runs on it lost lines and the RESULT (0 of 40 with this). So: let the backend drain our
 * ring, then give dom0 two periods before the shutdown.
 */
#define LINGER_NS 400000000ULL

void console_linger(void)
{
	unsigned long waited = 0;
	uint64_t until;

	if (!ring)
		return;
	ring_kick();
	while (ring->out_cons != ring->out_prod && ++waited < RING_PATIENCE)
		hypercall_sched_op(SCHEDOP_yield, NULL);
	ring_kick();
	if (!shared_info)	/* failed before start.c mapped it: no clock to linger by */
		return;
	until = pvclock_ns_shared() + LINGER_NS;
	while (pvclock_ns_shared() < until && ++waited < 2 * RING_PATIENCE)
		hypercall_sched_op(SCHEDOP_yield, NULL);
}

long console_io_write(const char *s, size_t n)
{
	return hypercall_console_io(CONSOLEIO_write, n, s);
}

void console_write(const char *s, size_t n)
{
	if (ring)
		ring_write(s, n);
	else
		console_io_write(s, n);
}
