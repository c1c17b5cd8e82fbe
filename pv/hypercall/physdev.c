/*
 * physdev.c: __HYPERVISOR_physdev_op for a guest without devices. Handled: set_iopl (the
 * virtual IOPL: with 1 or more the kernel may cli/sti, emulated on the upcall mask) and
 * set_iobitmap (recorded; the guest has no ports we would let it reach, so port I/O still
 * faults). Everything about IRQs, PIRQs and PCI is refused: -EPERM for what needs a privileged
 * domain, -ENOSYS otherwise (Linux tolerates both for a domU).
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

long hc_physdev_op(struct cpu_regs *regs, uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    switch (cmd) {
    case PHYSDEVOP_set_iopl: {
        struct physdev_set_iopl s;
        if (copy_from_guest(&s, arg, sizeof(s)))
            return ERR(-XEN_EFAULT);
        if (s.iopl > 3)
            return ERR(-XEN_EINVAL);
        pv_current()->iopl = s.iopl;
        return 0;
    }
    case PHYSDEVOP_set_iobitmap: {
        struct physdev_set_iobitmap s;
        if (copy_from_guest(&s, arg, sizeof(s)))
            return ERR(-XEN_EFAULT);
        if (s.nr_ports > 65536)
            return ERR(-XEN_EINVAL);
        pv_current()->iobmp = (uint64_t)s.bitmap.p;
        pv_current()->iobmp_ports = s.nr_ports;
        return 0;
    }
    case PHYSDEVOP_manage_pci_add:
    case PHYSDEVOP_manage_pci_remove:
    case PHYSDEVOP_manage_pci_add_ext:
    case PHYSDEVOP_pci_device_add:
    case PHYSDEVOP_pci_device_remove:
    case PHYSDEVOP_map_pirq:
    case PHYSDEVOP_unmap_pirq:
    case PHYSDEVOP_alloc_irq_vector:
    case PHYSDEVOP_apic_read:
    case PHYSDEVOP_apic_write:
        return ERR(-XEN_EPERM);
    default:
        return ERR(-XEN_ENOSYS);
    }
}
