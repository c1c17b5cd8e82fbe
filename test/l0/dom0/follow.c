/*
 * follow: print the lines appended to a file (a guest's console log in dom0), each prefixed with
 * the seconds elapsed since a start time, until told to stop. Runs in dom0 for the test bed:
 * a shell loop that forked per line would steal the emulated CPU from the guest under test.
 *
 *   follow FILE T0 STOPFILE   T0 = start time in seconds of CLOCK_BOOTTIME (as /proc/uptime);
 *                             exits once STOPFILE exists and FILE has been drained.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: follow FILE T0 STOPFILE\n");
		return 2;
	}
	double t0 = atof(argv[2]);
	char line[4096];
	size_t len = 0;
	FILE *f = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		int stop = access(argv[3], F_OK) == 0;
		if (!f)
			f = fopen(argv[1], "r");
		int got = 0;
		if (f) {
			int c;
			clearerr(f);
			while ((c = getc(f)) != EOF) {
				got = 1;
				if (c == '\r')
					continue;
				if (c != '\n' && len < sizeof(line) - 1) {
					line[len++] = (char)c;
					continue;
				}
				line[len] = 0;
				printf("@%8.2f | %s\n", now() - t0, line);
				len = 0;
			}
		}
		if (stop && !got) {
			if (len) {
				line[len] = 0;
				printf("@%8.2f | %s\n", now() - t0, line);
			}
			return 0;
		}
		if (!got)
			usleep(100000);
	}
}
