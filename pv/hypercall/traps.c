/* traps.c: __HYPERVISOR_set_trap_table: the guest's exception handlers (its virtual IDT), per vCPU. */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

long hc_set_trap_table(struct cpu_regs *regs, uint64_t arg, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5)
{
    struct pv_trap *traps = pv_current()->traps;
    struct trap_info t;

    if (!arg) {
        memset(traps, 0, 256 * sizeof(*traps));
        return 0;
    }
    for (unsigned i = 0; i <= 256; i++, arg += sizeof(t)) {
        if (copy_from_guest(&t, arg, sizeof(t)))
            return ERR(-XEN_EFAULT, "copy_from_guest(&t, arg, sizeof(t))");
        if (!t.address)
            return 0;
        if (!pv_guest_va(t.address))
            return ERR(-XEN_EINVAL, "!pv_guest_va(t.address)");
        /* as Xen: any selector, RPL raised to the guest kernel's (3); bounce() checks it can be
         * loaded (Linux gives its own __KERNEL_CS, from the GDT it loads with set_gdt) */
        uint16_t cs = (t.cs & 3) ? t.cs : t.cs | 3;
        traps[t.vector] = (struct pv_trap){ t.address, cs, t.flags };
    }
    return ERR(-XEN_E2BIG);                  /* no terminating entry within 256 */
}
