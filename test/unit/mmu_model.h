/* mmu_model.h: a hosted stand-in for the shim around pv/mm/pagetype.c: a few frames of memory, who
 * owns which, and a model of what the TLBs may still hold, for the unit tests and the fuzzer. */
#ifndef TEST_MMU_MODEL_H
#define TEST_MMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define MODEL_FRAMES  64
#define MODEL_SHIM    1                 /* frames [0, 4) are the shim's: never reachable */
#define MODEL_GUEST0  4                 /* frames [4, 60) are the guest's */
#define MODEL_GUEST_END 60
#define MODEL_SPECIAL 60                /* a shared page (shared_info-like), mappable, never a table */
#define MODEL_BEYOND  100               /* an mfn past the tracked range (I/O, as Xen sees it) */

extern uint64_t model_mem[MODEL_FRAMES][512];
extern unsigned model_flushes;

void model_reset(void);
/* Update the TLB model from the current tables; a violation (a frame possibly cached writable that
 * is now a table in use, or possibly cached as a table and now writable) returns its description. */
const char *model_tlb_check(void);
/* Full audit of pagetype.c's counts, with extra[mfn] references held by the caller (CR3s). */
const char *model_audit(const uint32_t *extra);

#endif
