/*
 * pvcheck: the self-checks the corpus initramfs runs as a PV guest (see build-corpus.sh, init.sh).
 *
 * Built on the host as a static binary and run by /init. Each check subcommand prints exactly one
 * line "CHECK <name> ok <detail>" or "CHECK <name> FAIL <detail>" (one write(2), so it is not torn
 * by kernel messages) and exits 0 (ok) or 1 (FAIL). Any other exit status (a crash, a timeout
 * signal) means no line was printed and /init prints the FAIL line itself.
 *
 *   pvcheck start             the "PVCHECK start: <uname -r>, <n> vCPUs" line
 *   pvcheck xen               /sys/hypervisor/type is "xen"
 *   pvcheck forkexec [N]      N x fork + execve(self) + wait, exit status checked: page-table
 *                             creation, pinning, unpinning and teardown on every iteration
 *   pvcheck anonmem [MiB]     anonymous mmap: fill/verify a pattern, copy-on-write across fork,
 *                             MADV_DONTNEED gives zero pages back, munmap
 *   pvcheck sleep             a 1 s CLOCK_MONOTONIC sleep takes 0.9..1.5 s
 *   pvcheck pinned            one job per online vCPU, pinned there; sched_getcpu() agrees
 *   pvcheck ymm               (a CPU with AVX) two processes per online vCPU, pinned, each with its
 *                             own pattern in ymm0-15 across 400 sched_yield/nanosleep syscalls:
 *                             the kernel's context switches (XSAVE) and the syscall path through
 *                             the hypervisor keep every register
 *   pvcheck vcpus             online vCPUs == pvcheck.vcpus=N from the kernel command line, or,
 *                             without it, == possible vCPUs
 *   pvcheck gen FILE|- MiB    write MiB of deterministic bytes (the tmpfs check's content; the
 *                             build hashes the same stream on the host)
 *   pvcheck exit K            exit with status K (the forkexec child)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCPU 1024
#define CHECK_TIMEOUT 600 /* seconds (PVCHECK_TIMEOUT overrides); only catches livelocks */

static const char *check_name = "?";

/* Print the one result line of the current check and return its exit status. */
__attribute__((format(printf, 2, 3))) static int report(int ok, const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "CHECK %s %s ", check_name, ok ? "ok" : "FAIL");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	if (write(1, buf, (size_t)n) != n)
		return 2;
	return ok ? 0 : 1;
}

/* Read a small sysfs/procfs file into buf, without the trailing newline. */
static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return 0;
}

