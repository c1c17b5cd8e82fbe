/* harness.h: a tiny host-side test harness: CHECK counts passes and failures, reports file:line. */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <stdio.h>

extern unsigned test_passed, test_failed;

#define CHECK(cond) do { \
        if (cond) { \
            test_passed++; \
        } else { \
            test_failed++; \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_EQ(a, b) do { \
        long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ == b_) { \
            test_passed++; \
        } else { \
            test_failed++; \
            fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a, #b, a_, b_); \
        } \
    } while (0)

void test_cmdline(void);
void test_frame(void);
void test_format(void);
void test_elf(void);
void test_bsdsyms(void);
void test_decompress(void);
void test_unzstd(void);
void test_unlzo(void);
void test_bunzip2(void);
void test_pagetype(void);
void test_segdesc(void);
void test_insn(void);
void test_evtchn(void);
void test_evtchn_fifo(void);
void test_time(void);
void test_xenstore(void);
void test_subops(void);

#endif
