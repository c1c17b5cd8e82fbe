/*
 * traps.c: exceptions raised by the guest. A few privileged instructions are emulated (reading
 * CR3); the rest are bounced to the handler the guest registered with set_trap_table, on the
 * frame 64-bit PV kernels expect: [rcx, r11, (error code), rip, cs, rflags, rsp, ss], lowest first.
 * An exception the guest has no handler for, or whose frame cannot be written, crashes it.
 */
#include "domain.h"
#include "config.h"
#include "console.h"
#include "debug.h"
#include "x86.h"

#define RFLAGS_TF (1ul << 8)
#define RFLAGS_NT (1ul << 14)
#define RFLAGS_RF (1ul << 16)
#define TI_MASK_EVENTS 4

static const char *const names[32] = {
    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#09", "#TS", "#NP", "#SS", "#GP", "#PF",
    "#15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

static bool has_error_code(uint64_t v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21;
}

static uint64_t *gpr(struct cpu_regs *r, unsigned n)
{
    uint64_t *const regs[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                                 &r->r8,  &r->r9,  &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };
    return regs[n & 15];
}

/* mov %crN, %reg (0f 20 /r, optional REX): CR0, CR2, CR3 and CR4 reads, as Xen answers them. */
static bool emulate_privileged(struct cpu_regs *r)
{
    uint8_t b[4];
    unsigned len = 0, rex = 0;

    if (copy_from_guest(b, r->rip, sizeof(b)))
        return false;
    if ((b[0] & 0xf0) == 0x40) {
        rex = b[0];
        len = 1;
    }
    if (b[len] != 0x0f || b[len + 1] != 0x20 || (b[len + 2] & 0xc0) != 0xc0)
        return false;
    unsigned cr = ((b[len + 2] >> 3) & 7) | ((rex & 4) ? 8 : 0), reg = (b[len + 2] & 7) | ((rex & 1) ? 8 : 0);
    uint64_t v;
    switch (cr) {
    case 0: v = read_cr0(); break;
    case 2: v = pv_current()->vi->arch.cr2; break;     /* the one we last gave it */
    case 3: v = pv_dom.cr3; break;
    case 4: v = read_cr4(); break;
    default: return false;
    }
    *gpr(r, reg) = v;
    r->rip += len + 3;
    pv_dom.nr_emulated++;
    return true;
}

void pv_bounce(struct cpu_regs *r, uint64_t addr, bool mask_events, int64_t error_code)
{
    struct vcpu_info *vi = pv_current()->vi;
    uint64_t frame[8], n = 0;
    uint8_t mask = vi->evtchn_upcall_mask;

    frame[n++] = r->rcx;
    frame[n++] = r->r11;
    if (error_code >= 0)
        frame[n++] = (uint64_t)error_code;
    frame[n++] = r->rip;
    frame[n++] = (r->cs & 0xfffc) | ((uint64_t)mask << 32);     /* from kernel mode: RPL 0, as Xen */
    frame[n++] = (r->rflags & ~RFLAGS_IF) | (mask ? 0 : RFLAGS_IF);
    frame[n++] = r->rsp;
    frame[n++] = r->ss;
    uint64_t sp = (r->rsp & ~0xful) - n * 8;
    if (copy_to_guest(sp, frame, n * 8))
        pv_crash(r, "%s at %#lx, and its bounce frame cannot be written at %#lx",
                 addr == pv_dom.event_callback ? "an event" : names[r->vector & 31], r->rip, sp);
    if (mask_events)
        vi->evtchn_upcall_mask = 1;
    r->rsp = sp;
    r->rip = addr;
    r->cs = SEL_RING3_CS64;
    r->ss = SEL_RING3_DS;
    r->rflags = (r->rflags & ~(RFLAGS_TF | RFLAGS_NT | RFLAGS_RF)) | RFLAGS_IF;
    pv_dom.nr_bounces++;
}

static bool trap(struct cpu_regs *r, uint64_t cr2)
{
    unsigned v = (unsigned)r->vector;

    if (v == 13 && !r->error_code && emulate_privileged(r))
        return true;
    if (v == 14 && pv_ptwr_fault(r, cr2))
        return true;
    if (v == 14) {
        pv_current()->vi->arch.cr2 = cr2;
        r->error_code &= ~4ul;          /* the guest kernel sees its faults as supervisor ones, as on Xen */
    }
    if (v == 8 || v == 18 || !pv_dom.traps[v].address)
        pv_crash(r, "%s (error code %#lx) at %#lx with no guest handler", names[v & 31], r->error_code, r->rip);
    const struct pv_trap *t = &pv_dom.traps[v];
    pv_bounce(r, t->address, t->flags & TI_MASK_EVENTS, has_error_code(v) ? (int64_t)r->error_code : -1);
    return true;
}

bool pv_trap(struct cpu_regs *r, uint64_t cr2)
{
    bool handled = trap(r, cr2);

    pv_upcall_check(r);                 /* as Xen: pending, unmasked events go first */
    return handled;
}
