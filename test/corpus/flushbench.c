/*
 * flushbench: the TLB-flush-heavy workload of test/bench/flush, run inside the Linux PV guest by
 * /init when the kernel command line says pvcheck.mode=flushbench (see init.sh).
 *
 *   flushbench [SCALE]   fixed work, timed: one thread per online vCPU in one process, each
 *                        doing SCALE x 100 rounds of mmap(64 KiB) + touch every page + mprotect
 *                        read-only + mprotect back + munmap (every mprotect and munmap of a
 *                        shared mm shoots down the TLBs of the vCPUs running its other threads);
 *                        beside them, max(1, vCPUs/2) workers doing SCALE x 10 fork + execve(self)
 *                        + wait each (page-table build, pin, unpin, teardown), in the spirit of
 *                        make -j. Default SCALE 4.
 *   flushbench exit      exit 0 (the fork+exec child)
 *
 * Prints progress lines (the mm rounds done, every 30 s: a slow run shows it is moving, which the
 * test bed's stall detector also needs), then one line for the benchmark to parse:
 *   FLUSHBENCH vcpus=N scale=S wall=<s> mm_rounds=<n> forks=<n> user=<s> sys=<s> steal=<s> idle=<s>
 * (user/sys/steal/idle: /proc/stat's all-CPU totals over the run, in seconds).
 * Then short phases, one kind of work each, so the L0's exits can be counted per unit of
 * work (the bench's exit counter takes a running total at each "EXITS-MARK <label>" line):
 *   idle: no work (what every window holds besides its work: the bench subtracts it);
 *   forkexec: the fork+exec workers alone, SCALE x 5 each;
 *   mm: the mm threads alone, SCALE x 30 rounds each (a round's two mprotects and its munmap
 *       each shoot down the other vCPUs' TLBs: three flushes);
 * each ending with "FLUSHBENCH-UNIT <phase> units=<n> wall=<s>". Exits 0, or prints
 * "FLUSHBENCH FAIL <reason>" and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MM_LEN (64 << 10)
#define MAXTHREADS 256

static int scale = 4;
static long mm_rounds;                  /* per mm thread, in the phase running */
static int forks_each;                  /* per fork+exec worker, in the phase running */
static volatile int failed;
static long rounds_done;                /* mm rounds of all threads, for the progress lines */
static long *forks_done;                /* fork+execs of all workers (shared with them) */
static double start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A progress line every 30 s until the run ends (a slow run shows it is moving). */
static void *progress(void *arg)
{
	for (;;) {
		sleep(30);
		printf("flushbench: %ld mm rounds, %ld fork+exec after %.0f s\n",
		       __atomic_load_n(&rounds_done, __ATOMIC_RELAXED),
		       __atomic_load_n(forks_done, __ATOMIC_RELAXED), now() - start);
	}
	(void)arg;
	return NULL;
}
static char fail_reason[200];

static void fail(const char *what)
{
	if (!__atomic_exchange_n(&failed, 1, __ATOMIC_SEQ_CST))
		snprintf(fail_reason, sizeof fail_reason, "%s: %s", what, strerror(errno));
}

/* /proc/stat's first line: user nice system idle iowait irq softirq steal, in ticks. */
static int cpu_ticks(unsigned long long t[8])
{
	FILE *f = fopen("/proc/stat", "r");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3], &t[4],
			   &t[5], &t[6], &t[7]) : 0;

	if (f)
		fclose(f);
	return n == 8 ? 0 : -1;
}

static void *mm_worker(void *arg)
{
	long page = sysconf(_SC_PAGESIZE), rounds = mm_rounds;

	for (long i = 0; i < rounds && !failed; i++) {
		char *p = mmap(NULL, MM_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			fail("mmap");
			break;
		}
		for (long o = 0; o < MM_LEN; o += page)
			p[o] = (char)i;
		if (mprotect(p, MM_LEN, PROT_READ) || mprotect(p, MM_LEN, PROT_READ | PROT_WRITE))
			fail("mprotect");
		if (p[MM_LEN - page] != (char)i)
			errno = EIO, fail("read back");
		if (munmap(p, MM_LEN))
			fail("munmap");
		__atomic_add_fetch(&rounds_done, 1, __ATOMIC_RELAXED);
	}
	(void)arg;
	return NULL;
}

