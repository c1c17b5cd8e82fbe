/* xen.h: state shared between the parts of the Xen L0 implementation. */
#ifndef HVM_LITE_XEN_H
#define HVM_LITE_XEN_H

#include "xen_hcall.h"

extern struct shared_info *xen_shared;
void xen_console_early(void);           /* console_io sink, and the ring through the identity map */
void xen_console_init(void);            /* the ring through ioremap */
void xen_console_resume(void);          /* a new domain: the ring (cleared by the restore), a new port */
void xen_console_report(void);

#endif
