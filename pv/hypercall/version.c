/* version.c: __HYPERVISOR_xen_version: what Xen ABI the shim offers a 64-bit PV domU. */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"


static long put(uint64_t arg, const void *v, size_t n)
{
    return copy_to_guest(arg, v, n) ? ERR(-XEN_EFAULT, "the result cannot be written back") : 0;
}

long hc_xen_version(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (cmd) {
    case XENVER_version:
        return SHIM_XEN_MAJOR << 16 | SHIM_XEN_MINOR;
    case XENVER_extraversion: {
        xen_extraversion_t v = ".0-pvshim";
        return put(arg, v, sizeof(v));
    }
    case XENVER_compile_info: {
        xen_compile_info_t ci;
        memset(&ci, 0, sizeof(ci));
        str_copy(ci.compiler, "gcc " __VERSION__, sizeof(ci.compiler));
        str_copy(ci.compile_by, "pvshim", sizeof(ci.compile_by));
        str_copy(ci.compile_domain, "", sizeof(ci.compile_domain));
        str_copy(ci.compile_date, __DATE__ " " __TIME__, sizeof(ci.compile_date));
        return put(arg, &ci, sizeof(ci));
    }
    case XENVER_capabilities: {
        static const char caps[] = "xen-3.0-x86_64 xen-3.0-x86_32p ";      /* compat/: 32-bit PAE too */
        return put(arg, caps, sizeof(caps));
    }
    case XENVER_changeset: {
        static const char cs[] = "pvshim";
        return put(arg, cs, sizeof(cs));
    }
    case XENVER_platform_parameters: {
        xen_platform_parameters_t pp = { .virt_start = HYPERVISOR_VIRT_START };
        return put(arg, &pp, sizeof(pp));
    }
    case XENVER_get_features: {
        xen_feature_info_t fi;
        if (copy_from_guest(&fi, arg, sizeof(fi)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&fi, arg, sizeof(fi))");
        if (fi.submap_idx != 0)
            return ERR(-XEN_EINVAL, "as Xen: one submap");
        /* as Xen for PV (Linux panics without gnttab_map_avail_bits); pae_pgdir_above_4gb only
         * once the guest asked for pae_extended_cr3 */
        fi.submap = pv_dom.features;
        if (pv_dom.vm_assist & (1ull << VMASST_TYPE_pae_extended_cr3))
            fi.submap |= 1u << XENFEAT_pae_pgdir_above_4gb;
        return put(arg, &fi, sizeof(fi));
    }
    case XENVER_pagesize:
        return 4096;
    case XENVER_guest_handle: {
        xen_domain_handle_t h = { 0 };
        return put(arg, h, sizeof(h));
    }
    case XENVER_commandline: {
        static const char none[] = "";
        return put(arg, none, sizeof(none));
    }
    default:
        return ERR(-XEN_ENOSYS);
    }
}
