/* l0.c: decides at boot, from CPUID alone, which L0 runs us, and selects its operations table;
 * binds L0 ports for the rest of the shim. */
#include "l0/evtchn.h"
#include "l0/l0.h"
#include "shim/cpu.h"
#include "shim/x86.h"

const struct l0_ops *l0 = &l0_none;     /* until probed: panics still reach a debug-exit port */
uint32_t xen_cpuid_base;
bool l0_steal;

static bool is_xen_leaf(uint32_t base)
{
    uint32_t a, b, c, d;
    char sig[13];

    cpuid(base, &a, &b, &c, &d);
    memcpy(sig + 0, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    return !strcmp(sig, "XenVMMXenVMM") && a >= base + 2;
}

void l0_probe(void)
{
    if (cpu_has.hypervisor) {
        /* Xen may sit at 0x40000100 and up when it also offers Viridian at 0x40000000 */
        for (uint32_t base = 0x40000000; base < 0x40010000; base += 0x100) {
            if (is_xen_leaf(base)) {
                xen_cpuid_base = base;
                l0 = &l0_xen;
                return;
            }
        }
    }
    l0 = &l0_none;
}

int l0_port_bind(uint32_t port, l0_port_handler_t h, void *arg)
{
    int rc = evtchn_register(port, h, arg);

    if (rc == 0 && l0->evtchn_unmask)
        (void)l0->evtchn_unmask(port);  /* a port L0 just gave us: it can only fail if L0 is broken */
    return rc;
}

void l0_port_unbind(uint32_t port)
{
    evtchn_unregister(port);
}
