/*
 * test_insn.c: the ptwr instruction decoder and emulator (pv/mm/insn.c) against the host assembler
 * and the host CPU. Every accepted form is written as assembly below, so its bytes are the
 * assembler's; the test decodes them and checks length, operation, size, LOCK and the address
 * (written out by hand per case), then runs each one several times both emulated and natively
 * (native.c) on the same registers and memory and compares memory, registers and flags.
 * Rejects (reads, register destinations, other stores, bad prefixes, too long, truncated) must
 * return an error without reading past the bytes they are given (ASan watches).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pv/mm/insn.h"
#include "native.h"
#include "shim/xerrno.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
enum { SEG_NONE, SEG_FS, SEG_GS };

#define CODE_HINT   0x40000000ull   /* code page: low, free, rip-relative targets mappable */
#define GS_TEST     0x100000ull     /* host gs base during the test */
#define VARIANTS    8

/* In an expected-address expression: a register, the next instruction's rip, the bases. */
#define R(n)        (r->gpr[n])
#define NEXT        (next)
#define FS          (r->fs_base)
#define GS          (r->gs_base)
/* Per-case extras: a register's value, and a register made relative to a segment base so that
 * base + reg lands in mappable memory whatever the host's fs base is. */
#define SET(reg, v) .set[reg] = { true, (uint64_t)(v) }
#define FIX(seg, reg) .fix_seg = (seg), .fix_reg = (reg)

