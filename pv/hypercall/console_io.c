/* console_io.c: __HYPERVISOR_console_io: the guest's CONSOLEIO_write goes to the shim's console. */
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "shim/debug.h"
#include "shim/xerrno.h"


#define MAX_WRITE (64u << 10)           /* bytes per call we are willing to copy */

long hc_console_io(struct cpu_regs *regs, uint64_t cmd, uint64_t count, uint64_t buf, uint64_t a4,
                   uint64_t a5)
{
    char chunk[128];

    switch (cmd) {
    case CONSOLEIO_write:
        count = MIN(count, (uint64_t)MAX_WRITE);
        for (uint64_t done = 0; done < count;) {
            size_t n = (size_t)MIN(count - done, sizeof(chunk));
            if (copy_from_guest(chunk, buf + done, n))
                return ERR(-XEN_EFAULT, "copy_from_guest(chunk, buf + done, n)");
            pv_console_output(chunk, n);
            done += n;
        }
        return 0;
    case CONSOLEIO_read:
        return 0;                       /* no input for the guest yet */
    default:
        return ERR(-XEN_ENOSYS);
    }
}
