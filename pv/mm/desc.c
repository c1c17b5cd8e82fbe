/*
 * desc.c: the guest's descriptor tables: __HYPERVISOR_set_gdt, __HYPERVISOR_update_descriptor and
 * the LDT of MMUEXT_SET_LDT, on top of the page types (pagetype.c) and the rules in segdesc.c.
 *
 * GDT: every shim CPU has a 16-page GDT window (shim/cpu.c). set_gdt maps the guest's frames into
 * pages 0-13, each held as PGT_SEG_DESC (so validated, and never mapped writable by the guest
 * while held); pages it does not fill show a page of zeros. The shim's own descriptors stay in
 * page 14 (selectors 0xe000 and up), which no guest frame can reach.
 *
 * LDT: SET_LDT names a guest virtual range. As in Xen, its pages are mapped lazily: LDTR points at
 * this CPU's 16-page LDT window (through the descriptor at SEL_LDT, in the shim's page), and when
 * the CPU faults on a window page from the guest, the frame the guest maps there is taken as
 * PGT_SEG_DESC and mapped. A frame that cannot be (not mapped, mapped writable, a page table, a
 * bad descriptor) leaves the #PF to the guest, at the LDT address it used. A new LDT or new page
 * tables (NEW_BASEPTR) drop every mapped page.
 *
 * Both windows are supervisor mappings, writable as in Xen: the CPU sets a descriptor's accessed
 * bit when it loads it. The guest only ever maps these frames read-only. vCPU n runs on shim CPU
 * n, so the state here is per shim CPU; callers hold pv_dom.mmu_lock.
 */
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/mm/mm.h"
#include "pv/mm/pagetype.h"
#include "pv/mm/segdesc.h"
#include "shim/config.h"
#include "shim/debug.h"
#include "shim/paging.h"
#include "shim/x86.h"
#include "shim/xerrno.h"

#define GUEST_GDT_PAGES FIRST_RESERVED_GDT_PAGE         /* 14 */
#define LDT_ENTRY_SIZE  8

struct vdesc {
    uint64_t gdt_mfn[GUEST_GDT_PAGES];
    unsigned gdt_frames;                /* set_gdt's frames: gdt_mfn[0, gdt_frames) */
    uint64_t ldt_base, ldt_ents;
    uint64_t ldt_mfn[LDT_WINDOW_PAGES];
    uint32_t ldt_mapped;                /* bit i: LDT window page i maps ldt_mfn[i] */
};
static struct vdesc vdesc[MAX_CPUS];

static struct vdesc *this_vdesc(void)
{
    return &vdesc[this_cpu()->id];
}

int pt_desc_validate(uint64_t mfn)
{
    return segdesc_check_page(pt_frame(mfn));
}

static void window_set(uint64_t *window, unsigned page, uint64_t pa, uint64_t flags)
{
    uintptr_t va = (uintptr_t)window + (uintptr_t)page * PAGE_SIZE;
    int rc = vmap_set_page(va, pa, flags);

    ASSERT(rc == 0);                    /* the window's tables were made with it */
    (void)rc;
    invlpg(va);
}

/* Take the frames as descriptor pages, all or none (the caller holds the MMU lock). */
int pv_gdt_hold(const uint64_t *frames, unsigned entries)
{
    unsigned nr = (entries + SEGDESC_PER_PAGE - 1) / SEGDESC_PER_PAGE, i;

    if (entries > FIRST_RESERVED_GDT_ENTRY)
        return ERR(-XEN_EINVAL);
    for (i = 0; i < nr; i++)
        if (pt_get_type(frames[i], PGT_SEG_DESC))
            break;
    if (i == nr)
        return 0;
    while (i--)
        pt_put_type(frames[i]);
    return ERR(-XEN_EINVAL);
}

/* Held frames become this CPU's GDT, in place of the ones it had (caller holds the MMU lock). */
void pv_gdt_install(const uint64_t *frames, unsigned entries)
{
    unsigned nr = (entries + SEGDESC_PER_PAGE - 1) / SEGDESC_PER_PAGE;
    struct vdesc *v = this_vdesc();
    uint64_t *gdt = this_cpu()->gdt;

    for (unsigned i = 0; i < GUEST_GDT_PAGES; i++) {
        window_set(gdt, i, i < nr ? frames[i] << PAGE_SHIFT : gdt_zero_pa, i < nr ? PTE_RW : PTE_RO);
        if (i < v->gdt_frames)
            pt_put_type(v->gdt_mfn[i]);
        v->gdt_mfn[i] = i < nr ? frames[i] : 0;
    }
    v->gdt_frames = nr;
}

