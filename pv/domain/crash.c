/* crash.c: a guest the shim cannot go on with ends here: one reason line, its registers, SHUTDOWN_crash. */
#include "pv/devices/console.h"
#include "pv/domain/domain.h"
#include "pv/hypercall/hypercall.h"
#include "pv/mm/guest.h"
#include "pv/vcpu/traps.h"
#include "shim/console.h"
#include "shim/panic.h"
#include "shim/x86.h"
#include "xen-abi.h"

void pv_crash(const struct cpu_regs *r, const char *fmt, ...)
{
    char buf[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf_(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (pv_dom.cons)
        pv_console_flush();
    printk(LOG_ERR, "guest crashed: %s\n", buf);
    if (r) {
        printk(LOG_ERR, "  guest rip %04lx:%016lx rflags %016lx rsp %04lx:%016lx cr2 %#lx\n", r->cs, r->rip,
               r->rflags, r->ss, r->rsp, pv_current()->vi ? pv_get_cr2() : 0);
        printk(LOG_ERR, "  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", r->rax, r->rbx, r->rcx, r->rdx);
        printk(LOG_ERR, "  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", r->rsi, r->rdi, r->rbp, r->r8);
        printk(LOG_ERR, "  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n", r->r9, r->r10, r->r11, r->r12);
        printk(LOG_ERR, "  r13 %016lx r14 %016lx r15 %016lx\n", r->r13, r->r14, r->r15);
        uint64_t st[8];                 /* the top of its stack: usually the caller is there */
        if (!copy_from_guest(st, r->rsp & ~7ul, sizeof(st)))
            printk(LOG_ERR, "  stack %lx %lx %lx %lx %lx %lx %lx %lx\n", st[0], st[1], st[2], st[3], st[4], st[5],
                   st[6], st[7]);
    }
    pv_hypercall_report();
    shim_shutdown(SHUTDOWN_crash);
}
