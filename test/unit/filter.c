/* filter.c: filter.h, through temporary files in /tmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"

uint8_t *ut_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n ? (size_t)n : 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

uint8_t *ut_filter(const uint8_t *data, size_t n, const char *cmd, size_t *out_len)
{
    char in[] = "/tmp/pvshim-ut-XXXXXX", out[64], line[1024];
    int fd = mkstemp(in);
    FILE *f = fdopen(fd, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
    snprintf(out, sizeof(out), "%s.out", in);
    const char *at = strstr(cmd, "{}");
    if (at)
        snprintf(line, sizeof(line), "%.*s%s%s > %s", (int)(at - cmd), cmd, in, at + 2, out);
    else
        snprintf(line, sizeof(line), "%s < %s > %s", cmd, in, out);
    uint8_t *c = system(line) == 0 ? ut_slurp(out, out_len) : NULL;
    remove(out);
    remove(in);
    return c;
}
