/* hc_console.c: __HYPERVISOR_console_io: the guest's CONSOLEIO_write goes to the shim's console. */
#include "domain.h"
#include "hypercall.h"
#include "xerrno.h"

void pv_console_output(const char *s, size_t n);  /* console.c */

#define MAX_WRITE (64u << 10)           /* bytes per call we are willing to copy */

long hc_console_io(uint64_t cmd, uint64_t count, uint64_t buf, uint64_t a4, uint64_t a5)
{
    char chunk[128];

    switch (cmd) {
    case CONSOLEIO_write:
        count = MIN(count, (uint64_t)MAX_WRITE);
        for (uint64_t done = 0; done < count;) {
            size_t n = (size_t)MIN(count - done, sizeof(chunk));
            if (copy_from_guest(chunk, buf + done, n))
                return -XEN_EFAULT;
            pv_console_output(chunk, n);
            done += n;
        }
        return 0;
    case CONSOLEIO_read:
        return 0;                       /* no input for the guest yet */
    default:
        return -XEN_ENOSYS;
    }
}
