/*
 * ptwr.c: writable page tables (VMASST_TYPE_writable_pagetables). A guest kernel may write to
 * its own validated L1 tables, which it maps read-only, as if they were writable: Debian's Linux
 * clears PTEs with xchg and sets bits with lock and/or. The write faults; here the store is
 * decoded (insn.c), the new entry computed from the current one, checked and its reference taken
 * by pagetype.c, and stored with one compare-and-exchange, retried if the CPU set an accessed or
 * dirty bit meanwhile. Anything else, including a store the checks refuse, leaves the #PF for the
 * guest, as Xen does. Only L1 tables, as in Xen: writes to higher levels always fault.
 */
#include "pv/domain/domain.h"
#include "pv/mm/guest.h"
#include "pv/mm/insn.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define PF_P    (1u << 0)
#define PF_W    (1u << 1)
#define PF_RSVD (1u << 3)
#define PF_I    (1u << 4)

static uint64_t *regs_of(struct cpu_regs *r, unsigned n)
{
    uint64_t *const map[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                                &r->r8,  &r->r9,  &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };
    return map[n];
}

/* The frame va's L1 entry maps, if va is mapped read-only through valid tables (0: not so). */
static uint64_t ro_target(uint64_t va)
{
    uint64_t l1, e;

    if (!pv_walk_l1e(va, &l1, &e) || !(e & PTE_P) || (e & (PTE_PS | PTE_W)))
        return 0;
    uint64_t mfn = (e & PTE_ADDR) >> PAGE_SHIFT;
    return pv_mfn_is_guest(mfn) ? mfn : 0;
}

/* Up to 15 bytes of the instruction at rip (fewer before an unmapped page): how many. */
static size_t fetch(uint8_t *code, uint64_t rip)
{
    size_t n = 15, first = PAGE_SIZE - (rip & (PAGE_SIZE - 1));

    if (first < n && copy_from_guest(code, rip, n) == 0)
        return n;
    n = MIN(n, first);
    return copy_from_guest(code, rip, n) == 0 ? n : 0;
}

bool pv_ptwr_fault(struct cpu_regs *r, uint64_t cr2)
{
    if (!(pv_dom.vm_assist & (1ull << VMASST_TYPE_writable_pagetables)) ||
        (r->error_code & (PF_P | PF_W | PF_RSVD | PF_I)) != (PF_P | PF_W))
        return false;

    uint8_t code[15];
    size_t avail = fetch(code, r->rip);
    struct insn_regs ir = { .rip = r->rip, .rflags = r->rflags, .fs_base = rdmsr(MSR_FS_BASE),
                            .gs_base = rdmsr(MSR_KERNEL_GS_BASE) };  /* the guest's, while we run */
    struct insn in;
    for (unsigned i = 0; i < 16; i++)
        ir.gpr[i] = *regs_of(r, i);
    if (!avail || insn_decode(&in, code, avail, &ir))
        return false;
    if (pv_dom.compat)
        in.addr = (uint32_t)in.addr;    /* compatibility mode: addresses wrap at 4 GiB */
    /* one naturally aligned store of at most one entry, inside the page that faulted; as in Xen,
     * not CMPXCHG16B: two entries cannot change at once atomically against the CPU's A/D writes */
    if (in.size > 8 || (in.addr >> PAGE_SHIFT) != (cr2 >> PAGE_SHIFT) || (in.addr & (in.size - 1)))
        return false;

    bool done = false;
    spin_lock(&pv_dom.mmu_lock);
    uint64_t table = ro_target(cr2);
    if (table && table < pv_mm.nr && pgi_type(pv_mm.info[table]) == PGT_L1 &&
        (pv_mm.info[table] & PGI_VALIDATED)) {
        unsigned slot = (in.addr & (PAGE_SIZE - 1)) >> 3, shift = (in.addr & 7) * 8;
        uint64_t *pte = &pt_frame(table)[slot];
        for (unsigned tries = 0; tries < 64 && !done; tries++) {
            struct insn_regs try_regs = ir;
            uint64_t cur = __atomic_load_n(pte, __ATOMIC_RELAXED);
            uint64_t old[2] = { cur >> shift, 0 }, res[2], want = 0;
            if (insn_execute(&in, &try_regs, old, res))
                break;
            if (in.size == 8) {
                want = res[0];
            } else {
                uint64_t mask = ((1ull << (in.size * 8)) - 1) << shift;
                want = (cur & ~mask) | ((res[0] << shift) & mask);
            }
            int rc = want == cur ? 0 : pt_cmpxchg_entry(table, slot, cur, want);
            if (rc < 0 && pv_dom.compat && in.size == 4 && shift == 32 && (want & PTE_P) &&
                in.op != INSN_CMPXCHG && in.op != INSN_CMPXCHG_DOUBLE) {
                /* as Xen: a 32-bit guest writing a PAE entry's high half first has its two
                 * stores the wrong way round; the entry goes in not present, the low half next */
                rc = pt_cmpxchg_entry(table, slot, cur, want & ~PTE_P);
            }
            if (rc < 0)
                break;                  /* refused: the guest gets its #PF */
            if (rc > 0)
                continue;               /* the CPU set A or D meanwhile: compute again */
            ir = try_regs;
            done = true;
        }
    }
    spin_unlock(&pv_dom.mmu_lock);
    if (!done)
        return false;
    for (unsigned i = 0; i < 16; i++)
        *regs_of(r, i) = ir.gpr[i];
    r->rip = ir.rip;
    r->rflags = ir.rflags;
    pv_dom.nr_emulated++;
    pv_dom.nr_ptwr++;
    return true;
}
