/*
 * cloudio: disk and network checks and a small I/O benchmark for the "cloud" guest test.
 *
 * Built on the host as a static binary; one copy runs inside a Linux PV guest that has only busybox
 * (see cloud-init.sh), the other in dom0 as the far end of the network checks. All data is one
 * deterministic pseudo-random stream, so either end can check it by SHA-256 (computed here, so that
 * reading and hashing are one timed loop).
 *
 * The stream: 64-bit words stored little-endian, word i (from 0) being the i-th output of
 * SplitMix64 seeded with 0, i.e. mix64((i + 1) * 0x9e3779b97f4a7c15). It comes in whole MiB.
 *
 *   cloudio gen FILE|- MIB       write the stream (the result line goes to stderr for "-")
 *   cloudio sha FILE|-           hash a file or stdin, timing the reads
 *   cloudio send HOST PORT MIB   connect, send the stream, wait until the peer has read it all
 *   cloudio recv PORT [OUT]      accept one connection, read it to EOF, optionally save it
 *   cloudio serve PORT MIB       accept one connection, send the stream, wait for the close
 *   cloudio get HOST PORT        connect, read to EOF
 *   cloudio seqwrite FILE MIB    write the stream in 1 MiB writes and fsync (timed together)
 *   cloudio seqread FILE         read in 1 MiB reads (the caller drops caches first)
 *   cloudio randread FILE SECS   random 4 KiB preads, O_DIRECT where the file system allows it
 *   cloudio gapwatch MIN_MS      forever: print each gap > MIN_MS between 10 ms ticks (pauses)
 *
 * Each subcommand prints one result line and exits 0; a failure prints one line
 * "cloudio: <subcommand>: <what failed>: <strerror>" on stderr and exits 1, a usage error exits 2.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUFSIZE (1u << 20) /* all network and file I/O is done in (up to) 1 MiB */
#define BLK 4096u          /* randread block size and O_DIRECT alignment */

static const char *cmd = "?";
static char peer[80]; /* "HOST:PORT" for messages */
static _Alignas(BLK) unsigned char buf[BUFSIZE];

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Print one line on fd with one write(2), so that kernel messages on a console do not tear it. */
__attribute__((format(printf, 2, 3))) static void say(int fd, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	n = n < (int)sizeof line - 2 ? n : (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(fd, line, (size_t)n) != n && fd != 2)
		fail("write result line");
}

/* Report a failure (errno says what went wrong) and exit 1. */
static void fail(const char *fmt, ...)
{
	const char *err = strerror(errno);
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	say(2, "cloudio: %s: %s: %s", cmd, what, err);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SHA-256 as defined in FIPS 180-4 (section numbers below are from it). */
struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char blk[64];
	size_t n; /* bytes waiting in blk */
};

/* First 32 bits of the fractional parts of the cube roots of the first 64 primes (4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* H(0): first 32 bits of the fractional parts of the square roots of the first 8 primes (5.3.3). */
static const struct sha256 sha256_start = { .h = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
						   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 } };

