/*
 * testbed.h: what test/run-guest says about this run. It puts two words on every test guest's
 * command line: testbed.shim=stock|ours (or a shim image's file name) and testbed.l0=xen|none.
 * Only a test that checks a documented difference between the shims (where the ABI has no one
 * right answer) asks, and it checks each shim's own behaviour exactly; everything else checks
 * the rule both must follow and never asks.
 */
#ifndef GUEST_TESTBED_H
#define GUEST_TESTBED_H

#include <stdbool.h>
#include <stddef.h>

/* The word's value; test_fail() if run-guest did not pass it (the kernel was booted by hand). */
const char *testbed_shim(void);
const char *testbed_l0(void);

/* testbed_shim() is "stock" or "ours"; any other shim fails the test (it has no expectation). */
bool testbed_ours(void);

/* The value of the command-line word "key=value" into buf (cut to size); false if absent. */
bool cmdline_word(const char *key, char *buf, size_t size);
#endif
