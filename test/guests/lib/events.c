/* events.c: event callback dispatch, port bitmaps, the pvclock and small wrappers (see events.h). */
#include "guest.h"
#include "events.h"

#define WORD_BITS (sizeof(xen_ulong_t) * 8)

volatile uint32_t events_seen[EVENTS_PORTS];
volatile unsigned long events_upcalls;
volatile unsigned long events_upcalls_on[EVENTS_VCPUS];
volatile unsigned long events_sel_at_entry;
struct vcpu_info *events_vcpu;
static volatile uint8_t port_owner[EVENTS_PORTS];      /* the vCPU a port is bound to */

extern char events_entry[], events_entry1[];
void events_dispatch(unsigned vcpu);

unsigned long events_callback(unsigned vcpu)
{
	return vcpu ? (unsigned long)events_entry1 : (unsigned long)events_entry;
}

struct vcpu_info *events_vcpu_info(unsigned vcpu)
{
	return vcpu ? &shared_info->vcpu_info[vcpu] : events_vcpu;
}

void events_dispatch(unsigned vcpu)
{
	struct vcpu_info *vi = events_vcpu_info(vcpu);

	__atomic_fetch_add(&events_upcalls, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&events_upcalls_on[vcpu], 1, __ATOMIC_SEQ_CST);
	events_sel_at_entry = __atomic_load_n(&vi->evtchn_pending_sel, __ATOMIC_SEQ_CST);
	while (__atomic_exchange_n(&vi->evtchn_upcall_pending, 0, __ATOMIC_SEQ_CST)) {
		xen_ulong_t sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);

		while (sel) {
			unsigned w = (unsigned)__builtin_ctzl(sel);

			sel &= sel - 1;
			xen_ulong_t pend = shared_info->evtchn_pending[w] & ~shared_info->evtchn_mask[w];
			while (pend) {
				unsigned b = (unsigned)__builtin_ctzl(pend);

				pend &= pend - 1;
				if (port_owner[w * WORD_BITS + b] != vcpu)
					continue;       /* its owner's upcall takes it */
				__atomic_fetch_and(&shared_info->evtchn_pending[w], ~(1ul << b), __ATOMIC_SEQ_CST);
				events_seen[w * WORD_BITS + b]++;
			}
		}
	}
}

long events_init(void)
{
	struct callback_register cb = { .type = CALLBACKTYPE_event };

#ifdef __i386__
	cb.address.cs = FLAT_KERNEL_CS;		/* a 32-bit guest's callbacks are cs:eip */
	cb.address.eip = (unsigned long)events_entry;
#else
	cb.address = (unsigned long)events_entry;
#endif

	events_vcpu = &shared_info->vcpu_info[0];
	return HC(__HYPERVISOR_callback_op, CALLBACKOP_register, &cb, 0);
}

evtchn_port_t events_init_timer(void)
{
	evtchn_port_t port;
	long rc = events_init();

	if (rc)
		test_fail("events_init: %ld %s", rc, errno_name(rc));
	rc = evtchn_bind_virq(VIRQ_TIMER, 0, &port);
	if (rc)
		test_fail("bind VIRQ_TIMER: %ld %s", rc, errno_name(rc));
	return port;
}

void events_enable_on(unsigned vcpu)
{
	struct vcpu_info *vi = events_vcpu_info(vcpu);

	__atomic_store_n(&vi->evtchn_upcall_mask, 0, __ATOMIC_SEQ_CST);
	/* as Linux's xen_irq_enable: anything that came in while masked needs a trip to Xen */
	if (__atomic_load_n(&vi->evtchn_upcall_pending, __ATOMIC_SEQ_CST))
		hypercall_xen_version(XENVER_version, NULL);
}

void events_enable(void)
{
	events_enable_on(0);
}

void events_disable_on(unsigned vcpu)
{
	__atomic_store_n(&events_vcpu_info(vcpu)->evtchn_upcall_mask, 1, __ATOMIC_SEQ_CST);
}

void events_disable(void)
{
	events_disable_on(0);
}

bool port_pending(unsigned port)
{
	return (__atomic_load_n(&shared_info->evtchn_pending[port / WORD_BITS], __ATOMIC_SEQ_CST) >>
		(port % WORD_BITS)) & 1;
}

