/* xerrno.h: the shim's error codes are Xen's (negated), from the public xen/errno.h. */
#ifndef SHIM_XERRNO_H
#define SHIM_XERRNO_H

#include <xen/errno.h>

#endif