long hc_set_gdt(struct cpu_regs *regs, uint64_t ulist, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    unsigned entries = (unsigned)a2;    /* an unsigned int in Xen's prototype */
    uint64_t frames[GUEST_GDT_PAGES];
    unsigned nr = (entries + SEGDESC_PER_PAGE - 1) / SEGDESC_PER_PAGE;

    if (entries > FIRST_RESERVED_GDT_ENTRY)
        return ERR(-XEN_EINVAL);
    if (copy_from_guest(frames, ulist, nr * sizeof(frames[0])))
        return ERR(-XEN_EFAULT);
    return pv_set_gdt_frames(frames, entries);
}

long pv_set_gdt_frames(const uint64_t *frames, unsigned entries)
{
    int rc;

    if (entries > FIRST_RESERVED_GDT_ENTRY)
        return ERR(-XEN_EINVAL);
    spin_lock(&pv_dom.mmu_lock);
    if (!(rc = pv_gdt_hold(frames, entries)))
        pv_gdt_install(frames, entries);
    spin_unlock(&pv_dom.mmu_lock);
    return rc;
}

long hc_update_descriptor(struct cpu_regs *regs, uint64_t maddr, uint64_t desc, uint64_t a3, uint64_t a4,
                          uint64_t a5)
{
    uint64_t mfn = maddr >> PAGE_SHIFT;
    unsigned slot = (maddr & (PAGE_SIZE - 1)) / sizeof(desc);
    int rc = 0;

    if ((maddr % sizeof(desc)) || !segdesc_check(&desc))
        return ERR(-XEN_EINVAL);
    if (!pv_mfn_is_guest(mfn) || mfn >= pv_mm.nr || pv_mfn_is_special(mfn))
        return ERR(-XEN_EINVAL);

    spin_lock(&pv_dom.mmu_lock);
    uint32_t x = pv_mm.info[mfn];
    if (pgi_count(x) && pgi_type(x) == PGT_SEG_DESC) {
        /* a descriptor page in use (GDT or LDT): the checked descriptor goes in as it is */
        __atomic_store_n(&pt_frame(mfn)[slot], desc, __ATOMIC_RELAXED);
    } else if (!(rc = pt_get_type(mfn, PGT_WRITABLE))) {
        /* any other frame the guest could map writable: a plain write */
        __atomic_store_n(&pt_frame(mfn)[slot], desc, __ATOMIC_RELAXED);
        pt_put_type(mfn);
    }
    spin_unlock(&pv_dom.mmu_lock);
    return rc;
}

/* ---- the LDT ---- */

/* Unmap and release every LDT page mapped on this CPU. */
void pv_ldt_drop(void)
{
    struct vdesc *v = this_vdesc();
    uint64_t *ldt = this_cpu()->ldt;

    for (unsigned i = 0; v->ldt_mapped; i++) {
        if (!(v->ldt_mapped & (1u << i)))
            continue;
        window_set(ldt, i, 0, 0);
        pt_put_type(v->ldt_mfn[i]);
        v->ldt_mapped &= ~(1u << i);
    }
}

