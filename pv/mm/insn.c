/* insn.c: decodes the few x86-64 stores a PV kernel makes to its page tables, and computes them. */
#include "pv/mm/insn.h"
#include "shim/debug.h"
#include "shim/xerrno.h"

#define MAX_LEN 15              /* longer is #GP in hardware */

/* Where the source operand comes from. */
enum src { SRC_REG, SRC_IMM8, SRC_IMMZ, SRC_NONE };

/* What an opcode (and its ModRM.reg extension) is, for the ones we emulate. */
struct form {
    enum insn_op op;
    enum src src;
    bool byte;                  /* 8-bit operand */
    bool lockable;              /* LOCK allowed (else #UD) */
    bool bit_reg;               /* BTx r/m, reg: the register also moves the address */
};

/* Fetches one byte at a time so no read goes past avail, nor past the architectural limit. */
struct cursor {
    const uint8_t *code;
    size_t avail;
    unsigned pos;
};

static int next(struct cursor *c)
{
    if (c->pos >= MAX_LEN)
        return ERR(-XEN_EOPNOTSUPP, "c->pos >= MAX_LEN");
    if (c->pos >= c->avail)
        return ERR(-XEN_EFAULT, "c->pos >= c->avail");
    return c->code[c->pos++];
}

/* A little-endian immediate or displacement of n bytes, sign-extended. */
static int next_signed(struct cursor *c, unsigned n, uint64_t *val)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        int b = next(c);
        if (b < 0)
            return b;
        v |= (uint64_t)b << (8 * i);
    }
    if (n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    *val = v;
    return 0;
}

/* opc: one-byte opcode, or 0x100 | byte for the 0F map; ext: ModRM.reg. false: not ours. */
static bool classify(unsigned opc, unsigned ext, struct form *f)
{
    static const enum insn_op grp1[8] = { [1] = INSN_OR, [4] = INSN_AND, [6] = INSN_XOR };
    static const enum insn_op grp8[8] = { [5] = INSN_BTS, [6] = INSN_BTR, [7] = INSN_BTC };

    *f = (struct form){ .src = SRC_REG, .lockable = true };
    switch (opc) {
    case 0x88: case 0x89:
        f->op = INSN_MOV, f->lockable = false;
        break;
    case 0xc6: case 0xc7:
        if (ext != 0)
            return false;
        f->op = INSN_MOV, f->lockable = false, f->src = opc == 0xc6 ? SRC_IMM8 : SRC_IMMZ;
        break;
    case 0x86: case 0x87:
        f->op = INSN_XCHG;
        break;
    case 0x08: case 0x09:
        f->op = INSN_OR;
        break;
    case 0x20: case 0x21:
        f->op = INSN_AND;
        break;
    case 0x30: case 0x31:
        f->op = INSN_XOR;
        break;
    case 0x80: case 0x81: case 0x83:    /* 82 is #UD in 64-bit mode */
        if (ext != 1 && ext != 4 && ext != 6)
            return false;               /* ADD ADC SBB SUB CMP: a guest does not build PTEs so */
        f->op = grp1[ext], f->src = opc == 0x81 ? SRC_IMMZ : SRC_IMM8;
        break;
    case 0x1b0: case 0x1b1:
        f->op = INSN_CMPXCHG;
        break;
    case 0x1c7:
        if (ext != 1)
            return false;
        f->op = INSN_CMPXCHG_DOUBLE, f->src = SRC_NONE;
        break;
    case 0x1ba:
        if (ext < 5)
            return false;               /* /4 is BT: a read */
        f->op = grp8[ext], f->src = SRC_IMM8;
        break;
    case 0x1ab:
        f->op = INSN_BTS, f->bit_reg = true;
        break;
    case 0x1b3:
        f->op = INSN_BTR, f->bit_reg = true;
        break;
    case 0x1bb:
        f->op = INSN_BTC, f->bit_reg = true;
        break;
    default:
        return false;
    }
    /* The even opcode of each pair is the byte form (C6/C7 and 80/81 too; 83 is not). */
    f->byte = (opc == 0x88 || opc == 0xc6 || opc == 0x86 || opc == 0x08 || opc == 0x20 ||
               opc == 0x30 || opc == 0x80 || opc == 0x1b0);
    return true;
}

static uint64_t sign_extend(uint64_t v, unsigned size)
{
    unsigned sh = 64 - 8 * size;
    return (uint64_t)((int64_t)(v << sh) >> sh);
}

