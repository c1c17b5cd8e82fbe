/* crash.c: a guest the shim cannot go on with ends here: one reason line, its registers, SHUTDOWN_crash. */
#include "domain.h"
#include "console.h"
#include "panic.h"
#include "x86.h"
#include "xen-abi.h"

void pv_console_flush(void);

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
               r->rflags, r->ss, r->rsp, pv_dom.vcpu[0].vi ? pv_dom.vcpu[0].vi->arch.cr2 : 0);
        printk(LOG_ERR, "  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", r->rax, r->rbx, r->rcx, r->rdx);
        printk(LOG_ERR, "  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", r->rsi, r->rdi, r->rbp, r->r8);
    }
    shim_shutdown(SHUTDOWN_crash);
}
