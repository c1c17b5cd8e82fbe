/* acpi.h: just enough ACPI to find the CPUs (RSDP -> RSDT/XSDT -> MADT). */
#ifndef SHIM_ACPI_H
#define SHIM_ACPI_H

#include "shim/lib.h"

struct acpi_cpus {
    uint64_t rsdp;                      /* where it was found, 0 if not */
    unsigned nr;
    uint32_t apic_id[256];
    unsigned nr_disabled;               /* listed but not enabled (hot-pluggable) */
};

int acpi_find_cpus(uint64_t rsdp_hint, struct acpi_cpus *out);

#endif
