/*
 * console_io.c: __HYPERVISOR_console_io from the guest. Xen lets a domU use it only in a
 * verbose-debug build (XSM's console_io check: CONSOLEIO_write then, nothing else); a release
 * build, the stock shim's, refuses every command with -EPERM. So do we by default: a guest that
 * writes both its console ring and console_io (XTF, other test kernels) then shows each line
 * once, from its ring, and the shim's own log stays its own. guest_loglvl=all makes us the debug
 * build: CONSOLEIO_write is taken and its text goes to the shim's log with the guest's ring output.
 */
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/console.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define MAX_WRITE (64u << 10)           /* bytes per call we are willing to copy */

long hc_console_io(struct cpu_regs *regs, uint64_t cmd, uint64_t count, uint64_t buf, uint64_t a4,
                   uint64_t a5)
{
    char chunk[128];

    if (cmd != CONSOLEIO_write || console_guest_loglvl < LOG_DEBUG)
        return ERR(-XEN_EPERM, "a domU's console_io, refused as by a release Xen (guest_loglvl=all allows writes)");
    count = MIN(count, (uint64_t)MAX_WRITE);
    for (uint64_t done = 0; done < count;) {
        size_t n = (size_t)MIN(count - done, sizeof(chunk));
        if (copy_from_guest(chunk, buf + done, n))
            return ERR(-XEN_EFAULT, "the text cannot be read");
        pv_console_output(chunk, n);
        done += n;
    }
    return 0;
}