bool port_masked(unsigned port)
{
	return (__atomic_load_n(&shared_info->evtchn_mask[port / WORD_BITS], __ATOMIC_SEQ_CST) >>
		(port % WORD_BITS)) & 1;
}

void port_mask(unsigned port)
{
	__atomic_fetch_or(&shared_info->evtchn_mask[port / WORD_BITS], 1ul << (port % WORD_BITS),
			  __ATOMIC_SEQ_CST);
}

/* A port bound to vcpu: its callback takes it from now on (until the number is reused). */
static void own(long rc, evtchn_port_t port, unsigned vcpu)
{
	if (rc == 0 && port < EVENTS_PORTS)
		port_owner[port] = vcpu < EVENTS_VCPUS ? (uint8_t)vcpu : 0;
}

long evtchn_bind_ipi(unsigned vcpu, evtchn_port_t *port)
{
	struct evtchn_bind_ipi b = { .vcpu = vcpu };
	long rc = hypercall_event_channel_op(EVTCHNOP_bind_ipi, &b);

	own(rc, b.port, vcpu);
	*port = b.port;
	return rc;
}

long evtchn_bind_virq(unsigned virq, unsigned vcpu, evtchn_port_t *port)
{
	struct evtchn_bind_virq b = { .virq = virq, .vcpu = vcpu };
	long rc = hypercall_event_channel_op(EVTCHNOP_bind_virq, &b);

	own(rc, b.port, vcpu);
	*port = b.port;
	return rc;
}

long evtchn_send(evtchn_port_t port)
{
	struct evtchn_send s = { .port = port };

	return hypercall_event_channel_op(EVTCHNOP_send, &s);
}

long evtchn_unmask(evtchn_port_t port)
{
	struct evtchn_unmask u = { .port = port };

	return hypercall_event_channel_op(EVTCHNOP_unmask, &u);
}

long evtchn_close(evtchn_port_t port)
{
	struct evtchn_close c = { .port = port };

	return hypercall_event_channel_op(EVTCHNOP_close, &c);
}

long evtchn_status(evtchn_port_t port, struct evtchn_status *st)
{
	memset(st, 0, sizeof(*st));
	st->dom = DOMID_SELF;
	st->port = port;
	return hypercall_event_channel_op(EVTCHNOP_status, st);
}

long vcpu_op(int cmd, unsigned vcpu, void *arg)
{
	return HC(__HYPERVISOR_vcpu_op, cmd, vcpu, arg);
}

/* A 32-bit guest passes the 64-bit deadline in two registers, low half first (Xen 4.17
 * xen/common/sched/compat.c, compat_set_timer_op(uint32_t lo, int32_t hi)). */
long set_timer_op(uint64_t deadline)
{
#ifdef __i386__
	return HC(__HYPERVISOR_set_timer_op, (uint32_t)deadline, (uint32_t)(deadline >> 32), 0);
#else
	return HC(__HYPERVISOR_set_timer_op, deadline, 0, 0);
#endif
}

long sched_block(void)
{
	return hypercall_sched_op(SCHEDOP_block, NULL);
}

static uint64_t pvclock_of(const struct vcpu_info *vi)
{
	const volatile struct vcpu_time_info *t = &vi->time;
	uint32_t v;
	uint64_t ns;

	do {
		v = t->version;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		uint32_t lo, hi;
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		uint64_t delta = (((uint64_t)hi << 32) | lo) - t->tsc_timestamp;
		if (t->tsc_shift < 0)
			delta >>= -t->tsc_shift;
		else
			delta <<= t->tsc_shift;
		/* (delta * mul) >> 32 in 64-bit pieces: the 32-bit build has no __int128 */
		ns = t->system_time + (delta >> 32) * t->tsc_to_system_mul +
		     (((delta & 0xffffffffu) * t->tsc_to_system_mul) >> 32);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} while ((v & 1) || v != t->version);
	return ns;
}

uint64_t pvclock_ns_shared(void)
{
	return pvclock_of(&shared_info->vcpu_info[0]);
}

uint64_t pvclock_ns(void)
{
	return pvclock_of(events_vcpu);
}

uint64_t pvclock_ns_on(unsigned vcpu)
{
	return pvclock_of(events_vcpu_info(vcpu));
}
