/* memmap.h: the parts of the memmap test (main.c: memory_op; startinfo.c; layout.c). */
#ifndef MEMMAP_H
#define MEMMAP_H

void check_start_info(void);
/* m2p_entries: how many m2p slots Xen maps (XENMEM_machphys_mapping), so reads stay inside. */
void check_layout(unsigned long m2p_entries);

#endif
