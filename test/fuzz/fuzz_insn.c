/*
 * fuzz_insn.c: libFuzzer target for the ptwr instruction decoder and emulator (pv/mm/insn.c), the
 * code a guest reaches with any bytes it likes at a faulting rip. Input: a byte n, then n (at
 * most 16) instruction bytes, then register material (see regs_from) and memory contents.
 *
 * Decode sees an exact-size heap copy of the n bytes, so ASan catches any read past them. What it
 * accepts must keep insn.h's promises (length, size, every shorter prefix asks for more bytes,
 * execute succeeds and touches only what it may). And where the decoded operand lands in memory
 * we can map, the instruction also runs natively on the host CPU (test/unit/native.c) on the same
 * registers and memory: memory, registers and flags must match, or we abort with the details.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/mm/insn.h"
#include "native.h"
#include "shim/xerrno.h"

#define CODE_HINT   0x400000000000ull   /* the code page, in ASan's high application memory */
#define GS_FUZZ     0x200000000000ull   /* the host gs base: gs-relative operands stay mappable */
#define REG_BYTES   9                   /* per register: a shape byte and 8 value bytes */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool native_ok;
static unsigned long decoded, compared;        /* how much of the run reached each check */

static void report(void)
{
    fprintf(stderr, "fuzz_insn: %lu instructions accepted, %lu compared with the host CPU\n",
            decoded, compared);
}

/* Reads past the end of the input give zeros. */
static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && *p < end; i++, (*p)++)
        v |= (uint64_t)**p << (8 * i);
    return v;
}

/* Shapes steer registers towards addresses we can map, and bit offsets and indexes that stay
 * near them; raw values still reach every corner of the decoder. */
static uint64_t shaped(unsigned shape, uint64_t v)
{
    switch (shape & 3) {
    case 0: return v;
    case 1: return (uint64_t)(int64_t)(int16_t)v;
    case 2: return 0x10000000ull + (v & 0x0fffffffull);
    default: return 0x300000000000ull + (v & 0xffffffffffull);
    }
}

static void regs_from(struct insn_regs *r, const uint8_t **p, const uint8_t *end)
{
    for (int i = 0; i < 16; i++) {
        unsigned shape = (unsigned)take(p, end, 1);
        r->gpr[i] = shaped(shape, take(p, end, 8));
    }
    r->rflags = 0x202 | (take(p, end, 8) & INSN_ARITH);
    r->fs_base = native_fs_base();
    r->gs_base = GS_FUZZ;
}

static void __attribute__((noreturn)) fail(const char *what, const uint8_t *code, const struct insn *in)
{
    fprintf(stderr, "fuzz_insn: %s:", what);
    for (unsigned i = 0; i < (in ? in->len : 0); i++)
        fprintf(stderr, " %02x", code[i]);
    if (in)
        fprintf(stderr, " (op %d size %u lock %d addr %#lx)", in->op, in->size, in->lock,
                (unsigned long)in->addr);
    fprintf(stderr, "\n");
    abort();
}

static uint64_t flags_written(enum insn_op op)
{
    switch (op) {
    case INSN_MOV: case INSN_XCHG: return 0;
    case INSN_CMPXCHG_DOUBLE: return INSN_ZF;
    case INSN_BTS: case INSN_BTR: case INSN_BTC: return INSN_CF;
    default: return INSN_ARITH;
    }
}

/* Registers an operation may write: XCHG its source, CMPXCHG rax, CMPXCHG8B/16B rax and rdx. */
static bool may_write(const struct insn *in, int reg)
{
    switch (in->op) {
    case INSN_XCHG: return reg == in->src_reg;
    case INSN_CMPXCHG: return reg == 0;
    case INSN_CMPXCHG_DOUBLE: return reg == 0 || reg == 2;
    default: return false;
    }
}

