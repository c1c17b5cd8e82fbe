/*
 * test.c: exitcount's stream parser against streams built here the way Xen's trace buffers and
 * xentrace lay them out (public/trace.h: a header word, an optional 64-bit TSC, up to 7 data
 * words; xentrace puts a cpu-change record before each window). Each stream is fed whole and
 * then split at every byte, since a pipe hands xentrace's output over in arbitrary pieces.
 */
#include <stdio.h>
#include <string.h>

#include <stdint.h>
#include <xen/trace.h>       /* needs stdint first */

#include "parse.h"

static unsigned failed, passed;
#define CHECK(c) do { if (c) passed++; else { failed++; fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

static uint32_t s[4096];
static size_t n;

static void rec(uint32_t ev, int tsc, unsigned extra, const uint32_t *data)
{
    s[n++] = ev | (extra << TRACE_EXTRA_SHIFT) | ((uint32_t)!!tsc << 31);
    if (tsc)
        s[n++] = 0x1234, s[n++] = 0x5678;
    for (unsigned i = 0; i < extra; i++)
        s[n++] = data[i];
}

/* a window: the cpu-change record, then its records, its length patched in afterwards */
static size_t window_open(unsigned cpu)
{
    s[n++] = TRC_TRACE_CPU_CHANGE | (2u << TRACE_EXTRA_SHIFT);
    s[n++] = cpu;
    s[n++] = 0;
    return n;
}
static void window_close(size_t at) { s[at - 1] = (uint32_t)((n - at) * 4); }

/* feed the stream whole, and split in two at every byte: all must give the same counts */
static void feed_all(struct exits *whole, int want_ok)
{
    memset(whole, 0, sizeof(*whole));
    int rc = exits_feed(whole, s, n * 4);
    CHECK((rc == 0 && exits_end(whole) == 0) == want_ok);
    for (size_t cut = 1; cut < n * 4; cut++) {
        static struct exits e;
        memset(&e, 0, sizeof(e));
        int r1 = exits_feed(&e, s, cut);
        int r2 = r1 ? r1 : exits_feed(&e, (const uint8_t *)s + cut, n * 4 - cut);
        if ((r2 == 0 && exits_end(&e) == 0) != want_ok || e.exits != whole->exits ||
            e.lost != whole->lost || e.records != whole->records) {
            CHECK(!"split feed differs");
            return;
        }
    }
    passed++;
}

int main(void)
{
    static struct exits e;
    uint32_t d[7] = { 0x81, 0xffff8000, 0xffffffff, 4, 5, 6, 7 };

    /* two windows (two CPUs): 64-bit exits with TSC, a 32-bit exit, entries, other events */
    size_t w = window_open(0);
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    rec(TRC_HVM_VMENTRY, 1, 0, d);
    d[0] = 0x400;
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    rec(TRC_HVM_VMENTRY, 1, 0, d);
    rec(0x0002f001, 0, 7, d);                   /* a scheduler record, 7 data words: skipped */
    window_close(w);
    w = window_open(1);
    d[0] = 0x81;
    rec(TRC_HVM_VMEXIT, 0, 2, d);               /* 32-bit form, no TSC */
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    d[0] = 3;
    rec(TRC_LOST_RECORDS, 1, 4, d);             /* Xen lost 3 records */
    d[0] = 5000;                                /* a reason past the table */
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    window_close(w);
    w = window_open(0);                         /* an empty window */
    window_close(w);
    feed_all(&e, 1);
    CHECK(e.exits == 5);
    CHECK(e.entries == 2);
    CHECK(e.lost == 3);
    CHECK(e.records == 9);
    CHECK(e.by_reason[0x81] == 3 && e.by_reason[0x400] == 1 && e.other_reason == 1);
    /* RIP 0xffffffffffff8000: the kernel; the 32-bit exit has no long-mode RIP */
    CHECK(e.by_where[WHERE_KERNEL][0x81] == 2 && e.by_where[WHERE_KERNEL][0x400] == 1);
    CHECK(e.by_where[WHERE_OTHER][0x81] == 1 && e.where_other_reason[WHERE_KERNEL] == 1);

    /* where a RIP lies: the hypervisor's slots 256-271, the kernel above, user space below */
    CHECK(exits_where_of(0xffff800000000000ull) == WHERE_SHIM);
    CHECK(exits_where_of(0xffff82d040200000ull) == WHERE_SHIM);
    CHECK(exits_where_of(0xffff87ffffffffffull) == WHERE_SHIM);
    CHECK(exits_where_of(0xffff880000000000ull) == WHERE_KERNEL);
    CHECK(exits_where_of(0xffffffff81000000ull) == WHERE_KERNEL);
    CHECK(exits_where_of(0x00007fffffffe000ull) == WHERE_USER);
    CHECK(exits_where_of(0) == WHERE_USER);
    CHECK(exits_where_of(0x0000800000000000ull) == WHERE_OTHER);


    /* a stream cut inside a record: the records before still count, the end says so */
    n -= 3 + 2;                                 /* the empty window, and half the last exit */
    feed_all(&e, 0);
    CHECK(e.exits == 4);

    /* not a cpu-change record where one must be */
    n = 0;
    s[n++] = TRC_HVM_VMEXIT;
    s[n++] = 1, s[n++] = 2;
    feed_all(&e, 0);
    CHECK(e.bad && e.exits == 0);

    /* a record longer than what is left of its window */
    n = 0;
    w = window_open(0);
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    window_close(w);
    s[w - 1] -= 4;
    feed_all(&e, 0);
    CHECK(e.bad && e.exits == 0);

    /* an exit in user space and one in the shim, split by where */
    n = 0;
    w = window_open(0);
    d[0] = 0x6e, d[1] = 0x401000, d[2] = 0;
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    d[1] = 0x40001234, d[2] = 0xffff8080;
    rec(TRC_HVM_VMEXIT | TRC_64_FLAG, 1, 3, d);
    window_close(w);
    feed_all(&e, 1);
    CHECK(e.by_where[WHERE_USER][0x6e] == 1 && e.by_where[WHERE_SHIM][0x6e] == 1);
    /* the shim's exit is kept by site, the user one is not */
    unsigned sites = 0;
    for (unsigned i = 0; i < EXITS_RIPS; i++)
        if (e.rips[i].n) {
            sites++;
            CHECK(e.rips[i].rip == 0xffff808040001234ull && e.rips[i].reason == 0x6e && e.rips[i].n == 1);
        }
    CHECK(sites == 1);

    printf("exitcount parser: %u passed, %u failed\n", passed, failed);
    return failed != 0;
}
