/* native.c: runs one instruction on the host CPU and catches where it stops (see native.h). */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "native.h"

#define PAGE        4096ul
#define USER_LOW    0x10000ul           /* above mmap_min_addr everywhere */
#define USER_HIGH   0x7ffffffff000ul    /* 4-level paging's user half */

void native_enter(const struct insn_regs *r, const void *code) __attribute__((noreturn));

static const int sync_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
static struct sigaction old_act[NSIG];
static bool installed;
static uint8_t *code_page;              /* executable; the page after it is not */
static void *map_at;
static size_t map_len;

/* Where a run stopped, filled by the handler. */
static sigjmp_buf back;
static volatile sig_atomic_t active;
static struct insn_regs stop;
static uint64_t stop_addr;
static int stop_sig;

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    static const int gpr_order[16] = {
        REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
        REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
    };
    const greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;

    if (!active) {
        /* Not a native run: give the fault back to whoever handled it before us (the
         * sanitizer, libFuzzer), by restoring its handler and letting it fault again. */
        sigaction(sig, &old_act[sig], NULL);
        installed = false;
        return;
    }
    for (int i = 0; i < 16; i++)
        stop.gpr[i] = (uint64_t)g[gpr_order[i]];
    stop.rip = (uint64_t)g[REG_RIP];
    stop.rflags = (uint64_t)g[REG_EFL];
    stop_addr = (uint64_t)si->si_addr;
    stop_sig = sig;
    active = 0;
    siglongjmp(back, 1);
}

/* Our handler runs on its own stack: the test's rsp can be anything. */
static void install(void)
{
    static uint8_t altstack[256 << 10];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
    struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK };

    sigaltstack(&ss, NULL);
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sync_sigs) / sizeof(sync_sigs[0]); i++)
        sigaction(sync_sigs[i], &sa, &old_act[sync_sigs[i]]);
    installed = true;
}

int native_init(uint64_t hint)
{
    void *p = mmap((void *)hint, 2 * PAGE, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p != MAP_FAILED && p != (void *)hint) {
        munmap(p, 2 * PAGE);
        p = MAP_FAILED;
    }
    if (p == MAP_FAILED)
        p = mmap(NULL, 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC)) {
        perror("native: code pages");
        return -1;
    }
    code_page = p;
    return 0;
}

uint64_t native_rip(unsigned len)
{
    return (uint64_t)(uintptr_t)code_page + PAGE - len;
}

static uint64_t get_base(int which)
{
    unsigned long v = 0;
    syscall(SYS_arch_prctl, which, &v);
    return v;
}

uint64_t native_fs_base(void) { return get_base(ARCH_GET_FS); }
uint64_t native_gs_base(void) { return get_base(ARCH_GET_GS); }

int native_set_gs_base(uint64_t base)
{
    return (int)syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)base);
}

int native_map(uint64_t addr, size_t len)
{
    uint64_t start = addr & ~(PAGE - 1), end = (addr + len + PAGE - 1) & ~(PAGE - 1);

    if (map_at || !len || addr < USER_LOW || addr >= USER_HIGH || len > USER_HIGH - addr)
        return -1;
    void *p = mmap((void *)start, end - start, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    if (p != (void *)start) {           /* a kernel without NOREPLACE took it as a hint */
        munmap(p, end - start);
        return -1;
    }
    map_at = p;
    map_len = end - start;
    return 0;
}

void native_unmap(void)
{
    if (map_at)
        munmap(map_at, map_len);
    map_at = NULL;
}

int native_run(const uint8_t *code, unsigned len, struct insn_regs *r, uint64_t *fault_addr)
{
    static sigset_t saved;
    sigset_t async;
    uint64_t end = (uint64_t)(uintptr_t)code_page + PAGE;

    if (!installed)
        install();
    memset(code_page, 0xcc, PAGE - len);        /* int3: a jump backwards traps */
    memcpy(code_page + PAGE - len, code, len);
    /* No asynchronous signal while the registers are the test's: its stack could be anywhere. */
    sigfillset(&async);
    for (size_t i = 0; i < sizeof(sync_sigs) / sizeof(sync_sigs[0]); i++)
        sigdelset(&async, sync_sigs[i]);
    sigprocmask(SIG_BLOCK, &async, &saved);
    if (!sigsetjmp(back, 0)) {
        active = 1;
        native_enter(r, code_page + PAGE - len);
    }
    sigprocmask(SIG_SETMASK, &saved, NULL);     /* also unblocks the signal we came back from */
    memcpy(r->gpr, stop.gpr, sizeof(r->gpr));
    r->rip = stop.rip;
    r->rflags = stop.rflags;
    *fault_addr = stop_addr;
    return stop_sig == SIGSEGV && stop.rip == end && stop_addr == end ? 0 : stop_sig;
}
