/* native.h: runs one instruction on the host CPU with chosen registers, to check the emulator. */
#ifndef TEST_NATIVE_H
#define TEST_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "pv/mm/insn.h"

/*
 * The instruction is copied to the end of an executable page followed by an inaccessible one:
 * it ends when the CPU fetches the next instruction and faults there, and the fault handler
 * records every register. So the length the CPU decoded shows in the final rip, and a fault
 * anywhere else (a wrong address, a #UD) is reported, not fatal.
 */

/* Reserve the code pages (near hint if free). 0, or -1 with a message on stderr. */
int native_init(uint64_t hint);
/* The rip an instruction of len bytes runs at. */
uint64_t native_rip(unsigned len);
/* The process's own fs and gs bases (what a 64/65 prefix adds on the host). */
uint64_t native_fs_base(void);
uint64_t native_gs_base(void);
/* Set the host gs base (glibc and the sanitizers do not use gs on x86-64). */
int native_set_gs_base(uint64_t base);

/* Map fresh zeroed read-write pages over [addr, addr + len) where nothing is mapped yet.
 * 0, or -1 (not user space, or something is there). One mapping at a time. */
int native_map(uint64_t addr, size_t len);
void native_unmap(void);

/*
 * Run code[0, len) with r's 16 GPRs and arithmetic flags (rip, fs_base, gs_base are ignored:
 * see native_rip and the base functions). On return r holds the GPRs, rflags and rip at the
 * stop. Returns 0 if the instruction completed (stopped at native_rip(len) + len), else the
 * signal that stopped it; *fault_addr is the faulting address either way.
 */
int native_run(const uint8_t *code, unsigned len, struct insn_regs *r, uint64_t *fault_addr);

#endif
