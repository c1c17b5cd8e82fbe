/* main.c: the boot sequence of the BSP, from head.S's 64-bit entry to the idle loop or self-test. */
#include "l0/l0.h"
#include "pv/domain/domain.h"
#include "pv/events/events.h"
#include "pv/loader/loader.h"
#include "pv/vcpu/vcpu.h"
#include "shim/acpi.h"
#include "shim/apic.h"
#include "shim/boot.h"
#include "shim/cmdline.h"
#include "shim/config.h"
#include "shim/console.h"
#include "shim/cpu.h"
#include "shim/debug.h"
#include "shim/flush.h"
#include "shim/mm.h"
#include "shim/paging.h"
#include "shim/panic.h"
#include "shim/sections.h"
#include "shim/selftest.h"
#include "shim/smp.h"
#include "shim/stats.h"
#include "shim/time.h"
#include "shim/timer.h"
#include "shim/x86.h"
#include "shim/xpti.h"
#include "shim/xstate.h"
#include "xen-abi.h"

static struct shim_opts opts;
static struct acpi_cpus acpi;
static int acpi_rc;

static void boot_report(void)
{
    char buf[64];

    pr_info("boot report:\n");
    l0->report();
    pr_info("  booted by %s; command line \"%s\"\n", boot_info.kind == BOOT_PVH ? "PVH" : "multiboot",
            boot_info.cmdline);
    pr_info("  memory map (%s), %u entries:\n", boot_info.mem_source, boot_info.nr_mem);
    for (unsigned i = 0; i < boot_info.nr_mem; i++)
        pr_info("    %016lx-%016lx %s\n", boot_info.mem[i].start, boot_info.mem[i].end,
                e820_type_name(boot_info.mem[i].type));
    for (unsigned i = 0; i < boot_info.nr_mods; i++)
        pr_info("  module %u: %#lx-%#lx \"%s\"\n", i, boot_info.mods[i].start, boot_info.mods[i].end,
                boot_info.mods[i].cmdline);
    pr_info("  image %#lx-%#lx (%lu KiB loaded, %lu KiB with bss), trampoline at %#lx\n",
            (uintptr_t)__image_start - IMAGE_VOFFSET, (uintptr_t)__image_end - IMAGE_VOFFSET,
            ((uintptr_t)__load_end - (uintptr_t)__image_start) / 1024,
            ((uintptr_t)__image_end - (uintptr_t)__image_start) / 1024, trampoline_pa);
    mm_report();
    pr_info("  CPUs: %u online of %u present (ACPI: %s%s), %s, vendor %s family %#x model %#x\n",
            nr_cpus_online, nr_cpus_present, acpi_rc ? "no MADT" : "MADT",
            acpi.nr_disabled ? ", some disabled" : "", apic_mode_name(), cpu_has.vendor, cpu_has.family,
            cpu_has.model);
    for (unsigned i = 0; i < MAX_CPUS; i++)
        if (cpus[i] && cpus[i]->online)
            pr_info("    CPU%u: APIC id %u, vCPU %u\n", i, cpus[i]->apic_id, cpus[i]->vcpu_id);
    char tmr[48] = "";
    if (!apic_tsc_deadline)
        snprintf_(tmr, sizeof(tmr), " at %lu kHz", apic_timer_khz);
    pr_info("  clock: %s, TSC %lu.%03lu MHz%s; timer: %s%s\n", l0->clock_name, tsc_hz / 1000000,
            tsc_hz / 1000 % 1000, cpu_has.invariant_tsc ? " (invariant)" : "", apic_timer_name(), tmr);
    console_list(buf, sizeof(buf));
    pr_info("  console: %s; loglvl %s, guest_loglvl %s; NX %s, global pages %s\n", buf,
            log_level_name(console_loglvl), log_level_name(console_guest_loglvl), cpu_has.nx ? "on" : "off",
            paging_global ? "on (the shim's own mappings and guest user ones)" : "off");
    pr_info("  TLB flushes of other CPUs: %s\n", flush_assisted ? "assisted by L0 (HVMOP_flush_tlbs)" :
            opts.assisted_flush == 0 ? "IPIs (assisted-flush=off)" : "IPIs (L0 offers no assisted flush)");
    pr_info("  TLB-flush clock: %s\n", flush_clock_on ? "on" : "off");
    pr_info("  CPUID faulting: %s\n", cpuid_faulting_on ? "on (the guest's CPUID in every ring gets the PV policy)" :
            cpu_has.cpuid_faulting ? "off (cpuid-faulting=off)" : "off (not offered by the CPU or L0)");
    if (xstate.offered)
        pr_info("  XSAVE for the guest: XCR0 up to %#lx (x87 SSE%s), %u-byte area\n", xstate.offered,
                xstate.offered & XSTATE_YMM ? " AVX" : "", xstate.max_size);
    else
        pr_info("  XSAVE for the guest: none (%s)\n", xstate.why_not);
    if (l0->stolen_ns)
        pr_info("  steal time from L0 in the guest's runstate: %s\n", l0_steal ? "on" : "off (l0-steal=on)");
}