/* One 512-bit block (6.2.2); k is the eighth working variable, h. */
static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];

	for (int i = 0; i < 16; i++, p += 4)
		w[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
		       (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		k = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

static void sha256_update(struct sha256 *s, const unsigned char *p, size_t n)
{
	s->len += n;
	if (s->n) {
		size_t take = 64 - s->n < n ? 64 - s->n : n;

		memcpy(s->blk + s->n, p, take);
		s->n += take, p += take, n -= take;
		if (s->n < 64)
			return;
		sha256_block(s->h, s->blk);
		s->n = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		sha256_block(s->h, p);
	memcpy(s->blk, p, n);
	s->n = n;
}

/* Pad (5.1.1): 0x80, zeros up to 56 mod 64, the length in bits; the digest as hex into hex[65]. */
static void sha256_hex(struct sha256 *s, char hex[65])
{
	static const unsigned char pad[64] = { 0x80 };
	unsigned char bits[8];

	for (int i = 0; i < 8; i++)
		bits[i] = (unsigned char)(s->len * 8 >> (56 - 8 * i));
	sha256_update(s, pad, 1 + (119 - s->n) % 64);
	sha256_update(s, bits, 8);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08" PRIx32, s->h[i]);
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill buf with MiB number m of the stream; stored byte by byte so it is little-endian anywhere. */
static void fill(uint64_t m)
{
	uint64_t word0 = m * (BUFSIZE / 8);

	for (size_t i = 0; i < BUFSIZE / 8; i++) {
		uint64_t x = mix64((word0 + i + 1) * 0x9e3779b97f4a7c15ULL);

		for (size_t b = 0; b < 8; b++)
			buf[8 * i + b] = (unsigned char)(x >> (8 * b));
	}
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w == 0 ? (errno = EIO, -1) : -1;
		p += w, n -= (size_t)w;
	}
	return 0;
}

/* Write mib MiB of the stream to fd, hashing it; returns the byte count. */
static uint64_t write_stream(int fd, long mib, struct sha256 *s, const char *name)
{
	for (long m = 0; m < mib; m++) {
		fill((uint64_t)m);
		sha256_update(s, buf, BUFSIZE);
		if (write_all(fd, buf, BUFSIZE) < 0)
			fail("write %s after %ld MiB", name, m);
	}
	return (uint64_t)mib * BUFSIZE;
}

/* Read fd to EOF, hashing it (unless s is NULL) and copying it to outfd (if >= 0); returns the count. */
static uint64_t read_stream(int fd, const char *name, struct sha256 *s, int outfd, const char *outname)
{
	uint64_t total = 0;

	for (;;) {
		ssize_t r = read(fd, buf, BUFSIZE);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			fail("read %s after %" PRIu64 " bytes", name, total);
		if (r == 0)
			return total;
		if (s)
			sha256_update(s, buf, (size_t)r);
		if (outfd >= 0 && write_all(outfd, buf, (size_t)r) < 0)
			fail("write %s", outname);
		total += (uint64_t)r;
	}
}

/* The result line; t < 0 for gen, which is not timed. */
static void report(int fd, const char *verb, uint64_t bytes, double t, struct sha256 *s)
{
	char hex[65];

	sha256_hex(s, hex);
	if (t < 0)
		say(fd, "%s %" PRIu64 " bytes sha256 %s", verb, bytes, hex);
	else
		say(fd, "%s %" PRIu64 " bytes in %.2f s: %.1f MiB/s sha256 %s", verb, bytes, t,
		    t > 0 ? (double)bytes / 1048576.0 / t : 0.0, hex);
}

/* Connect, retrying every 0.2 s for 30 s while the far end refuses (not listening yet) or cannot
 * be reached (the guest's network is still coming up). */
static int connect_retry(const struct sockaddr_in *sa)
{
	double t0 = now();

	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct timespec pause = { 0, 200000000 };

		if (fd < 0)
			fail("socket");
		if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
			return fd;
		if ((errno != ECONNREFUSED && errno != ENETUNREACH && errno != EHOSTUNREACH && errno != ENETDOWN) ||
		    now() - t0 >= 30)
			fail("connect %s", peer);
		close(fd);
		nanosleep(&pause, NULL);
	}
}

/* Listen on sa (0.0.0.0:PORT) and accept exactly one connection. */
static int accept_one(const struct sockaddr_in *sa)
{
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), fd;

	if (lfd < 0)
		fail("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
		fail("setsockopt SO_REUSEADDR");
	if (bind(lfd, (const struct sockaddr *)sa, sizeof *sa) < 0)
		fail("bind %s", peer);
	if (listen(lfd, 1) < 0)
		fail("listen on %s", peer);
	while ((fd = accept(lfd, NULL, NULL)) < 0)
		if (errno != EINTR)
			fail("accept on %s", peer);
	close(lfd);
	return fd;
}

/* ---- the subcommands ---- */

/* gen (FILE or "-", untimed) and seqwrite (timed, fsync included). */
static int do_write(const char *path, long mib, int seq)
{
	int fd = !seq && !strcmp(path, "-") ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct sha256 s = sha256_start;
	double t0 = now(), t;
	uint64_t bytes;

	if (fd < 0)
		fail("open %s", path);
	bytes = write_stream(fd, mib, &s, path);
	if (seq && fsync(fd) < 0)
		fail("fsync %s", path);
	t = now() - t0;
	if (fd != 1 && close(fd) < 0)
		fail("close %s", path);
	/* With "-" stdout is the data, so the result line goes to stderr. */
	report(fd == 1 ? 2 : 1, seq ? "wrote" : "gen", bytes, seq ? t : -1, &s);
	return 0;
}

/* sha and seqread: the same timed read loop. */
static int do_read(const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct sha256 s = sha256_start;
	double t0 = now();
	uint64_t bytes;

	if (fd < 0)
		fail("open %s", path);
	bytes = read_stream(fd, path, &s, -1, NULL);
	report(1, "read", bytes, now() - t0, &s);
	return 0;
}

/* send/serve (mib > 0) and recv/get (mib == 0); serve and recv accept on sa, send and get connect. */
static int do_net(const struct sockaddr_in *sa, int server, long mib, const char *out)
{
	int outfd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1, fd;
	struct sha256 s = sha256_start;
	double t0, t;
	uint64_t bytes;

	if (out && outfd < 0)
		fail("open %s", out);
	fd = server ? accept_one(sa) : connect_retry(sa);
	t0 = now();
	if (mib) {
		bytes = write_stream(fd, mib, &s, peer);
		/* Half-close, then wait for the peer's close: only then has it read everything. */
		if (shutdown(fd, SHUT_WR) < 0)
			fail("shutdown %s", peer);
		read_stream(fd, peer, NULL, -1, NULL);
	} else {
		bytes = read_stream(fd, peer, &s, outfd, out);
	}
	t = now() - t0;
	close(fd);
	if (outfd >= 0 && close(outfd) < 0)
		fail("close %s", out);
	report(1, !mib ? "received" : server ? "served" : "sent", bytes, t, &s);
	return 0;
}

static int do_randread(const char *path, long secs)
{
	static _Alignas(BLK) unsigned char blk[BLK];
	int direct = 1, fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t size, blocks, n = 0, seq = 0;
	struct stat st;
	double t0, t;

	/* Some file systems (tmpfs before Linux 6.6) refuse O_DIRECT: measure the page cache then. */
	if (fd < 0 && errno == EINVAL) {
		direct = 0;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		fail("open %s", path);
	if (fstat(fd, &st) < 0)
		fail("fstat %s", path);
	size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size) < 0)
		fail("ioctl BLKGETSIZE64 %s", path);
	if ((blocks = size / BLK) == 0) {
		errno = EINVAL;
		fail("%s has no whole 4 KiB block", path);
	}
	for (t0 = now(); now() - t0 < (double)secs; n++) {
		/* Own PRNG: SplitMix64 again, on its own counter with another seed. */
		off_t off = (off_t)(mix64(++seq * 0x9e3779b97f4a7c15ULL ^ 0x5eed) % blocks * BLK);

		while (pread(fd, blk, BLK, off) < 0)
			if (errno != EINTR)
				fail("pread %s at %lld", path, (long long)off);
	}
	t = now() - t0;
	close(fd);
	say(1, "randread %" PRIu64 " reads in %.2f s: %" PRIu64 " IOPS (4 KiB, %s)", n, t,
	    (uint64_t)((double)n / t + 0.5), direct ? "O_DIRECT" : "buffered");
	return 0;
}

/* Boot time: the monotonic clock plus the time the kernel was suspended (a save or migration
 * of the domain), which the monotonic clock leaves out. */
static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A paused or saved guest sees one long gap between two 10 ms ticks; nothing else is needed. */
__attribute__((noreturn)) static void do_gapwatch(long min_ms)
{
	say(1, "watching for gaps over %ld ms", min_ms);      /* the watcher runs: pausing is seen */
	for (double prev = boottime(), t;; prev = t) {
		struct timespec tick = { 0, 10000000 };

		nanosleep(&tick, NULL);
		t = boottime();
		if ((t - prev) * 1000 > (double)min_ms)
			say(1, "gap %ld ms", (long)((t - prev) * 1000 + 0.5)); /* one write(2): no fflush */
	}
}

static int usage(void)
{
	fputs("usage: cloudio gen FILE|- MIB | sha FILE|- | send HOST PORT MIB | recv PORT [OUT]\n"
	      "             | serve PORT MIB | get HOST PORT | seqwrite FILE MIB | seqread FILE\n"
	      "             | randread FILE SECONDS | gapwatch MIN_MS\n"
	      "HOST is a dotted IPv4 address; MIB (>= 1) counts MiB of the deterministic stream\n",
	      stderr);
	return 2;
}

/* A decimal number in [min, max] (min >= 1), or -1. */
static long num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return end == s || *end || errno || v < min || v > max ? -1 : v;
}