int insn_decode(struct insn *in, const uint8_t *code, size_t avail, const struct insn_regs *r)
{
    struct cursor c = { code, avail, 0 };
    unsigned rex = 0, opc, modrm, mod, rm;
    bool opsz = false, adsz = false, lock = false, rep = false;
    uint64_t seg_base = 0, ea = 0, disp = 0;
    bool riprel = false;
    struct form f;
    int b;

    for (;;) {
        if ((b = next(&c)) < 0)
            return b;
        if ((b & 0xf0) == 0x40) {
            rex = b;
            continue;
        }
        switch (b) {
        case 0x66: opsz = true; break;
        case 0x67: adsz = true; break;
        case 0xf0: lock = true; break;
        case 0xf2: case 0xf3: rep = true; break;
        case 0x26: case 0x2e: case 0x36: case 0x3e: break;      /* no-ops in 64-bit mode */
        case 0x64: seg_base = r->fs_base; break;
        case 0x65: seg_base = r->gs_base; break;
        default: goto opcode;
        }
        rex = 0;        /* a REX that does not come right before the opcode is ignored */
    }
opcode:
    opc = b;
    if (b == 0x0f) {
        if ((b = next(&c)) < 0)
            return b;
        opc = 0x100 | b;
    }
    for (b = 0; b < 8 && !classify(opc, b, &f); b++)
        ;
    if (b == 8)
        return ERR(-XEN_EOPNOTSUPP, "decided before fetching a ModRM it may not have");
    if ((b = next(&c)) < 0)
        return b;
    modrm = b, mod = modrm >> 6, rm = modrm & 7;
    if (mod == 3 || !classify(opc, (modrm >> 3) & 7, &f))
        return ERR(-XEN_EOPNOTSUPP, "register destination, or not a store we emulate");
    if ((lock && !f.lockable) || (rep && opc > 0xff) || (opsz && opc == 0x1c7))
        return ERR(-XEN_EOPNOTSUPP, "#UD, or a mandatory prefix making another opcode");

    *in = (struct insn){ .op = f.op, .lock = lock || f.op == INSN_XCHG };
    in->size = f.byte ? 1 : (rex & 8) ? 8 : opsz ? 2 : 4;
    if (opc == 0x1c7)
        in->size *= 2;                  /* CMPXCHG8B: 8, with REX.W CMPXCHG16B: 16 */
    in->src_reg = ((modrm >> 3) & 7) | ((rex & 4) << 1);
    if (f.byte && !rex && in->src_reg >= 4) {
        in->src_reg -= 4;               /* without REX, 4..7 are AH CH DH BH */
        in->src_hi8 = true;
    }

    if (rm == 4) {                      /* SIB */
        if ((b = next(&c)) < 0)
            return b;
        unsigned index = ((b >> 3) & 7) | ((rex & 2) << 2), base = (b & 7) | ((rex & 1) << 3);
        if (index != 4)                 /* 4 is "none"; with REX.X, 12 is r12 */
            ea = r->gpr[index] << (b >> 6);
        if ((b & 7) != 5 || mod != 0)   /* base 5 with mod 0: no base, disp32 */
            ea += r->gpr[base];
        else
            mod = 2;
    } else if (rm == 5 && mod == 0) {
        riprel = true;
        mod = 2;
    } else {
        ea = r->gpr[rm | ((rex & 1) << 3)];
    }
    if (mod != 0 && (b = next_signed(&c, mod == 1 ? 1 : 4, &disp)) < 0)
        return b;
    ea += disp;

    b = 0;
    switch (f.src) {
    case SRC_REG:
    case SRC_NONE:
        break;
    case SRC_IMM8:
        b = next_signed(&c, 1, &in->imm);
        break;
    case SRC_IMMZ:
        b = next_signed(&c, in->size == 2 ? 2 : 4, &in->imm);
        break;
    }
    if (b < 0)
        return b;
    in->src_imm = f.src == SRC_IMM8 || f.src == SRC_IMMZ;
    in->len = c.pos;

    if (riprel)
        ea += r->rip + in->len;         /* relative to the next instruction */
    if (f.bit_reg) {
        /* The signed bit offset picks an operand-sized unit anywhere around the address. */
        unsigned shift = in->size == 2 ? 4 : in->size == 4 ? 5 : 6;
        int64_t off = (int64_t)sign_extend(r->gpr[in->src_reg], in->size);
        ea += (uint64_t)(off >> shift) * in->size;
        in->bit = (uint8_t)(off & (8 * in->size - 1));
    } else if (in->op >= INSN_BTS) {
        in->bit = (uint8_t)(in->imm & (8 * in->size - 1));
    }
    if (adsz)
        ea = (uint32_t)ea;
    in->addr = ea + seg_base;
    if (in->size == 16 && !IS_ALIGNED(in->addr, 16))
        return ERR(-XEN_EOPNOTSUPP, "#GP in hardware");
    return 0;
}