static void bsp_main(void *unused)
{
    struct cpu *bsp = this_cpu();
    int rc;

    acpi_rc = acpi_find_cpus(boot_info.rsdp, &acpi);
    if ((rc = l0->init()))
        panic("L0 (%s) set-up failed: %d", l0->name, rc);
    time_init();
    if ((rc = apic_bsp_init()))
        panic("no usable local APIC: %d", rc);
    smp_init();
    apic_cpu_init();
    bsp->apic_id = apic_id();
    timer_cpu_init();
    if ((rc = l0->cpu_init(bsp)))
        panic("CPU0: L0 set-up failed: %d", rc);
    if ((rc = apic_timer_calibrate()))
        panic("cannot calibrate the LAPIC timer: %d", rc);
    bsp->online = true;
    nr_cpus_online = 1;
    flush_probe(opts.assisted_flush, opts.tlb_clock);
    sti();
    stats_init();

    if (acpi_rc)
        pr_warn("no ACPI MADT (%d): running on the boot CPU only\n", acpi_rc);
    else
        smp_boot_aps(acpi.apic_id, acpi.nr);
    boot_report();

    if (opts.selftest != SELFTEST_OFF)
        selftest_run(opts.selftest);
    if ((rc = pv_build(&boot_info))) {
        pr_err("FATAL: cannot build the guest: %s\n", pv_build_error());
        shim_shutdown(SHUTDOWN_crash);
    }
    pv_enter();
}

void start_shim(unsigned kind, uint32_t info_pa)
{
    int rc;

    cpu_features_init();
    cpu_early_init(&bsp_cpu);
    cpu_alloc(0, 0);
    l0_probe();
    boot_info_collect(kind, info_pa);
    cmdline_defaults(&opts);
    cmdline_parse(boot_info.cmdline, &opts);
    if (opts.loglvl >= 0)
        console_loglvl = opts.loglvl;
    if (opts.guest_loglvl >= 0)
        console_guest_loglvl = opts.guest_loglvl;
    l0->early_init(&boot_info);
    boot_sort_mem(&boot_info);
    console_select(opts.console, l0->default_console);

    pr_info("pvshim starting: %s boot, L0 %s\n", kind == BOOT_PVH ? "PVH" : "multiboot", l0->name);
    for (unsigned i = 0; i < boot_info.nr_notes; i++)
        pr_warn("boot: %s\n", boot_info.notes[i]);
    for (unsigned i = 0; i < opts.nr_notes; i++)
        pr_warn("command line: %s (ignored)\n", opts.notes[i]);
    if (boot_info.nr_mem == 0)
        panic("no memory map from the loader or L0");
    if ((rc = mm_init(&boot_info, &opts)))
        panic("cannot set up the frame pools: %d", rc);
    l0_steal = opts.l0_steal == 1;
    xstate_init(opts.xsave);
    cpu_cpuid_faulting_init(opts.cpuid_faulting);
    xpti_init(opts.xpti);
    /* global shim mappings would stay in the TLB under guest user mode: what xpti takes away */
    paging_global = opts.global_pages == 1 && !xpti_on;
    if (opts.global_pages == 1 && xpti_on)
        pr_warn("global-pages=on ignored: xpti is on\n");
    pv_test_drop_kicks = opts.test_drop_kicks;
    pv_fifo_offered = opts.evtchn_fifo != 0;
    if ((rc = paging_init()))
        panic("cannot build the page tables: %d", rc);
    if ((rc = cpu_alloc_tables(&bsp_cpu)) || (rc = xpti_cpu_init(&bsp_cpu)))
        panic("cannot allocate CPU0's stacks: %d", rc);
    cpu_load_tables(&bsp_cpu);
    call_on_stack(bsp_cpu.stack.top, bsp_main, NULL);
}
