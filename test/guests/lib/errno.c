/* errno.c: names for Xen's error numbers, generated from xen/errno.h itself (its XEN_ERRNO hook). */
#include "lib.h"

static const char *const names[] = {
#define XEN_ERRNO(name, value) [value] = #name,
#include <xen/errno.h>
};

const char *errno_name(long rc)
{
	if (rc == 0)
		return "ok";
	if (rc < 0 && -rc < (long)ARRAY_SIZE(names) && names[-rc])
		return names[-rc];
	return "?";
}
