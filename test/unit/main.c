/* main.c: runs the host unit tests of the shim's hardware-free code; exits non-zero on any failure. */
#include <stdlib.h>

#include "shim/debug.h"
#include "harness.h"

unsigned test_passed, test_failed;
unsigned trace_errors;

/* The shim's debug.h hooks, hosted: an assertion is a test failure that ends the run. */
void assert_failed(const char *expr, const char *file, int line)
{
    fprintf(stderr, "  ASSERT %s failed at %s:%d\n", expr, file, line);
    exit(2);
}

void trace_error(int err, const char *why, const char *file, int line)
{
    (void)err, (void)why, (void)file, (void)line;
    trace_errors++;
}

int main(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } suites[] = {
        { "cmdline", test_cmdline },
        { "frame", test_frame },
        { "format", test_format },
        { "elf", test_elf },
        { "bsdsyms", test_bsdsyms },
        { "decomp", test_decompress },
        { "unzstd", test_unzstd },
        { "unlzo", test_unlzo },
        { "bunzip2", test_bunzip2 },
        { "pagetype", test_pagetype },
        { "segdesc", test_segdesc },
        { "insn", test_insn },
        { "evtchn", test_evtchn },
        { "evtchn-fifo", test_evtchn_fifo },
        { "xenstore", test_xenstore },
        { "subops", test_subops },
        { "time", test_time },
    };

    for (unsigned i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
        unsigned f = test_failed, p = test_passed;
        suites[i].fn();
        printf("  %-8s %u passed, %u failed\n", suites[i].name, test_passed - p, test_failed - f);
    }
    printf("unit: %u passed, %u failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