static void ldt_load(const struct vdesc *v)
{
    struct cpu *c = this_cpu();

    if (!v->ldt_ents) {
        __asm__ volatile("lldt %w0" :: "r"(0));
        return;
    }
    uint64_t base = (uintptr_t)c->ldt, limit = v->ldt_ents * LDT_ENTRY_SIZE - 1;
    uint64_t *d = &c->gdt[SEL_LDT >> 3];
    d[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x2ull << 40) /* LDT */ | (1ull << 47) /* P */ |
           (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
    d[1] = base >> 32;
    __asm__ volatile("lldt %w0" :: "r"(SEL_LDT) : "memory");
}

/* MMUEXT_SET_LDT, arguments checked by the caller (hypercall/mmu.c). */
void pv_set_ldt(uint64_t base, uint64_t ents)
{
    struct vdesc *v = this_vdesc();

    if (v->ldt_base == base && v->ldt_ents == ents)
        return;                         /* as Xen: the same LDT keeps its mapped pages */
    pv_ldt_drop();
    v->ldt_base = base;
    v->ldt_ents = ents;
    ldt_load(v);
}

/* The frame the guest's current kernel tables map at va (readable, any rights), or 0. An LDT
 * near the top of the lower half may run past it: nothing is mapped there for the guest. */
static uint64_t guest_frame_at(uint64_t va)
{
    uint64_t l1, e, mfn;

    if (!pv_guest_va(va))
        return 0;
    if (!pv_walk_l1e(va, &l1, &e) || !(e & PTE_P) || (e & PTE_PS))
        return 0;
    mfn = (e & PTE_ADDR) >> PAGE_SHIFT;
    return pv_mfn_is_guest(mfn) ? mfn : 0;
}

bool pv_ldt_fault(struct cpu_regs *r, uint64_t *cr2)
{
    struct vdesc *v = this_vdesc();
    uint64_t off = *cr2 - (uintptr_t)this_cpu()->ldt;

    (void)r;
    if (off >= (uint64_t)LDT_WINDOW_PAGES * PAGE_SIZE)
        return false;                   /* not the LDT window */
    unsigned page = (unsigned)(off >> PAGE_SHIFT);
    bool ok = false;
    spin_lock(&pv_dom.mmu_lock);
    if (off < v->ldt_ents * LDT_ENTRY_SIZE && !(v->ldt_mapped & (1u << page))) {
        uint64_t mfn = guest_frame_at(v->ldt_base + (off & ~(uint64_t)(PAGE_SIZE - 1)));
        if (mfn && !pt_get_type(mfn, PGT_SEG_DESC)) {
            v->ldt_mfn[page] = mfn;
            v->ldt_mapped |= 1u << page;
            window_set(this_cpu()->ldt, page, mfn << PAGE_SHIFT, PTE_RW);
            ok = true;
        }
    }
    spin_unlock(&pv_dom.mmu_lock);
    if (!ok)
        *cr2 = v->ldt_base + off;       /* the guest sees its fault at its own LDT address, as on Xen */
    return ok;
}

/*
 * A selector our own iretq (or a %gs load) may load for the guest without faulting in the shim:
 * the shim's flat ring-3 selectors, or a descriptor of the guest's own GDT (checked when its frame
 * became a descriptor page, so DPL 3) that is present and of the kind wanted: 64-bit or 32-bit
 * code for CS, writable data for SS and data registers. LDT selectors are not accepted here (a
 * not-yet-mapped LDT page would fault in the shim).
 */
bool pv_selector_ok(uint16_t sel, bool code)
{
    const struct vdesc *v = this_vdesc();
    unsigned idx = sel >> 3;

    if ((sel & 3) != 3 || (sel & 4))
        return false;
    if (code ? (sel == SEL_RING3_CS64 || sel == SEL_RING3_CS32) : sel == SEL_RING3_DS)
        return true;
    if (!idx || idx >= v->gdt_frames * SEGDESC_PER_PAGE)
        return false;
    uint64_t d = pt_frame(v->gdt_mfn[idx / SEGDESC_PER_PAGE])[idx % SEGDESC_PER_PAGE];
    unsigned type = (d >> 40) & 0xf;
    bool present = d & (1ull << 47), s = d & (1ull << 44), dpl3 = ((d >> 45) & 3) == 3;
    if (!present || !s || !dpl3)
        return false;
    return code ? (type & 8) != 0 : (type & 0xa) == 2;  /* code; or data, writable */
}

/*
 * The same for a 32-bit guest, whose kernel is ring 1: a selector of RPL 1 or 3 that our iretq or
 * a segment load in the shim may load without faulting, as `kind` needs it: the compat GDT's
 * flat ones, or a present descriptor of the guest's GDT (its DPL at least 1: check_descriptor)
 * that is nonconforming 32-bit code of DPL = RPL for CS, writable data of DPL = RPL for SS, data
 * or readable code of DPL >= RPL for DS, ES, FS and GS.
 */
bool pv_compat_selector_ok(uint16_t sel, enum pv_seg kind)
{
    const struct vdesc *v = this_vdesc();
    unsigned idx = sel >> 3, rpl = sel & 3;

    if ((rpl != 1 && rpl != 3) || (sel & 4))
        return false;
    if (kind == PV_SEG_CS ? sel == SEL_RING1_CS32 || sel == SEL_C_RING3_CS32 : sel == SEL_RING1_DS || sel == SEL_C_RING3_DS)
        return true;
    if (!idx || idx >= v->gdt_frames * SEGDESC_PER_PAGE)
        return false;
    uint64_t d = pt_frame(v->gdt_mfn[idx / SEGDESC_PER_PAGE])[idx % SEGDESC_PER_PAGE];
    unsigned type = (d >> 40) & 0xf, dpl = (d >> 45) & 3;
    bool present = d & (1ull << 47), s = d & (1ull << 44), l = d & (1ull << 53);
    if (!present || !s)
        return false;
    switch (kind) {
    case PV_SEG_CS:
        return (type & 0xc) == 8 && !l && dpl == rpl;
    case PV_SEG_SS:
        return (type & 0xa) == 2 && dpl == rpl;
    default:
        return ((type & 8) == 0 || (type & 2)) && dpl >= rpl;
    }
}
