/* filter.h: the decompressor tests' way to the real tools: run data through a command. */
#ifndef UT_FILTER_H
#define UT_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* A file's bytes (malloc'ed; *len), or NULL. */
uint8_t *ut_slurp(const char *path, size_t *len);
/* data[0, n) through cmd: on its stdin, or, if cmd holds "{}", in a file named there (as `zstd -c
 * {}` wants for a frame that records the size); its stdout (malloc'ed; *out_len), or NULL if the
 * command failed. */
uint8_t *ut_filter(const uint8_t *data, size_t n, const char *cmd, size_t *out_len);

#endif