static int fork_worker(void)
{
	for (int i = 0; i < forks_each; i++) {
		int st;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			char *argv[] = { "flushbench", "exit", NULL };
			char *envp[] = { NULL };

			execve("/proc/self/exe", argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		__atomic_add_fetch(forks_done, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* One phase: THREADS mm threads of ROUNDS rounds and FORKERS fork+exec workers of FORKS each,
 * all at once; between "EXITS-MARK LABEL-begin" and "-end". Returns its wall time, or -1.
 * A mark reaches the exit counter in dom0 through the console, a fraction of a second late and
 * not always equally late: each is followed by MARK_QUIET_S of idling (a few timer exits a
 * second), so that lateness moves the window's ends over idle time, not over the work. */
#define MARK_QUIET_S 2
static double phase(const char *label, long threads, long rounds, int forkers, int forks)
{
	pthread_t th[MAXTHREADS];
	pid_t fk[MAXTHREADS];

	mm_rounds = rounds, forks_each = forks;
	printf("EXITS-MARK %s-begin\n", label);
	sleep(MARK_QUIET_S);
	double t0 = now();
	for (int i = 0; i < forkers; i++) {
		fk[i] = fork();
		if (fk[i] == 0)
			_exit(fork_worker());
		if (fk[i] < 0) {
			fail("fork");
			return -1;
		}
	}
	for (long i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, mm_worker, NULL)) {
			fail("pthread_create");
			return -1;
		}
	for (long i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (threads)
		printf("flushbench: %s: mm threads done after %.1f s\n", label, now() - t0);
	int bad = 0;
	for (int i = 0; i < forkers; i++) {
		int st;
		if (waitpid(fk[i], &st, 0) != fk[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	double wall = now() - t0;
	printf("EXITS-MARK %s-end\n", label);
	sleep(MARK_QUIET_S);
	if (bad && !failed) {
		errno = ECHILD;
		fail("a fork+exec worker");
	}
	return failed ? -1 : wall;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc > 1)
		scale = atoi(argv[1]);
	if (scale < 1 || scale > 1000) {
		printf("FLUSHBENCH FAIL scale must be 1..1000\n");
		return 1;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1 || n > MAXTHREADS) {
		printf("FLUSHBENCH FAIL %ld online vCPUs\n", n);
		return 1;
	}
	int forkers = n / 2 > 1 ? (int)(n / 2) : 1;
	unsigned long long t0[8], t1[8];

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("flushbench: %ld mm threads x %d rounds, %d fork+exec workers x %d\n", n, 100 * scale, forkers,
	       10 * scale);
	if (cpu_ticks(t0)) {
		printf("FLUSHBENCH FAIL cannot read /proc/stat\n");
		return 1;
	}
	forks_done = mmap(NULL, sizeof(*forks_done), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_t pt;
	if (forks_done == MAP_FAILED || pthread_create(&pt, NULL, progress, NULL)) {
		printf("FLUSHBENCH FAIL progress counter\n");
		return 1;
	}
	start = now();
	double wall = phase("mixed", n, 100L * scale, forkers, 10 * scale);
	if (wall < 0 || cpu_ticks(t1)) {
		printf("FLUSHBENCH FAIL %s\n", failed ? fail_reason : "/proc/stat");
		return 1;
	}
	double hz = (double)sysconf(_SC_CLK_TCK);
	printf("FLUSHBENCH vcpus=%ld scale=%d wall=%.2f mm_rounds=%ld forks=%d user=%.2f sys=%.2f steal=%.2f "
	       "idle=%.2f\n", n, scale, wall, n * 100L * scale, forkers * 10 * scale,
	       (double)(t1[0] + t1[1] - t0[0] - t0[1]) / hz, (double)(t1[2] + t1[5] + t1[6] - t0[2] - t0[5] - t0[6]) / hz,
	       (double)(t1[7] - t0[7]) / hz, (double)(t1[3] + t1[4] - t0[3] - t0[4]) / hz);

	/* the unit phases: one kind of work each, and one with none, whose exits (the quiet time
	 * every window holds, and the marks' own) the counter takes off the others' */
	double iw = phase("idle", 0, 0, 0, 0);
	double fw = iw < 0 ? -1 : phase("forkexec", 0, 0, forkers, 5 * scale);
	double mw = fw < 0 ? -1 : phase("mm", n, 30L * scale, 0, 0);
	if (mw < 0) {
		printf("FLUSHBENCH FAIL %s\n", fail_reason);
		return 1;
	}
	printf("FLUSHBENCH-UNIT forkexec units=%d wall=%.2f\n", forkers * 5 * scale, fw);
	printf("FLUSHBENCH-UNIT mm units=%ld wall=%.2f\n", n * 30L * scale, mw);
	return 0;
}
