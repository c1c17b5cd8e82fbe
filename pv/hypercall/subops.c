/*
 * subops.c: the sub-ops of the four hypercalls that are families of operations (memory_op,
 * grant_table_op, event_channel_op, vcpu_op): each listed as HANDLED here, FORWARDED to L0 or
 * REFUSED with its errno and why. The family's handler has a case for each HANDLED or FORWARDED
 * one and hands everything else to hc_subop_refuse(), which answers from this table (a sub-op
 * not listed gets the family's answer to an unknown command, as Xen or the stock shim gives it).
 */
#include "pv/hypercall/hypercall.h"
#include "shim/debug.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

#define DO(op, kind)       [op] = { #op, kind, 0, NULL }
#define NO(op, err, why)   [op] = { #op, REFUSED, err, why }

static const struct hc_subop memory_op[] = {
    DO(XENMEM_increase_reservation, HANDLED),   /* frames with no pfn: the guest sets their m2p */
    DO(XENMEM_decrease_reservation, HANDLED),   /* the balloon: frames back to the pool, then L0 */
    DO(XENMEM_populate_physmap, HANDLED),
    DO(XENMEM_exchange, HANDLED),
    DO(XENMEM_maximum_ram_page, HANDLED),
    DO(XENMEM_current_reservation, HANDLED),
    DO(XENMEM_maximum_reservation, HANDLED),
    DO(XENMEM_maximum_gpfn, HANDLED),           /* shared_info's arch.max_pfn, less one */
    DO(XENMEM_machphys_mapping, HANDLED),
    DO(XENMEM_memory_map, HANDLED),             /* one RAM entry: the guest's pages */
    NO(XENMEM_machine_memory_map, -XEN_EPERM, "the host's map is the hardware domain's"),
};

static const struct hc_subop grant_table_op[] = {
    DO(GNTTABOP_setup_table, HANDLED),          /* L0's grant frames at the guest's pfns (ours standalone) */
    DO(GNTTABOP_query_size, FORWARDED),
    NO(GNTTABOP_map_grant_ref, -XEN_EOPNOTSUPP, "as the stock shim: a domU only grants"),
    NO(GNTTABOP_unmap_grant_ref, -XEN_EOPNOTSUPP, "as the stock shim: a domU only grants"),
    NO(GNTTABOP_dump_table, -XEN_EOPNOTSUPP, "as the stock shim"),
    NO(GNTTABOP_transfer, -XEN_EOPNOTSUPP, "as the stock shim: page transfer is gone"),
    NO(GNTTABOP_copy, -XEN_EOPNOTSUPP, "as the stock shim: the backend copies"),
    NO(GNTTABOP_unmap_and_replace, -XEN_EOPNOTSUPP, "as the stock shim"),
    DO(GNTTABOP_set_version, FORWARDED),       /* to L0, whose table it is (ours standalone) */
    DO(GNTTABOP_get_status_frames, HANDLED),    /* L0's status frames at the guest's pfns (ours standalone) */
    DO(GNTTABOP_get_version, HANDLED),
    NO(GNTTABOP_swap_grant_ref, -XEN_EOPNOTSUPP, "as the stock shim"),
    NO(GNTTABOP_cache_flush, -XEN_EOPNOTSUPP, "as the stock shim"),
};

static const struct hc_subop event_channel_op[] = {
    DO(EVTCHNOP_send, HANDLED),                 /* IPIs ours; interdomain and store ports to L0 */
    DO(EVTCHNOP_bind_virq, HANDLED),
    DO(EVTCHNOP_bind_ipi, HANDLED),
    DO(EVTCHNOP_alloc_unbound, FORWARDED),      /* an L0 port, seen by the guest under its own number;
                                                 * standalone a port of ours, for a loopback */
    DO(EVTCHNOP_bind_interdomain, FORWARDED),   /* standalone: only to ourselves (-ESRCH) */
    DO(EVTCHNOP_close, HANDLED),
    DO(EVTCHNOP_status, HANDLED),
    DO(EVTCHNOP_bind_vcpu, HANDLED),
    DO(EVTCHNOP_unmask, HANDLED),
    DO(EVTCHNOP_reset, HANDLED),
    NO(EVTCHNOP_bind_pirq, -XEN_EOPNOTSUPP, "a domU has no PIRQs"),
    DO(EVTCHNOP_init_control, HANDLED),         /* FIFO (events/ports.c); -EOPNOTSUPP with evtchn-fifo=off */
    DO(EVTCHNOP_expand_array, HANDLED),
    DO(EVTCHNOP_set_priority, HANDLED),
};

static const struct hc_subop vcpu_op[] = {
    DO(VCPUOP_initialise, HANDLED),
    DO(VCPUOP_up, HANDLED),
    DO(VCPUOP_down, HANDLED),
    DO(VCPUOP_is_up, HANDLED),
    DO(VCPUOP_get_runstate_info, HANDLED),
    DO(VCPUOP_register_runstate_memory_area, HANDLED),
    DO(VCPUOP_set_periodic_timer, HANDLED),
    DO(VCPUOP_stop_periodic_timer, HANDLED),
    DO(VCPUOP_set_singleshot_timer, HANDLED),
    DO(VCPUOP_stop_singleshot_timer, HANDLED),
    DO(VCPUOP_register_vcpu_info, HANDLED),
    DO(VCPUOP_send_nmi, HANDLED),
    DO(VCPUOP_register_vcpu_time_memory_area, HANDLED),
    NO(VCPUOP_get_physid, -XEN_EINVAL, "as Xen: only the hardware domain's pinned vCPUs have one"),
};

#define FAMILY(f, e, why) { #f, f, ARRAY_SIZE(f), e, why }
const struct hc_subops hc_subops_memory_op = FAMILY(memory_op, -XEN_ENOSYS, "unknown to a 64-bit PV domU");
const struct hc_subops hc_subops_grant_table_op = FAMILY(grant_table_op, -XEN_EOPNOTSUPP, "as the stock shim");
/* -EOPNOTSUPP, as the stock shim: an -ENOSYS would send Linux to event_channel_op_compat */
const struct hc_subops hc_subops_event_channel_op = FAMILY(event_channel_op, -XEN_EOPNOTSUPP, "as the stock shim");
const struct hc_subops hc_subops_vcpu_op = FAMILY(vcpu_op, -XEN_ENOSYS, "unknown to 64-bit PV");

long hc_subop_refuse(const struct hc_subops *t, uint64_t cmd)
{
    const struct hc_subop *op = cmd < t->nr ? &t->op[cmd] : NULL;

    if (!op || !op->name)
        return ERR(t->unlisted, t->unlisted_why);
    /* a HANDLED one here is a handler without its case: the table and the code disagree */
    ASSERT(op->kind == REFUSED);
    return ERR(op->err, op->why);
}

const struct hc_subop *hc_subop_find(const struct hc_subops *t, uint64_t cmd)
{
    return cmd < t->nr && t->op[cmd].name ? &t->op[cmd] : NULL;
}
