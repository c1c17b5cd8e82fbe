/*
 * guest.h: everything a test's main.c needs. A test defines test_title[] and test_main();
 * the library boots (head.S, start.c), runs test_main() and, if it returns, gives the verdict
 * (RESULT PASS unless a check() failed) and powers off.
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xen-abi.h"

#include "console.h"
#include "hypercall.h"
#include "lib.h"
#include "pagetable.h"
#include "test.h"
#include "testbed.h"

/* What Xen handed us at entry (head.S): start_info (rsi) and the bootstrap stack end (rsp). */
extern start_info_t *start_info;
extern unsigned long boot_rsp;
/* start_info->shared_info mapped at a page of our own, or NULL if that failed. */
extern shared_info_t *shared_info;
/* Map start_info->shared_info there (again, after a resume in a new domain): 0 or the error. */
long shared_info_map(void);

/* The image's bounds (link.ld). */
extern char _image_start[], _image_end[];

#endif