/* Parse a CPU list ("0-3,5") into cpus[]; returns the count, -1 on error. */
static int parse_cpulist(const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		for (; a <= b; a++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)a;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

/* The online (or possible) vCPUs; returns the count, -1 on error. */
static int cpu_list(const char *which, int *cpus, char *text, size_t textsize)
{
	char path[128];

	snprintf(path, sizeof path, "/sys/devices/system/cpu/%s", which);
	if (read_text(path, text, textsize) < 0)
		return -1;
	return parse_cpulist(text, cpus, MAXCPU);
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---- the checks ---- */

static int do_start(void)
{
	struct utsname u;
	int cpus[MAXCPU];
	char text[256];
	int n = cpu_list("online", cpus, text, sizeof text);
	char line[400];
	int len;

	if (uname(&u) < 0)
		strcpy(u.release, "?");
	if (n < 0)
		len = snprintf(line, sizeof line, "PVCHECK start: %s, ? vCPUs\n", u.release);
	else
		len = snprintf(line, sizeof line, "PVCHECK start: %s, %d vCPUs\n", u.release, n);
	return write(1, line, (size_t)len) == len ? 0 : 2;
}

static int do_xen(void)
{
	char t[64];

	if (read_text("/sys/hypervisor/type", t, sizeof t) < 0)
		return report(0, "/sys/hypervisor/type: %s", strerror(errno));
	if (strcmp(t, "xen") != 0)
		return report(0, "/sys/hypervisor/type is \"%s\", not \"xen\"", t);
	return report(1, "/sys/hypervisor/type is xen");
}

static int do_forkexec(int iters)
{
	double t0 = now(CLOCK_MONOTONIC);

	for (int i = 0; i < iters; i++) {
		int want = i % 100 + 1, st;
		char arg[16];
		pid_t pid;

		snprintf(arg, sizeof arg, "%d", want);
		pid = fork();
		if (pid < 0)
			return report(0, "fork #%d: %s", i, strerror(errno));
		if (pid == 0) {
			char *argv[] = { "pvcheck", "exit", arg, NULL };
			char *envp[] = { NULL };

			execve("/proc/self/exe", argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid)
			return report(0, "waitpid #%d: %s", i, strerror(errno));
		if (!WIFEXITED(st))
			return report(0, "child #%d killed by signal %d", i, WTERMSIG(st));
		if (WEXITSTATUS(st) != want)
			return report(0, "child #%d exited %d, expected %d%s", i, WEXITSTATUS(st), want,
				      WEXITSTATUS(st) == 127 ? " (execve failed)" : "");
		/* Progress, so that a slow emulated run is not mistaken for a hang. */
		if ((i + 1) % 50 == 0 && i + 1 < iters)
			dprintf(1, "forkexec: %d of %d after %.1f s\n", i + 1, iters, now(CLOCK_MONOTONIC) - t0);
	}
	return report(1, "%d fork+exec+wait in %.2f s", iters, now(CLOCK_MONOTONIC) - t0);
}

static int do_anonmem(size_t mib)
{
	size_t len = mib << 20, words = len / 8, page = (size_t)sysconf(_SC_PAGESIZE);
	const uint64_t seed = 0x5eed0fa11u;
	uint64_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int st;

	if (p == MAP_FAILED)
		return report(0, "mmap %zu MiB: %s", mib, strerror(errno));
	for (size_t i = 0; i < words; i++)
		if (p[i] != 0)
			return report(0, "fresh mapping not zero at +%#zx", i * 8);
	for (size_t i = 0; i < words; i++)
		p[i] = mix(i ^ seed);
	for (size_t i = 0; i < words; i++)
		if (p[i] != mix(i ^ seed))
			return report(0, "pattern mismatch at +%#zx", i * 8);

	/* Copy-on-write: the child scribbles over one word per page; the parent must not see it. */
	pid = fork();
	if (pid < 0)
		return report(0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (size_t off = 0; off < len; off += page)
			p[off / 8] = ~mix((off / 8) ^ seed);
		for (size_t off = 0; off < len; off += page)
			if (p[off / 8] != ~mix((off / 8) ^ seed))
				_exit(3);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return report(0, "copy-on-write child failed (status %#x)", st);
	for (size_t i = 0; i < words; i++)
		if (p[i] != mix(i ^ seed))
			return report(0, "parent saw the child's write at +%#zx (copy-on-write broken)", i * 8);

	/* Give the first half back: it must read as zero again, the second half must be intact. */
	if (madvise(p, len / 2, MADV_DONTNEED) < 0)
		return report(0, "madvise(MADV_DONTNEED): %s", strerror(errno));
	for (size_t i = 0; i < words; i++)
		if (p[i] != (i < words / 2 ? 0 : mix(i ^ seed)))
			return report(0, "after MADV_DONTNEED: wrong value at +%#zx", i * 8);
	if (munmap(p, len) < 0)
		return report(0, "munmap: %s", strerror(errno));
	return report(1, "%zu MiB mmap, pattern, copy-on-write, MADV_DONTNEED, munmap", mib);
}

static int do_sleep(void)
{
	struct timespec req = { 1, 0 };
	double t0 = now(CLOCK_MONOTONIC), dt;
	int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL);

	dt = now(CLOCK_MONOTONIC) - t0;
	if (r != 0)
		return report(0, "clock_nanosleep: %s", strerror(r));
	return report(dt >= 0.9 && dt <= 1.5, "1 s sleep took %.3f s", dt);
}

struct job {
	volatile int status; /* 0 ok, 1 setaffinity failed, 2 ran elsewhere, -1 not finished */
	volatile int err, seen, rounds;
};

static int do_pinned(void)
{
	int cpus[MAXCPU];
	char text[256];
	int n = cpu_list("online", cpus, text, sizeof text);
	struct job *jobs;
	pid_t pids[MAXCPU];
	double t0 = now(CLOCK_MONOTONIC);

	if (n <= 0)
		return report(0, "cannot read /sys/devices/system/cpu/online");
	jobs = mmap(NULL, sizeof *jobs * (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (jobs == MAP_FAILED)
		return report(0, "mmap: %s", strerror(errno));
	for (int j = 0; j < n; j++) {
		jobs[j].status = -1;
		pids[j] = fork();
		if (pids[j] < 0)
			return report(0, "fork: %s", strerror(errno));
		if (pids[j] == 0) {
			cpu_set_t set;
			volatile uint64_t sink = 0;

			CPU_ZERO(&set);
			CPU_SET(cpus[j], &set);
			if (sched_setaffinity(0, sizeof set, &set) < 0) {
				jobs[j].err = errno;
				jobs[j].status = 1;
				_exit(0);
			}
			for (int r = 0; r < 200; r++) {
				for (uint64_t k = 0; k < 50000; k++)
					sink += mix(k + (uint64_t)r);
				jobs[j].seen = sched_getcpu();
				jobs[j].rounds = r + 1;
				if (jobs[j].seen != cpus[j]) {
					jobs[j].status = 2;
					_exit(0);
				}
				sched_yield();
			}
			jobs[j].status = 0;
			_exit(0);
		}
	}
	for (int j = 0; j < n; j++) {
		int st;

		if (waitpid(pids[j], &st, 0) != pids[j] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return report(0, "job for cpu %d died (status %#x)", cpus[j], st);
	}
	for (int j = 0; j < n; j++) {
		if (jobs[j].status == 1)
			return report(0, "sched_setaffinity(cpu %d): %s", cpus[j], strerror(jobs[j].err));
		if (jobs[j].status == 2)
			return report(0, "job pinned to cpu %d: sched_getcpu() returned %d in round %d",
				      cpus[j], jobs[j].seen, jobs[j].rounds);
		if (jobs[j].status != 0)
			return report(0, "job for cpu %d did not finish", cpus[j]);
	}
	return report(1, "%d jobs on cpus %s, each stayed on its cpu (%.2f s)", n, text,
		      now(CLOCK_MONOTONIC) - t0);
}

/* Load ymm0-15 from p, make syscall nr (arg a1), store ymm0-15 to q: one asm statement, so no
 * compiler-made SSE code runs between the load and the store; the syscall ABI keeps vector
 * registers. */
static void ymm_syscall(const uint8_t *p, uint8_t *q, long nr, const void *a1)
{
	long ret;

	__asm__ volatile("vmovdqu 0(%[p]), %%ymm0; vmovdqu 32(%[p]), %%ymm1; vmovdqu 64(%[p]), %%ymm2\n\t"
			 "vmovdqu 96(%[p]), %%ymm3; vmovdqu 128(%[p]), %%ymm4; vmovdqu 160(%[p]), %%ymm5\n\t"
			 "vmovdqu 192(%[p]), %%ymm6; vmovdqu 224(%[p]), %%ymm7; vmovdqu 256(%[p]), %%ymm8\n\t"
			 "vmovdqu 288(%[p]), %%ymm9; vmovdqu 320(%[p]), %%ymm10; vmovdqu 352(%[p]), %%ymm11\n\t"
			 "vmovdqu 384(%[p]), %%ymm12; vmovdqu 416(%[p]), %%ymm13; vmovdqu 448(%[p]), %%ymm14\n\t"
			 "vmovdqu 480(%[p]), %%ymm15\n\t"
			 "syscall\n\t"
			 "vmovdqu %%ymm0, 0(%[q]); vmovdqu %%ymm1, 32(%[q]); vmovdqu %%ymm2, 64(%[q])\n\t"
			 "vmovdqu %%ymm3, 96(%[q]); vmovdqu %%ymm4, 128(%[q]); vmovdqu %%ymm5, 160(%[q])\n\t"
			 "vmovdqu %%ymm6, 192(%[q]); vmovdqu %%ymm7, 224(%[q]); vmovdqu %%ymm8, 256(%[q])\n\t"
			 "vmovdqu %%ymm9, 288(%[q]); vmovdqu %%ymm10, 320(%[q]); vmovdqu %%ymm11, 352(%[q])\n\t"
			 "vmovdqu %%ymm12, 384(%[q]); vmovdqu %%ymm13, 416(%[q]); vmovdqu %%ymm14, 448(%[q])\n\t"
			 "vmovdqu %%ymm15, 480(%[q])"
			 : "=a"(ret)
			 : [p] "r"(p), [q] "r"(q), "0"(nr), "D"(a1), "S"(0L)
			 : "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	(void)ret;
}

static int do_ymm(void)
{
	int cpus[MAXCPU];
	char text[256];
	int n = cpu_list("online", cpus, text, sizeof text), procs;
	pid_t pids[2 * MAXCPU];
	double t0 = now(CLOCK_MONOTONIC);

	if (n <= 0)
		return report(0, "cannot read /sys/devices/system/cpu/online");
	procs = 2 * n;
	for (int j = 0; j < procs; j++) {
		pids[j] = fork();
		if (pids[j] < 0)
			return report(0, "fork: %s", strerror(errno));
		if (pids[j] == 0) {
			uint8_t pat[512], got[512];
			struct timespec ms = { 0, 1000000 };
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpus[j % n], &set);
			if (sched_setaffinity(0, sizeof set, &set) < 0)
				_exit(3);
			for (int r = 0; r < 400; r++) {
				for (unsigned i = 0; i < sizeof pat; i += 8) {
					uint64_t v = mix((uint64_t)j << 40 | (uint64_t)r << 16 | i);
					memcpy(pat + i, &v, 8);
				}
				ymm_syscall(pat, got, r % 16 ? SYS_sched_yield : SYS_nanosleep, &ms);
				if (memcmp(pat, got, sizeof pat))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int j = 0; j < procs; j++) {
		int st;

		if (waitpid(pids[j], &st, 0) != pids[j] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return report(0, "process %d (cpu %d): %s (status %#x)", j, cpus[j % n],
				      WIFEXITED(st) && WEXITSTATUS(st) == 1 ? "its ymm registers changed across a syscall" :
				      WIFEXITED(st) && WEXITSTATUS(st) == 3 ? "sched_setaffinity failed" : "died", st);
	}
	return report(1, "%d processes on cpus %s kept ymm0-15 across 400 syscalls each (%.2f s)", procs, text,
		      now(CLOCK_MONOTONIC) - t0);
}

static int do_vcpus(void)
{
	int cpus[MAXCPU];
	char online_text[256], possible_text[256], cmdline[4096];
	int online = cpu_list("online", cpus, online_text, sizeof online_text);
	const char *arg = NULL;

	if (online <= 0)
		return report(0, "cannot read /sys/devices/system/cpu/online");
	if (read_text("/proc/cmdline", cmdline, sizeof cmdline) < 0)
		return report(0, "/proc/cmdline: %s", strerror(errno));
	for (char *t = strtok(cmdline, " \t\n"); t; t = strtok(NULL, " \t\n"))
		if (strncmp(t, "pvcheck.vcpus=", 14) == 0)
			arg = t + 14;
	if (arg) {
		char *end;
		long want = strtol(arg, &end, 10);

		if (end == arg || *end || want <= 0)
			return report(0, "bad pvcheck.vcpus=%s on the kernel command line", arg);
		return report(online == want, "%d online (%s), expected %ld", online, online_text, want);
	} else {
		int possible = cpu_list("possible", cpus, possible_text, sizeof possible_text);

		if (possible <= 0)
			return report(0, "cannot read /sys/devices/system/cpu/possible");
		return report(online == possible, "%d online (%s), %d possible (%s); no pvcheck.vcpus= given",
			      online, online_text, possible, possible_text);
	}
}

static int do_gen(const char *path, size_t mib)
{
	static uint64_t buf[8192];
	size_t total = mib << 20, done = 0;
	uint64_t x = 0x0123456789abcdefULL;
	int fd = strcmp(path, "-") == 0 ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	while (done < total) {
		size_t chunk = sizeof buf < total - done ? sizeof buf : total - done;

		for (size_t i = 0; i < chunk / 8; i++) {
			/* xorshift64*, stored little-endian on both ends (x86 only) */
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			buf[i] = x * 0x2545f4914f6cdd1dULL;
		}
		for (size_t off = 0; off < chunk;) {
			ssize_t w = write(fd, (char *)buf + off, chunk - off);

			if (w <= 0) {
				perror(path);
				return 1;
			}
			off += (size_t)w;
		}
		done += chunk;
	}
	if (fd != 1 && (fsync(fd) < 0 || close(fd) < 0)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int usage(void)
{
	fputs("usage: pvcheck start|xen|forkexec [N]|anonmem [MiB]|sleep|pinned|vcpus|ymm|gen FILE|- MiB|exit K\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : NULL;

	if (strcmp(cmd, "exit") == 0)
		return arg ? atoi(arg) : 0;
	if (strcmp(cmd, "gen") == 0)
		return argc == 4 ? do_gen(argv[2], (size_t)atol(argv[3])) : usage();
	if (strcmp(cmd, "start") == 0)
		return do_start();

	check_name = cmd;
	const char *t = getenv("PVCHECK_TIMEOUT"); /* pvcheck.timeout= on the kernel command line */
	alarm(t && atoi(t) > 0 ? (unsigned)atoi(t) : CHECK_TIMEOUT);
	if (strcmp(cmd, "xen") == 0)
		return do_xen();
	/* A zero or garbled count would make the check pass without doing anything. */
	if (strcmp(cmd, "forkexec") == 0)
		return arg && atoi(arg) <= 0 ? report(0, "bad count '%s'", arg) : do_forkexec(arg ? atoi(arg) : 300);
	if (strcmp(cmd, "anonmem") == 0)
		return arg && atol(arg) <= 0 ? report(0, "bad size '%s'", arg) : do_anonmem(arg ? (size_t)atol(arg) : 64);
	if (strcmp(cmd, "sleep") == 0)
		return do_sleep();
	if (strcmp(cmd, "pinned") == 0)
		return do_pinned();
	if (strcmp(cmd, "vcpus") == 0)
		return do_vcpus();
	if (strcmp(cmd, "ymm") == 0)
		return do_ymm();
	return usage();
}