/* PF: set when the low byte of the result has an even number of ones. */
static uint64_t parity_flag(uint64_t v)
{
    v &= 0xff;
    v ^= v >> 4;
    v ^= v >> 2;
    v ^= v >> 1;
    return (v & 1) ? 0 : INSN_PF;
}

/* ZF SF PF of a size-byte result. */
static uint64_t result_flags(uint64_t res, unsigned size)
{
    return (res ? 0 : INSN_ZF) | ((res >> (8 * size - 1)) & 1 ? INSN_SF : 0) | parity_flag(res);
}

/* The flags of CMP a, b (a - b), operands already truncated to size bytes. */
static uint64_t cmp_flags(uint64_t a, uint64_t b, uint64_t mask, unsigned size)
{
    uint64_t res = (a - b) & mask;

    return result_flags(res, size) | (a < b ? INSN_CF : 0) | ((a ^ b ^ res) & INSN_AF) |
           (((a ^ b) & (a ^ res)) >> (8 * size - 1) & 1 ? INSN_OF : 0);
}

/* Write a size-byte value to a register as hardware does: 4 zero-extends, 1 and 2 merge. */
static void set_reg(struct insn_regs *r, unsigned reg, bool hi8, unsigned size, uint64_t v)
{
    uint64_t *g = &r->gpr[reg];

    if (hi8)
        *g = (*g & ~0xff00ull) | (v & 0xff) << 8;
    else if (size == 1)
        *g = (*g & ~0xffull) | (v & 0xff);
    else if (size == 2)
        *g = (*g & ~0xffffull) | (v & 0xffff);
    else if (size == 4)
        *g = (uint32_t)v;
    else
        *g = v;
}

int insn_execute(const struct insn *in, struct insn_regs *r, const uint64_t old[2], uint64_t new_[2])
{
    unsigned size = in->size;
    uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
    uint64_t cur = old[0] & mask, src, res, flags = 0, set = 0;

    if (size == 16 ? in->op != INSN_CMPXCHG_DOUBLE :
        size != 1 && size != 2 && size != 4 && size != 8)
        return ERR(-XEN_EINVAL);
    if (in->src_reg > 15 || in->bit >= 8 * size)
        return ERR(-XEN_EINVAL);
    if (in->src_imm)
        src = in->imm & mask;
    else
        src = (in->src_hi8 ? r->gpr[in->src_reg] >> 8 : r->gpr[in->src_reg]) & mask;
    new_[1] = 0;

    switch (in->op) {
    case INSN_MOV:
        res = src;
        break;
    case INSN_XCHG:
        res = src;
        set_reg(r, in->src_reg, in->src_hi8, size, cur);
        break;
    case INSN_CMPXCHG: {
        uint64_t acc = r->gpr[0] & mask;
        set = INSN_ARITH;
        flags = cmp_flags(acc, cur, mask, size);
        res = acc == cur ? src : cur;
        if (acc != cur)
            set_reg(r, 0, false, size, cur);
        break;
    }
    case INSN_CMPXCHG_DOUBLE:
        set = INSN_ZF;
        if (size == 8) {
            uint64_t acc = (r->gpr[2] << 32) | (uint32_t)r->gpr[0];
            res = acc == cur ? (r->gpr[1] << 32) | (uint32_t)r->gpr[3] : cur;
            if (acc == cur) {
                flags = INSN_ZF;
            } else {
                r->gpr[0] = (uint32_t)cur;
                r->gpr[2] = cur >> 32;
            }
        } else if (r->gpr[0] == old[0] && r->gpr[2] == old[1]) {
            flags = INSN_ZF;
            res = r->gpr[3];
            new_[1] = r->gpr[1];
        } else {
            res = old[0];
            new_[1] = old[1];
            r->gpr[0] = old[0];
            r->gpr[2] = old[1];
        }
        break;
    case INSN_AND:
    case INSN_OR:
    case INSN_XOR:
        res = in->op == INSN_AND ? cur & src : in->op == INSN_OR ? cur | src : cur ^ src;
        set = INSN_ARITH;
        flags = result_flags(res, size);
        break;
    case INSN_BTS:
    case INSN_BTR:
    case INSN_BTC: {
        uint64_t bit = 1ull << in->bit;
        res = in->op == INSN_BTS ? cur | bit : in->op == INSN_BTR ? cur & ~bit : cur ^ bit;
        set = INSN_CF;
        flags = cur & bit ? INSN_CF : 0;
        break;
    }
    default:
        return ERR(-XEN_EINVAL);
    }
    new_[0] = res & mask;
    r->rflags = (r->rflags & ~set) | flags;
    r->rip += in->len;
    return 0;
}
