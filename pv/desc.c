/*
 * desc.c: the guest's descriptor tables (set_gdt, update_descriptor, the LDT). Not there yet:
 * no frame can become a descriptor page, so set_gdt and update_descriptor stay refused.
 */
#include "domain.h"
#include "debug.h"
#include "pagetype.h"
#include "xerrno.h"

int pt_desc_validate(uint64_t mfn)
{
    (void)mfn;
    return ERR(-XEN_EINVAL);
}
