/* insn.h: decodes and computes a guest kernel's store to its own page table (ptwr emulation). */
#ifndef PV_INSN_H
#define PV_INSN_H

#include "shim/lib.h"

/*
 * The shim takes a #PF on a write to a read-only, validated L1 page; before it can validate and
 * apply the new entry it must know which instruction wrote what. This is the pure part, the same
 * code in the shim and in host tests: no memory access but the instruction bytes it is given.
 *
 * Only 64-bit mode, and only stores the guest may use on a PTE: MOV (88, 89, C6 /0, C7 /0),
 * XCHG (86, 87), CMPXCHG (0F B0, 0F B1), CMPXCHG8B/16B (0F C7 /1), AND/OR/XOR to memory
 * (20/21, 08/09, 30/31, 80/81/83 /4 /1 /6), BTS/BTR/BTC (0F BA /5 /6 /7 imm8; 0F AB, B3, BB).
 * Prefixes: 66, 67, F0 (only where hardware allows LOCK), F2/F3 on one-byte opcodes only (there
 * they are ignored or HLE hints; on 0F opcodes they may select another instruction), 2E/36/3E/26
 * (ignored in 64-bit mode), 64/65 (add fs_base/gs_base), REX (only right before the opcode).
 */

/* The guest's registers. gpr[] in x86 encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15. */
struct insn_regs {
    uint64_t gpr[16];
    uint64_t rip, rflags, fs_base, gs_base;
};

/* The arithmetic flags in rflags: the only bits insn_execute changes. */
#define INSN_CF     (1u << 0)
#define INSN_PF     (1u << 2)
#define INSN_AF     (1u << 4)
#define INSN_ZF     (1u << 6)
#define INSN_SF     (1u << 7)
#define INSN_OF     (1u << 11)
#define INSN_ARITH  (INSN_CF | INSN_PF | INSN_AF | INSN_ZF | INSN_SF | INSN_OF)

enum insn_op {
    INSN_MOV, INSN_XCHG, INSN_CMPXCHG,
    INSN_CMPXCHG_DOUBLE,        /* CMPXCHG8B (size 8) or CMPXCHG16B (size 16) */
    INSN_AND, INSN_OR, INSN_XOR,
    INSN_BTS, INSN_BTR, INSN_BTC,
};

struct insn {
    unsigned len;               /* bytes, prefixes included: 1..15 */
    enum insn_op op;
    unsigned size;              /* bytes read and written at addr: 1, 2, 4, 8 or 16 */
    bool lock;                  /* LOCK prefix or implied (XCHG): apply with one atomic cmpxchg */
    uint64_t addr;              /* linear address written: segment base and bit offset applied */
    /* Private to insn.c: where insn_execute finds its source operand. */
    uint8_t src_reg;            /* gpr[] index of the register source */
    bool src_hi8;               /* the source is AH, CH, DH or BH (gpr[src_reg] bits 8..15) */
    bool src_imm;               /* the source is imm, not a register */
    uint8_t bit;                /* bit ops: the bit number within the size-byte operand */
    uint64_t imm;               /* the immediate, sign-extended to 64 bits */
};

/*
 * Decode the instruction at code[0, avail) as executed with registers r (r->rip is its address).
 * Returns 0 and fills *in (left undefined on error); -XEN_EFAULT if the instruction runs past avail (fetch more bytes and
 * retry); -XEN_EOPNOTSUPP for anything else: not one of the stores above, a register
 * destination, a prefix hardware would refuse (LOCK MOV) or that we do not know, longer than 15
 * bytes, a misaligned CMPXCHG16B. Never reads code[avail] or beyond, nor code[15].
 * addr is not checked for canonical form: the caller compares it with the fault address. With a
 * 67 prefix the effective address (bit offset included) wraps at 4 GiB before the base is added.
 */
int insn_decode(struct insn *in, const uint8_t *code, size_t avail, const struct insn_regs *r);

/*
 * Compute the instruction's effect, given the size bytes at addr as they are now (little endian:
 * old[0] holds bytes 0..7, old[1] bytes 8..15; bits past size are ignored). Fills new_[] with
 * what memory must become (bits past size zero; equal to old when a CMPXCHG fails: hardware
 * writes it back unchanged), and updates r as hardware would: rip past the instruction, the
 * register XCHG or a failed CMPXCHG loads, and rflags:
 *   CMPXCHG          CF PF AF ZF SF OF as for CMP accumulator, memory
 *   CMPXCHG8B/16B    ZF only
 *   AND/OR/XOR       CF=OF=0, PF ZF SF from the result, AF cleared (undefined in the manuals;
 *                    the Intel Xeon the unit tests were written on clears it)
 *   BTS/BTR/BTC      CF = the bit's old value; others kept (undefined in the manuals)
 *   MOV/XCHG         none
 * r must be the registers in was decoded with. Returns 0, or -XEN_EINVAL for an insn that
 * insn_decode did not produce.
 */
int insn_execute(const struct insn *in, struct insn_regs *r, const uint64_t old[2], uint64_t new_[2]);

#endif
