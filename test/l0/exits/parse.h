/*
 * parse.h: count hardware-virtualization exits in a xentrace stream (Xen's trace buffers as
 * `xentrace` writes them: a cpu-change record, then that CPU's window of raw trace records).
 * The test bed's L0 runs one HVM domain at a time (the shim's; dom0 is PV), so every
 * VMEXIT record in the stream is one of the shim domain's exits.
 */
#ifndef EXITS_PARSE_H
#define EXITS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define EXITS_REASONS 1280          /* SVM exit codes reach 0x403 (NPF); VMX's are below 70 */

/* Where the shim domain was when it exited, by the RIP in the record. In a PV guest's address
 * space the hypervisor (Xen or a shim) owns 0xffff800000000000-0xffff87ffffffffff (L4 slots
 * 256-271); a 64-bit PV kernel sits above it, its user space below 2^47. A 32-bit record
 * (the shim before long mode) has no such split: "other". */
enum exits_where { WHERE_SHIM, WHERE_KERNEL, WHERE_USER, WHERE_OTHER, WHERE_N };
#define EXITS_RIPS 4096             /* distinct (RIP, reason) pairs of the shim kept */

struct exits {
    uint64_t exits;                 /* VMEXIT and VMEXIT64 records */
    uint64_t entries;               /* VMENTRY records */
    uint64_t lost;                  /* records Xen dropped: its TRC_LOST_RECORDS count them */
    uint64_t records;               /* every record seen */
    uint64_t other_reason;          /* exits whose reason is >= EXITS_REASONS */
    uint64_t by_reason[EXITS_REASONS];
    uint64_t by_where[WHERE_N][EXITS_REASONS];  /* the same counts, split by where */
    uint64_t where_other_reason[WHERE_N];       /* other_reason, split by where */
    /* the shim's exits by (RIP, reason): which of its instructions exit, and how often */
    struct exits_rip { uint64_t rip; uint32_t reason; uint64_t n; } rips[EXITS_RIPS];
    uint64_t rips_full;                         /* shim exits not kept: the table was full */
    int bad;                        /* the stream broke the format: counts stop there */
    /* the parser's state across feeds */
    uint8_t buf[64];
    size_t have;                    /* bytes held in buf */
    uint64_t window;                /* bytes left in the current CPU window */
};

/* Feed LEN bytes of the stream (any split). Returns 0, or -1 once the stream is malformed. */
int exits_feed(struct exits *e, const void *data, size_t len);
/* Where a 64-bit exit record's RIP lies. */
enum exits_where exits_where_of(uint64_t rip);
/* At the end of the stream: -1 when it stopped inside a record or a window. */
int exits_end(const struct exits *e);

#endif