/* X(id, assembly, op, size, lock, address, extras...) */
#define CASES(X) \
    X(mov8,        "mov %al,(%rbx)",                   MOV, 1, 0, R(RBX)) \
    X(mov8_ah,     "mov %ah,0x12(%rsi)",               MOV, 1, 0, R(RSI) + 0x12) \
    X(mov8_sil,    "mov %sil,-0x80(%rdi)",             MOV, 1, 0, R(RDI) - 0x80) \
    X(mov8_r15b,   "mov %r15b,0x7f(%r8)",              MOV, 1, 0, R(R8) + 0x7f) \
    X(mov16,       "mov %cx,0x1234(%rdx)",             MOV, 2, 0, R(RDX) + 0x1234) \
    X(mov32_sib,   "mov %edx,(%rcx,%rsi,4)",           MOV, 4, 0, R(RCX) + 4 * R(RSI)) \
    X(mov64_r13,   "mov %r9,-8(%r13)",                 MOV, 8, 0, R(R13) - 8) \
    X(mov64_r13_0, "mov %rax,(%r13)",                  MOV, 8, 0, R(R13)) \
    X(mov64_rbp,   "mov %rax,(%rbp)",                  MOV, 8, 0, R(RBP)) \
    X(mov64_rsp,   "mov %rax,8(%rsp)",                 MOV, 8, 0, R(RSP) + 8) \
    X(mov64_r12,   "mov %rax,(%r12)",                  MOV, 8, 0, R(R12)) \
    X(mov64_r12x,  "mov %rax,(%rbx,%r12,8)",           MOV, 8, 0, R(RBX) + 8 * R(R12)) \
    X(mov_rspb,    "mov %r10,0x40(%rsp,%rbp,2)",       MOV, 8, 0, R(RSP) + 2 * R(RBP) + 0x40) \
    X(mov_r13b,    "mov %r10d,0x40(%r13,%r13,1)",      MOV, 4, 0, 2 * R(R13) + 0x40) \
    X(mov_noidx,   ".byte 0x89,0x04,0x63",             MOV, 4, 0, R(RBX)) \
    X(mov_nobase,  "mov %rax,0x1000000(,%rcx,2)",      MOV, 8, 0, 2 * R(RCX) + 0x1000000) \
    X(mov_nobase13, "mov %rax,0x1000000(,%r13,8)",     MOV, 8, 0, 8 * R(R13) + 0x1000000) \
    X(mov_abs,     "mov %rcx,0x1234567",               MOV, 8, 0, 0x1234567) \
    X(mov_abs_rexb, ".byte 0x41,0x89,0x04,0x25; .long 0x1234560", MOV, 4, 0, 0x1234560) \
    X(mov_rip,     "mov %eax,0x10000(%rip)",           MOV, 4, 0, NEXT + 0x10000) \
    X(mov_rip_neg, "mov %rax,-0x10000(%rip)",          MOV, 8, 0, NEXT - 0x10000) \
    X(mov_rip_rexb, ".byte 0x41,0x89,0x05; .long 0x10000", MOV, 4, 0, NEXT + 0x10000) \
    X(movl_rip,    "movl $0x12345678,0x10000(%rip)",   MOV, 4, 0, NEXT + 0x10000) \
    X(movw_rip,    "movw $0x1234,0x10000(%rip)",       MOV, 2, 0, NEXT + 0x10000) \
    X(movb_rip,    "movb $0x5a,0x20000(%rip)",         MOV, 1, 0, NEXT + 0x20000) \
    X(mov_rip32,   "mov %eax,0x10000(%eip)",           MOV, 4, 0, (uint32_t)(NEXT + 0x10000)) \
    X(movb_imm,    "movb $0xa5,(%rbx)",                MOV, 1, 0, R(RBX)) \
    X(movw_imm,    "movw $0x8001,(%rbx)",              MOV, 2, 0, R(RBX)) \
    X(movl_imm,    "movl $0x80000001,(%rbx)",          MOV, 4, 0, R(RBX)) \
    X(movq_imm_neg, "movq $-2,(%rbx)",                 MOV, 8, 0, R(RBX)) \
    X(movq_imm,    "movq $0x7fffffff,0x8(%rbx)",       MOV, 8, 0, R(RBX) + 8) \
    X(movq_imm_sib, "movq $-0x80000000,0x12345(%rbx,%rcx,8)", MOV, 8, 0, R(RBX) + 8 * R(RCX) + 0x12345) \
    X(mov_a32,     "mov %eax,(%ebx)",                  MOV, 4, 0, (uint32_t)R(RBX), \
      SET(RBX, 0xdead000001234560)) \
    X(mov_a32_sib, "mov %eax,0x10(%ebx,%ecx,4)",       MOV, 4, 0, (uint32_t)(R(RBX) + 4 * R(RCX) + 0x10), \
      SET(RBX, 0x1111000001000000), SET(RCX, 0x8000000000100000)) \
    X(mov_a32_wrap, "mov %rax,0x10100(%ebx)",          MOV, 8, 0, 0x10000, SET(RBX, 0xffffff00)) \
    X(mov_rex_early, ".byte 0x48,0x66; mov %eax,(%rbx)", MOV, 2, 0, R(RBX)) \
    X(mov_66_rexw, ".byte 0x66; mov %rax,(%rbx)",      MOV, 8, 0, R(RBX)) \
    X(mov_rex_rex, ".byte 0x48; mov %al,(%rbx)",       MOV, 1, 0, R(RBX)) \
    X(mov_15,      ".fill 12,1,0x3e; mov %eax,0x10(%rbx)", MOV, 4, 0, R(RBX) + 0x10) \
    X(movq_15,     ".byte 0x36,0x26; movq $-2,%fs:0x12345678(%rbx,%rcx,8)", MOV, 8, 0, \
      FS + R(RBX) + 8 * R(RCX) + 0x12345678, FIX(SEG_FS, RBX)) \
    X(mov_cs,      ".byte 0x2e; mov %eax,(%rbx)",      MOV, 4, 0, R(RBX)) \
    X(mov_fs,      "mov %eax,%fs:8(%rbx)",             MOV, 4, 0, FS + R(RBX) + 8, FIX(SEG_FS, RBX)) \
    X(mov_gs,      "mov %rax,%gs:0x10(%rbx)",          MOV, 8, 0, GS + R(RBX) + 0x10, FIX(SEG_GS, RBX)) \
    X(mov_fs_ds,   ".byte 0x64,0x3e; mov %eax,(%rbx)", MOV, 4, 0, FS + R(RBX), FIX(SEG_FS, RBX)) \
    X(mov_gs_fs,   ".byte 0x65,0x64; mov %eax,(%rbx)", MOV, 4, 0, FS + R(RBX), FIX(SEG_FS, RBX)) \
    X(mov_fs_gs,   ".byte 0x64,0x65; mov %eax,(%rbx)", MOV, 4, 0, GS + R(RBX), FIX(SEG_GS, RBX)) \
    X(mov_gs_rip,  "mov %eax,%gs:0x10000(%rip)",       MOV, 4, 0, GS + NEXT + 0x10000) \
    X(mov_gs_a32,  "mov %eax,%gs:(%ebx)",              MOV, 4, 0, GS + (uint32_t)R(RBX), \
      SET(RBX, 0xffff000001000000)) \
    X(mov_f3,      ".byte 0xf3; mov %eax,(%rbx)",      MOV, 4, 0, R(RBX)) \
    X(mov_f2,      ".byte 0xf2; movb $1,(%rbx)",       MOV, 1, 0, R(RBX)) \
    X(xchg8,       "xchg %al,(%rbx)",                  XCHG, 1, 1, R(RBX)) \
    X(xchg8_bh,    "xchg %bh,(%rsi)",                  XCHG, 1, 1, R(RSI)) \
    X(xchg8_r12b,  "xchg %r12b,(%rsi)",                XCHG, 1, 1, R(RSI)) \
    X(xchg16,      "xchg %cx,(%rdi)",                  XCHG, 2, 1, R(RDI)) \
    X(xchg32,      "xchg %edx,(%rbx)",                 XCHG, 4, 1, R(RBX)) \
    X(xchg64,      "xchg %r10,(%rbx)",                 XCHG, 8, 1, R(RBX)) \
    X(xchg64_lock, "lock xchg %rax,(%rbx)",            XCHG, 8, 1, R(RBX)) \
    X(xchg_rsp,    "xchg %rsp,(%rbx)",                 XCHG, 8, 1, R(RBX)) \
    X(xchg_f2,     ".byte 0xf2; xchg %ecx,(%rbx)",     XCHG, 4, 1, R(RBX)) \
    X(cmpxchg8,    "lock cmpxchg %cl,(%rbx)",          CMPXCHG, 1, 1, R(RBX)) \
    X(cmpxchg8_bh, "cmpxchg %bh,(%rsi)",               CMPXCHG, 1, 0, R(RSI)) \
    X(cmpxchg16,   "lock cmpxchg %cx,(%rbx)",          CMPXCHG, 2, 1, R(RBX)) \
    X(cmpxchg32,   "lock cmpxchg %edx,(%rbx)",         CMPXCHG, 4, 1, R(RBX)) \
    X(cmpxchg64,   "lock cmpxchg %r11,(%rbx)",         CMPXCHG, 8, 1, R(RBX)) \
    X(cmpxchg_acc, "lock cmpxchg %rax,(%rbx)",         CMPXCHG, 8, 1, R(RBX)) \
    X(cmpxchg_rip, "lock cmpxchg %rdx,0x10000(%rip)",  CMPXCHG, 8, 1, NEXT + 0x10000) \
    X(cmpxchg8b,   "lock cmpxchg8b (%rsi)",            CMPXCHG_DOUBLE, 8, 1, R(RSI)) \
    X(cmpxchg8b_nl, "cmpxchg8b 8(%rdi)",               CMPXCHG_DOUBLE, 8, 0, R(RDI) + 8) \
    X(cmpxchg16b,  "lock cmpxchg16b (%rsi)",           CMPXCHG_DOUBLE, 16, 1, R(RSI), SET(RSI, 0x01234560)) \
    X(cmpxchg16b_gs, "lock cmpxchg16b %gs:0x20(%rdi)", CMPXCHG_DOUBLE, 16, 1, GS + R(RDI) + 0x20, \
      SET(RDI, 0x01234500), FIX(SEG_GS, RDI)) \
    X(andb_imm,    "lock andb $0xfd,(%rbx)",           AND, 1, 1, R(RBX)) \
    X(orb_imm,     "lock orb $0x2,(%rbx)",             OR, 1, 1, R(RBX)) \
    X(xorb_imm,    "xorb $0x80,(%rbx)",                XOR, 1, 0, R(RBX)) \
    X(andw_imm,    "lock andw $0x1234,(%rbx)",         AND, 2, 1, R(RBX)) \
    X(orl_imm,     "orl $0x80000000,(%rbx)",           OR, 4, 0, R(RBX)) \
    X(andq_imm8,   "lock andq $-2,(%rbx)",             AND, 8, 1, R(RBX)) \
    X(xorq_imm,    "xorq $0x7fffffff,(%rbx)",          XOR, 8, 0, R(RBX)) \
    X(orq_imm_neg, "orq $-0x80000000,(%rbx)",          OR, 8, 0, R(RBX)) \
    X(andl_imm8,   "andl $-2,(%rbx)",                  AND, 4, 0, R(RBX)) \
    X(xorw_imm8,   "xorw $-1,(%rbx)",                  XOR, 2, 0, R(RBX)) \
    X(orw_imm8,    "lock orw $0x7f,(%rbx)",            OR, 2, 1, R(RBX)) \
    X(and8_reg,    "lock and %al,(%rbx)",              AND, 1, 1, R(RBX)) \
    X(or8_ch,      "or %ch,(%rbx)",                    OR, 1, 0, R(RBX)) \
    X(xor8_r9b,    "xor %r9b,(%rbx)",                  XOR, 1, 0, R(RBX)) \
    X(and16,       "and %cx,(%rbx)",                   AND, 2, 0, R(RBX)) \
    X(or32,        "lock or %edx,(%rbx)",              OR, 4, 1, R(RBX)) \
    X(xor64,       "xor %rax,(%rbx)",                  XOR, 8, 0, R(RBX)) \
    X(and64,       "lock and %r14,(%rbx)",             AND, 8, 1, R(RBX)) \
    X(and_rip,     "lock andb $0xfd,0x10000(%rip)",    AND, 1, 1, NEXT + 0x10000) \
    X(xor_rip,     "xorw $0x1234,0x10000(%rip)",       XOR, 2, 0, NEXT + 0x10000) \
    X(btsq_imm,    "lock btsq $63,(%rbx)",             BTS, 8, 1, R(RBX)) \
    X(btrl_imm,    "btrl $3,(%rbx)",                   BTR, 4, 0, R(RBX)) \
    X(btcw_imm,    "btcw $15,(%rbx)",                  BTC, 2, 0, R(RBX)) \
    X(btsl_imm_big, "lock btsl $35,(%rbx)",            BTS, 4, 1, R(RBX)) \
    X(btsq_imm_big, "btsq $200,(%rbx)",                BTS, 8, 0, R(RBX)) \
    X(btr_rip,     "lock btrq $1,0x10000(%rip)",       BTR, 8, 1, NEXT + 0x10000) \
    X(bts_reg,     "lock bts %rax,(%rbx)",             BTS, 8, 1, R(RBX) + 120, SET(RAX, 1000)) \
    X(bts_reg_m1,  "lock bts %rax,(%rbx)",             BTS, 8, 1, R(RBX) - 8, SET(RAX, -1)) \
    X(btr_reg_m65, "lock btr %rcx,(%rbx)",             BTR, 8, 1, R(RBX) - 16, SET(RCX, -65)) \
    X(btr_reg32,   "btr %ecx,(%rdi)",                  BTR, 4, 0, R(RDI) - 8, SET(RCX, 0xabcdef00ffffffdf)) \
    X(btc_reg16,   "btc %dx,(%rsi)",                   BTC, 2, 0, R(RSI) - 4096, SET(RDX, 0x1234567800008000)) \
    X(btc_reg16_pos, "lock btc %dx,(%rsi)",            BTC, 2, 1, R(RSI) + 4094, SET(RDX, 0xffff7fff)) \
    X(bts_reg_big, "bts %r8,(%rbx)",                   BTS, 8, 0, R(RBX) + 0x100000, SET(R8, 0x800000)) \
    X(bts_self,    "bts %rbx,(%rbx)",                  BTS, 8, 0, R(RBX) + (R(RBX) >> 6) * 8) \
    X(bts_a32_wrap, "lock bts %ecx,(%ebx)",            BTS, 4, 1, 0x10100, SET(RBX, 0xffffff00), SET(RCX, 0x81000))

