/*
 * flush.c: TLB flushes. Every flush goes through flush_tlb(), so that the remote mechanism (IPIs
 * or the L0's assisted flush, the TLB-flush clock) can be chosen in one place.
 *
 * Remote CPUs: guest vCPUs run only on the boot CPU for now; the other shim CPUs never load a
 * guest's page tables (their idle tables map no guest memory), so they hold no guest translation
 * to flush. When guest vCPUs run on them, this is where their flush goes.
 */
#include "flush.h"
#include "cpu.h"
#include "debug.h"
#include "x86.h"

struct flush_stats flush_stats;

void flush_tlb(uint64_t cpus, uint64_t va, unsigned flags)
{
    ASSERT(flags & (FLUSH_ALL | FLUSH_VA));
    if (!(cpus & FLUSH_CPU(this_cpu()->id)))
        return;
    if (flags & FLUSH_ALL) {
        write_cr3(read_cr3());
        flush_stats.local++;
    } else {
        invlpg(va);
        flush_stats.local_va++;
    }
}
