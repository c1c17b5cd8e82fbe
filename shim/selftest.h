/* selftest.h: the built-in self-test (shim command line `selftest`, no guest needed). */
#ifndef SHIM_SELFTEST_H
#define SHIM_SELFTEST_H

#include "shim/cmdline.h"

void selftest_run(enum selftest_mode mode) __noreturn;

#endif