/* HOST (dotted IPv4) and PORT into sa, and "HOST:PORT" into peer; -1 if either is bad. */
static int parse_addr(const char *host, const char *port, struct sockaddr_in *sa)
{
	long p = num(port, 1, 65535);

	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)p);
	snprintf(peer, sizeof peer, "%s:%s", host, port);
	return p < 0 || inet_pton(AF_INET, host, &sa->sin_addr) != 1 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const long maxmib = 1L << 20; /* 1 TiB */
	struct sockaddr_in sa;
	long a;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	signal(SIGPIPE, SIG_IGN); /* a vanished peer gives an EPIPE error line, not a silent death */
	if ((!strcmp(cmd, "gen") || !strcmp(cmd, "seqwrite")) && argc == 4 && (a = num(argv[3], 1, maxmib)) > 0)
		return do_write(argv[2], a, cmd[0] == 's');
	if ((!strcmp(cmd, "sha") || !strcmp(cmd, "seqread")) && argc == 3)
		return do_read(argv[2]);
	if (!strcmp(cmd, "send") && argc == 5 && !parse_addr(argv[2], argv[3], &sa) &&
	    (a = num(argv[4], 1, maxmib)) > 0)
		return do_net(&sa, 0, a, NULL);
	if (!strcmp(cmd, "serve") && argc == 4 && !parse_addr("0.0.0.0", argv[2], &sa) &&
	    (a = num(argv[3], 1, maxmib)) > 0)
		return do_net(&sa, 1, a, NULL);
	if (!strcmp(cmd, "recv") && (argc == 3 || argc == 4) && !parse_addr("0.0.0.0", argv[2], &sa))
		return do_net(&sa, 1, 0, argv[3]); /* argv[argc] is NULL: no OUT */
	if (!strcmp(cmd, "get") && argc == 4 && !parse_addr(argv[2], argv[3], &sa))
		return do_net(&sa, 0, 0, NULL);
	if (!strcmp(cmd, "randread") && argc == 4 && (a = num(argv[3], 1, 86400)) > 0)
		return do_randread(argv[2], a);
	if (!strcmp(cmd, "gapwatch") && argc == 3 && (a = num(argv[2], 1, 86400000)) > 0)
		do_gapwatch(a);
	return usage();
}
