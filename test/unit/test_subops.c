/* test_subops.c: pv/hypercall/subops.c, the sub-op table of memory_op, grant_table_op,
 * event_channel_op and vcpu_op: every entry is well formed (a refusal has an errno and a reason,
 * a handled one has neither), and a refusal answers what Xen or the stock shim answers (the
 * errnos the guests see, which the handlers gave from their own code before the table). */
#include "harness.h"
#include "pv/hypercall/hypercall.h"
#include "shim/xerrno.h"
#include "xen-abi.h"

static void well_formed(const struct hc_subops *t)
{
    CHECK(t->family && t->nr > 0 && t->unlisted < 0 && t->unlisted_why);
    for (unsigned i = 0; i < t->nr; i++) {
        const struct hc_subop *op = &t->op[i];
        if (!op->name)
            continue;
        CHECK(hc_subop_find(t, i) == op);
        if (op->kind == REFUSED)
            CHECK(op->err < 0 && op->why && op->why[0]);
        else
            CHECK(op->kind == HANDLED || op->kind == FORWARDED ? op->err == 0 : false);
    }
    CHECK(hc_subop_find(t, t->nr) == NULL);
    CHECK(hc_subop_find(t, ~0ull) == NULL);
    CHECK_EQ(hc_subop_refuse(t, t->nr + 100), t->unlisted);
}

void test_subops(void)
{
    well_formed(&hc_subops_memory_op);
    well_formed(&hc_subops_grant_table_op);
    well_formed(&hc_subops_event_channel_op);
    well_formed(&hc_subops_vcpu_op);

    CHECK_EQ(hc_subop_refuse(&hc_subops_memory_op, XENMEM_machine_memory_map), -XEN_EPERM);
    CHECK_EQ(hc_subop_refuse(&hc_subops_memory_op, XENMEM_add_to_physmap), -XEN_ENOSYS);
    CHECK(hc_subop_find(&hc_subops_memory_op, XENMEM_populate_physmap)->kind == HANDLED);
    CHECK_EQ(hc_subop_refuse(&hc_subops_grant_table_op, GNTTABOP_map_grant_ref), -XEN_EOPNOTSUPP);
    CHECK_EQ(hc_subop_refuse(&hc_subops_grant_table_op, 99), -XEN_EOPNOTSUPP);
    CHECK(hc_subop_find(&hc_subops_grant_table_op, GNTTABOP_query_size)->kind == FORWARDED);
    /* -EOPNOTSUPP, never -ENOSYS: Linux would retry through event_channel_op_compat */
    CHECK_EQ(hc_subop_refuse(&hc_subops_event_channel_op, EVTCHNOP_bind_pirq), -XEN_EOPNOTSUPP);
    CHECK(hc_subop_find(&hc_subops_event_channel_op, EVTCHNOP_init_control)->kind == HANDLED);
    CHECK_EQ(hc_subop_refuse(&hc_subops_event_channel_op, 14), -XEN_EOPNOTSUPP);
    CHECK(hc_subop_find(&hc_subops_event_channel_op, EVTCHNOP_bind_interdomain)->kind == FORWARDED);
    CHECK_EQ(hc_subop_refuse(&hc_subops_vcpu_op, VCPUOP_get_physid), -XEN_EINVAL);
    CHECK_EQ(hc_subop_refuse(&hc_subops_vcpu_op, 14), -XEN_ENOSYS);
}