/* Run natively where safe and compare with the emulation. */
static void compare_native(const uint8_t *code, const struct insn *in, const struct insn_regs *r,
                           uint64_t seed, bool match)
{
    uint64_t lo = in->addr & ~4095ull, span = ((in->addr + in->size + 4095) & ~4095ull) - lo;
    uint64_t old[2] = { 0, 0 }, new_[2], fault;
    static uint8_t before[2 * 4096];
    struct insn_regs re = *r, rn = *r;

    /* A LOCKed access across a cache line is a bus lock: the kernel traps and warns on each. */
    if (in->lock && (in->addr & 63) + in->size > 64)
        return;
    if (native_map(in->addr, in->size))
        return;                         /* not user space, or something lives there */
    compared++;
    uint8_t *page = (uint8_t *)(uintptr_t)lo, *mem = (uint8_t *)(uintptr_t)in->addr;
    for (uint64_t i = 0; i < span; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        page[i] = (uint8_t)(seed >> 56);
    }
    if (match) {                        /* let a CMPXCHG succeed */
        uint64_t acc[2] = { r->gpr[0], r->gpr[2] };
        if (in->op == INSN_CMPXCHG_DOUBLE && in->size == 8)
            acc[0] = (r->gpr[2] << 32) | (uint32_t)r->gpr[0];
        memcpy(mem, acc, in->size);
    }
    memcpy(before, page, span);
    memcpy(old, mem, in->size);
    if (insn_execute(in, &re, old, new_))
        fail("execute failed", code, in);
    int sig = native_run(code, in->len, &rn, &fault);
    if (sig) {
        fprintf(stderr, "native: signal %d at rip %#lx (code at %#lx), address %#lx\n", sig,
                (unsigned long)rn.rip, (unsigned long)r->rip, (unsigned long)fault);
        fail("native run did not complete", code, in);
    }
    for (int i = 0; i < 16; i++)
        if (re.gpr[i] != rn.gpr[i]) {
            fprintf(stderr, "gpr %d: was %#lx emulated %#lx native %#lx\n", i,
                    (unsigned long)r->gpr[i], (unsigned long)re.gpr[i], (unsigned long)rn.gpr[i]);
            fail("register mismatch", code, in);
        }
    uint64_t fm = in->op >= INSN_BTS ? INSN_CF :
                  in->op >= INSN_AND ? INSN_ARITH & ~INSN_AF : INSN_ARITH;
    if ((re.rflags ^ rn.rflags) & fm) {
        fprintf(stderr, "flags: was %#lx emulated %#lx native %#lx\n", (unsigned long)r->rflags,
                (unsigned long)re.rflags, (unsigned long)rn.rflags);
        fail("flags mismatch", code, in);
    }
    if (memcmp(mem, new_, in->size)) {
        uint64_t got[2] = { 0, 0 };
        memcpy(got, mem, in->size);
        fprintf(stderr, "memory: was %#lx:%#lx emulated %#lx:%#lx native %#lx:%#lx\n",
                (unsigned long)old[1], (unsigned long)old[0], (unsigned long)new_[1],
                (unsigned long)new_[0], (unsigned long)got[1], (unsigned long)got[0]);
        fail("memory mismatch", code, in);
    }
    memcpy(mem, before + (in->addr - lo), in->size);
    if (memcmp(page, before, span))
        fail("native run wrote outside the operand", code, in);
    native_unmap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    unsigned n = size ? data[0] % 17 : 0;
    struct insn in, again;
    struct insn_regs r;
    uint64_t old[2], new_[2];

    if (!native_ok) {
        if (native_init(CODE_HINT) || native_set_gs_base(GS_FUZZ))
            abort();
        native_ok = true;
        atexit(report);
    }
    p++;
    if (n > (size_t)(end - p))
        n = (unsigned)(end - p);
    uint8_t *code = malloc(n ? n : 1);
    memcpy(code, p, n);
    p += n;
    regs_from(&r, &p, end);
    bool match = take(&p, end, 1) & 1;
    uint64_t seed = take(&p, end, 8);
    old[0] = seed, old[1] = ~seed;
    r.rip = native_rip(n ? n : 1);

    int rc = insn_decode(&in, code, n, &r);
    if (rc) {
        if (rc != -XEN_EFAULT && rc != -XEN_EOPNOTSUPP)
            fail("unexpected error", code, NULL);
        if (rc == -XEN_EFAULT && n >= 15)
            fail("asked for more than 15 bytes", code, NULL);
        free(code);
        return 0;
    }

    /* The promises of insn.h. */
    decoded++;
    if (in.len < 1 || in.len > 15 || in.len > n)
        fail("bad length", code, &in);
    if (in.size != 1 && in.size != 2 && in.size != 4 && in.size != 8 && in.size != 16)
        fail("bad size", code, &in);
    if (in.size == 16 && (in.op != INSN_CMPXCHG_DOUBLE || in.addr & 15))
        fail("bad 16-byte operand", code, &in);
    if ((unsigned)in.op > INSN_BTC)
        fail("bad op", code, &in);
    for (unsigned m = 0; m < in.len; m++)
        if (insn_decode(&again, code, m, &r) != -XEN_EFAULT)
            fail("a shorter prefix did not ask for more bytes", code, &in);
    if (insn_decode(&again, code, in.len, &r) || memcmp(&in, &again, sizeof(in)))
        fail("decode depends on bytes past the instruction", code, &in);

    struct insn_regs re = r;
    if (insn_execute(&in, &re, old, new_))
        fail("execute refused a decoded instruction", code, &in);
    if (re.rip != r.rip + in.len || (re.rflags ^ r.rflags) & ~flags_written(in.op))
        fail("execute: rip or flags it must keep", code, &in);
    for (int i = 0; i < 16; i++)
        if (re.gpr[i] != r.gpr[i] && !may_write(&in, i))
            fail("execute: wrote a register it must not", code, &in);
    if (in.size < 8 && new_[0] >> (8 * in.size))
        fail("execute: bits past size", code, &in);
    if (in.size < 16 && new_[1])
        fail("execute: second word for a small operand", code, &in);

    /* The native run puts the code at native_rip(len): rip-relative operands move with it (and
     * a CMPXCHG16B may then be misaligned: no native run for it). */
    r.rip = native_rip(in.len);
    if (insn_decode(&in, code, in.len, &r) == 0)
        compare_native(code, &in, &r, seed, match);
    free(code);
    return 0;
}

/* The shim's debug.h hooks, for the hosted build. */
void assert_failed(const char *expr, const char *file, int line);
void trace_error(int err, const char *why, const char *file, int line);

void assert_failed(const char *expr, const char *file, int line)
{
    fprintf(stderr, "ASSERT %s failed at %s:%d\n", expr, file, line);
    abort();
}

void trace_error(int err, const char *why, const char *file, int line)
{
    (void)err, (void)why, (void)file, (void)line;
}