/* Y(id, assembly): must be refused with -XEN_EOPNOTSUPP. */
#define REJECTS(Y) \
    Y(rd_mov,       "mov (%rbx),%eax") \
    Y(rd_cmp,       "cmp %eax,(%rbx)") \
    Y(rd_test,      "testb $1,(%rbx)") \
    Y(rd_bt,        "bt %eax,(%rbx)") \
    Y(rd_bti,       "btl $3,(%rbx)") \
    Y(rd_push,      "push (%rbx)") \
    Y(rd_cmpi,      "cmpb $1,(%rbx)") \
    Y(reg_mov,      "mov %eax,%ebx") \
    Y(reg_and,      "and $1,%eax") \
    Y(reg_xchg,     ".byte 0x87,0xd8") \
    Y(reg_cmpxchg,  "cmpxchg %ecx,%edx") \
    Y(reg_bts,      "bts $1,%eax") \
    Y(reg_btsr,     "bts %ecx,%eax") \
    Y(reg_movi,     "movl $1,%eax") \
    Y(add_mem,      "add %eax,(%rbx)") \
    Y(addi_mem,     "addl $1,(%rbx)") \
    Y(subi_mem,     "subb $1,(%rbx)") \
    Y(adci_mem,     "adcq $1,(%rbx)") \
    Y(inc_mem,      "incl (%rbx)") \
    Y(not_mem,      "notq (%rbx)") \
    Y(pop_mem,      "popq (%rbx)") \
    Y(shl_mem,      "shlq $1,(%rbx)") \
    Y(setz_mem,     "setz (%rbx)") \
    Y(xadd_mem,     "lock xadd %eax,(%rbx)") \
    Y(movbe_mem,    "movbe %eax,(%rbx)") \
    Y(movnti_mem,   "movnti %eax,(%rbx)") \
    Y(movs,         "movsb") \
    Y(rep_stos,     "rep stosq") \
    Y(movups,       "movups %xmm0,(%rbx)") \
    Y(vex_movd,     "vmovd %xmm0,(%rbx)") \
    Y(vex_movdqu,   "vmovdqu %ymm0,(%rbx)") \
    Y(evex_movdqu,  "vmovdqu64 %zmm0,(%rbx)") \
    Y(rdrand,       "rdrand %eax") \
    Y(vmptrst,      "vmptrst (%rbx)") \
    Y(xabort,       "xabort $1") \
    Y(op82,         ".byte 0x82,0x0b,1") \
    Y(c6_ext1,      ".byte 0xc6,0x0b,1") \
    Y(c7_ext7,      ".byte 0xc7,0x3b,1,0,0,0") \
    Y(cx8_reg,      ".byte 0x0f,0xc7,0xc8") \
    Y(lock_mov,     ".byte 0xf0,0x89,0x03") \
    Y(lock_movi,    ".byte 0xf0,0xc7,0x03,1,0,0,0") \
    Y(lock_or_reg,  ".byte 0xf0,0x09,0xc3") \
    Y(rep_bts,      ".byte 0xf3,0x0f,0xab,0x03") \
    Y(rep_cmpxchg,  ".byte 0xf2,0x0f,0xb1,0x03") \
    Y(opsz_cx8,     ".byte 0x66,0x0f,0xc7,0x0b") \
    Y(rep_cx8,      ".byte 0xf3,0x0f,0xc7,0x0b") \
    Y(too_long,     ".fill 13,1,0x3e; mov %eax,0x10(%rbx)") \
    Y(only_prefix,  ".fill 15,1,0x66") \
    Y(only_rex,     ".fill 15,1,0x48")

/* Each snippet sits between two labels in .rodata: its bytes are exactly what the assembler made. */
#define ASM_SNIPPET(id, text, ...) \
    __asm__(".pushsection .rodata.insn_cases,\"a\"\n" \
            "insn_case_" #id "_b:\n\t" text "\n" "insn_case_" #id "_e:\n\t.popsection");
#define DECLARE(id, ...) extern const uint8_t insn_case_##id##_b[], insn_case_##id##_e[];
#define ADDR_FN(id, text, op, size, lock, addr, ...) \
    static uint64_t want_addr_##id(const struct insn_regs *r, uint64_t next) { (void)r, (void)next; return (addr); }
#define CASE_ENTRY(id_, text_, op_, size_, lock_, ad_, ...) \
    { .id = #id_, .text = text_, .b = insn_case_##id_##_b, .e = insn_case_##id_##_e, \
      .op = INSN_##op_, .size = size_, .lock = lock_, .addr = want_addr_##id_, __VA_ARGS__ },
#define REJECT_ENTRY(id_, text_) \
    { .id = #id_, .text = text_, .b = insn_case_##id_##_b, .e = insn_case_##id_##_e },

CASES(ASM_SNIPPET)
CASES(DECLARE)
CASES(ADDR_FN)
REJECTS(ASM_SNIPPET)
REJECTS(DECLARE)

struct tcase {
    const char *id, *text;
    const uint8_t *b, *e;
    enum insn_op op;
    unsigned size;
    bool lock;
    uint64_t (*addr)(const struct insn_regs *r, uint64_t next);
    struct { bool on; uint64_t val; } set[16];
    int fix_seg, fix_reg;
};

static const struct tcase cases[] = { CASES(CASE_ENTRY) };
static const struct tcase rejects[] = { REJECTS(REJECT_ENTRY) };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rand64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Decode from a heap copy of exactly avail bytes, so ASan sees any read past them. */
static int decode_n(struct insn *in, const uint8_t *code, size_t avail, const struct insn_regs *r)
{
    uint8_t *copy = malloc(avail ? avail : 1);
    memcpy(copy, code, avail);
    int rc = insn_decode(in, copy, avail, r);
    free(copy);
    return rc;
}

/* Distinct, 64-byte aligned values in low memory: sums of two stay mappable, no split locks. */
static void default_regs(struct insn_regs *r, const struct tcase *t, unsigned len)
{
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 16; i++)
        r->gpr[i] = 0x01000000ull + i * 0x00100000ull + i * 0x1040ull;
    for (int i = 0; i < 16; i++)
        if (t->set[i].on)
            r->gpr[i] = t->set[i].val;
    r->fs_base = native_fs_base();
    r->gs_base = native_gs_base();
    if (t->fix_seg)
        r->gpr[t->fix_reg] -= t->fix_seg == SEG_FS ? r->fs_base : r->gs_base;
    r->rip = native_rip(len);
    r->rflags = 0x202;
}

/* Random data in every register the address does not depend on (as the decoder sees it: a
 * register it wrongly ignores gets random data, and the native run then faults elsewhere). */
static void randomize_data_regs(struct insn_regs *r, const struct tcase *t, const struct insn *in0)
{
    unsigned len = (unsigned)(t->e - t->b);
    struct insn in;

    for (int i = 0; i < 16; i++) {
        struct insn_regs tr = *r;
        if (t->set[i].on || (t->fix_seg && t->fix_reg == i))
            continue;
        tr.gpr[i] = rand64();
        if (insn_decode(&in, t->b, len, &tr) == 0 && in.addr == in0->addr)
            *r = tr;
    }
    r->rflags = 0x202 | 0x400 /* DF: must survive */ | (rand64() & INSN_ARITH);
}

static uint64_t flags_compared(enum insn_op op)
{
    switch (op) {
    case INSN_AND: case INSN_OR: case INSN_XOR:
        return INSN_ARITH & ~INSN_AF;           /* AF undefined */
    case INSN_BTS: case INSN_BTR: case INSN_BTC:
        return INSN_CF;                         /* the rest undefined */
    default:
        return INSN_ARITH;
    }
}

/* What each operation may change in rflags (insn.h); the rest must come back as it was. */
static uint64_t flags_written(enum insn_op op)
{
    switch (op) {
    case INSN_MOV: case INSN_XCHG:
        return 0;
    case INSN_CMPXCHG_DOUBLE:
        return INSN_ZF;
    case INSN_BTS: case INSN_BTR: case INSN_BTC:
        return INSN_CF;
    default:
        return INSN_ARITH;
    }
}

/* Make a CMPXCHG's comparison succeed: memory := the accumulator. */
static void match_accumulator(uint8_t *mem, const struct insn *in, const struct insn_regs *r)
{
    uint64_t v[2] = { r->gpr[RAX], r->gpr[RDX] };

    if (in->op == INSN_CMPXCHG_DOUBLE && in->size == 8)
        v[0] = (r->gpr[RDX] << 32) | (uint32_t)r->gpr[RAX];
    if (in->op == INSN_CMPXCHG || in->op == INSN_CMPXCHG_DOUBLE)
        memcpy(mem, v, in->size);
}

/* One run, emulated and native, on the same registers and memory; reports and counts. */
static void compare_run(const struct tcase *t, const struct insn *in, struct insn_regs r, unsigned v)
{
    unsigned len = in->len;
    uint64_t lo = in->addr & ~4095ull, hi = (in->addr + in->size + 4095) & ~4095ull;
    uint8_t *page = (uint8_t *)(uintptr_t)lo, *mem = (uint8_t *)(uintptr_t)in->addr;
    size_t span = (size_t)(hi - lo);
    uint8_t *before = malloc(span);
    uint64_t old[2] = { 0, 0 }, new_[2], fault;
    struct insn_regs re = r, rn = r;
    bool ok = true;

    for (size_t i = 0; i < span; i += 8) {
        uint64_t x = rand64();
        memcpy(page + i, &x, 8);
    }
    if (v & 1)
        match_accumulator(mem, in, &r);
    memcpy(before, page, span);
    memcpy(old, mem, in->size);

    CHECK_EQ(insn_execute(in, &re, old, new_), 0);
    int sig = native_run(t->b, len, &rn, &fault);
    if (sig) {
        fprintf(stderr, "  %s (%s) v%u: native run stopped by signal %d at rip %#lx, address %#lx\n",
                t->id, t->text, v, sig, (unsigned long)rn.rip, (unsigned long)fault);
        CHECK(!sig);
        free(before);
        return;
    }
    for (int i = 0; i < 16; i++) {
        if (re.gpr[i] != rn.gpr[i]) {
            fprintf(stderr, "  %s (%s) v%u: gpr %d emulated %#lx native %#lx (was %#lx)\n", t->id,
                    t->text, v, i, (unsigned long)re.gpr[i], (unsigned long)rn.gpr[i],
                    (unsigned long)r.gpr[i]);
            ok = false;
        }
    }
    uint64_t fm = flags_compared(in->op);
    if ((re.rflags ^ rn.rflags) & fm) {
        fprintf(stderr, "  %s (%s) v%u: flags emulated %#lx native %#lx (was %#lx)\n", t->id,
                t->text, v, (unsigned long)re.rflags, (unsigned long)rn.rflags, (unsigned long)r.rflags);
        ok = false;
    }
    if ((re.rflags ^ r.rflags) & ~flags_written(in->op)) {
        fprintf(stderr, "  %s v%u: emulation changed flags it must keep\n", t->id, v);
        ok = false;
    }
    if (re.rip != r.rip + len || rn.rip != r.rip + len) {
        fprintf(stderr, "  %s v%u: rip emulated +%ld native +%ld\n", t->id, v,
                (long)(re.rip - r.rip), (long)(rn.rip - r.rip));
        ok = false;
    }
    /* Memory: the operand holds new_, nothing around it moved. */
    if (memcmp(mem, new_, in->size)) {
        uint64_t got[2] = { 0, 0 };
        memcpy(got, mem, in->size);
        fprintf(stderr, "  %s (%s) v%u: memory native %#lx:%#lx emulated %#lx:%#lx (was %#lx:%#lx)\n",
                t->id, t->text, v, (unsigned long)got[1], (unsigned long)got[0],
                (unsigned long)new_[1], (unsigned long)new_[0], (unsigned long)old[1],
                (unsigned long)old[0]);
        ok = false;
    }
    memcpy(page + (in->addr - lo), before + (in->addr - lo), in->size);
    if (memcmp(page, before, span)) {
        fprintf(stderr, "  %s v%u: native run wrote outside the operand\n", t->id, v);
        ok = false;
    }
    CHECK(ok);
    free(before);
}

static void test_case(const struct tcase *t)
{
    unsigned len = (unsigned)(t->e - t->b);
    uint8_t padded[32];
    struct insn_regs r;
    struct insn in, in2;

    default_regs(&r, t, len);
    uint64_t want = t->addr(&r, r.rip + len);
    int rc = decode_n(&in, t->b, len, &r);
    if (rc) {
        fprintf(stderr, "  %s (%s): decode %d\n", t->id, t->text, rc);
        CHECK_EQ(rc, 0);
        return;
    }
    CHECK(len <= 15);
    CHECK_EQ(in.len, len);
    CHECK_EQ(in.op, t->op);
    CHECK_EQ(in.size, t->size);
    CHECK_EQ(in.lock, t->lock);
    CHECK_EQ(in.addr, want);
    if (in.addr != want || in.len != len || in.size != t->size) {
        fprintf(stderr, "  %s (%s): address %#lx size %u, want %#lx size %u: not run\n", t->id,
                t->text, (unsigned long)in.addr, in.size, (unsigned long)want, t->size);
        return;
    }

    /* Every shorter prefix asks for more bytes; trailing bytes change nothing. */
    for (unsigned n = 0; n < len; n++)
        CHECK_EQ(decode_n(&in2, t->b, n, &r), -XEN_EFAULT);
    memset(padded, 0xcc, sizeof(padded));
    memcpy(padded, t->b, len);
    CHECK_EQ(decode_n(&in2, padded, sizeof(padded), &r), 0);
    CHECK(!memcmp(&in, &in2, sizeof(in)));

    if (native_map(want, t->size)) {
        fprintf(stderr, "  %s: cannot map %#lx for the native run\n", t->id, (unsigned long)want);
        CHECK(0);
        return;
    }
    for (unsigned v = 0; v < VARIANTS; v++) {
        struct insn_regs rv = r;
        if (v)
            randomize_data_regs(&rv, t, &in);
        compare_run(t, &in, rv, v);
    }
    native_unmap();
}

static void test_reject(const struct tcase *t)
{
    unsigned len = (unsigned)(t->e - t->b);
    struct insn_regs r;
    struct insn in;

    default_regs(&r, t, len);
    int rc = decode_n(&in, t->b, len, &r);
    if (rc != -XEN_EOPNOTSUPP)
        fprintf(stderr, "  reject %s (%s): decode %d\n", t->id, t->text, rc);
    CHECK_EQ(rc, -XEN_EOPNOTSUPP);
    for (unsigned n = 0; n < len; n++) {
        rc = decode_n(&in, t->b, n, &r);
        CHECK(rc == -XEN_EFAULT || rc == -XEN_EOPNOTSUPP);
    }
}

/* Every opcode in both maps with a memory ModRM and each /reg: exactly our list is accepted. */
static bool expect_accepted(unsigned opc, unsigned ext)
{
    switch (opc) {
    case 0x08: case 0x09: case 0x20: case 0x21: case 0x30: case 0x31:
    case 0x86: case 0x87: case 0x88: case 0x89:
    case 0x1b0: case 0x1b1: case 0x1ab: case 0x1b3: case 0x1bb:
        return true;
    case 0xc6: case 0xc7:
        return ext == 0;
    case 0x80: case 0x81: case 0x83:
        return ext == 1 || ext == 4 || ext == 6;
    case 0x1c7:
        return ext == 1;
    case 0x1ba:
        return ext >= 5;
    default:
        return false;
    }
}

static void test_opcode_sweep(void)
{
    static const uint8_t prefixes[] = { 0x0f, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67,
                                        0xf0, 0xf2, 0xf3 };
    struct insn_regs r = { .gpr = { [RBX] = 0x1000 } };
    unsigned wrong = 0;
    struct insn in;

    for (unsigned opc = 0; opc < 0x200; opc++) {
        if (opc < 0x100 && ((opc & 0xf0) == 0x40 || memchr(prefixes, (int)opc, sizeof(prefixes))))
            continue;
        for (unsigned ext = 0; ext < 8; ext++) {
            uint8_t code[16] = { 0 };
            unsigned n = 0;
            if (opc > 0xff)
                code[n++] = 0x0f;
            code[n++] = (uint8_t)opc;
            code[n++] = (uint8_t)(ext << 3 | RBX);      /* mod 0: (%rbx) */
            int rc = decode_n(&in, code, sizeof(code), &r);
            if ((rc == 0) != expect_accepted(opc, ext)) {
                fprintf(stderr, "  sweep: opcode %#x /%u: decode %d\n", opc, ext, rc);
                wrong++;
            }
            /* BTS/BTR/BTC reg: with %ebx (0x1000) as bit offset the dword moves by 0x200 */
            bool moved = (opc == 0x1ab || opc == 0x1b3 || opc == 0x1bb) && ext == RBX;
            if (rc == 0 && (in.addr != (moved ? 0x1200u : 0x1000u) || in.len > n + 4))
                wrong++;
        }
    }
    CHECK_EQ(wrong, 0);
}

static void test_edges(void)
{
    static const uint8_t cx16[] = { 0xf0, 0x48, 0x0f, 0xc7, 0x0e };    /* lock cmpxchg16b (%rsi) */
    static const uint8_t pfx15[15] = { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                       0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66 };
    struct insn_regs r = { .gpr = { [RSI] = 0x1008 } };
    uint64_t old[2] = { 0, 0 }, new_[2];
    struct insn in, bad;

    /* CMPXCHG16B needs 16-byte alignment (#GP otherwise). */
    CHECK_EQ(decode_n(&in, cx16, sizeof(cx16), &r), -XEN_EOPNOTSUPP);
    r.gpr[RSI] = 0x1010;
    CHECK_EQ(decode_n(&in, cx16, sizeof(cx16), &r), 0);
    CHECK_EQ(in.size, 16);

    /* Fifteen prefixes: too long, decided without touching code[15] even if avail says more. */
    uint8_t *p = malloc(15);
    memcpy(p, pfx15, 15);
    CHECK_EQ(insn_decode(&in, p, 1000, &r), -XEN_EOPNOTSUPP);
    free(p);

    /* execute refuses what decode cannot produce. */
    r.gpr[RBX] = 0x2000;
    CHECK_EQ(decode_n(&in, (const uint8_t[]){ 0x0f, 0xba, 0x2b, 0x05 }, 4, &r), 0);   /* bts $5 */
    bad = in, bad.size = 3;
    CHECK_EQ(insn_execute(&bad, &r, old, new_), -XEN_EINVAL);
    bad = in, bad.bit = 32;
    CHECK_EQ(insn_execute(&bad, &r, old, new_), -XEN_EINVAL);
    bad = in, bad.op = (enum insn_op)99;
    CHECK_EQ(insn_execute(&bad, &r, old, new_), -XEN_EINVAL);
    bad = in, bad.size = 16;
    CHECK_EQ(insn_execute(&bad, &r, old, new_), -XEN_EINVAL);
    /* and the good one works: bit 5 of zero, CF clear, rip moves */
    r.rflags = INSN_CF;
    CHECK_EQ(insn_execute(&in, &r, old, new_), 0);
    CHECK_EQ(new_[0], 0x20);
    CHECK_EQ(r.rflags & INSN_CF, 0);
    CHECK_EQ(r.rip, 4);
}

void test_insn(void)
{
    uint64_t gs = native_gs_base();

    for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++)
        test_reject(&rejects[i]);
    test_opcode_sweep();
    test_edges();
    if (native_init(CODE_HINT) || native_set_gs_base(GS_TEST)) {
        CHECK(0);
        return;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        test_case(&cases[i]);
    native_set_gs_base(gs);
}
