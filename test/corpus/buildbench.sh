#!/bin/sh
# buildbench [ROUNDS]: test/bench/flush --workload build's work, run by /init when the kernel
# command line says pvcheck.mode=buildbench (build-initrd.cpio.gz only: it holds the compiler).
# Builds /usr/src/buildtree (buildtree.py's C project: 48 modules and a main) ROUNDS times with
# `make -jN CC=tcc` on a tmpfs, N the online vCPUs: a compiler process per file, as the seeds'
# `make -j` workload has. The program built must print the checksum the host's gcc build printed
# (/etc/buildbench.expect): a wrong answer is a failed run, not a fast one. Prints
#   BUILDBENCH vcpus=N rounds=R files=F wall=<s> user=<s> sys=<s> steal=<s>
# (F the files compiled, wall the builds' time; user/sys/steal from /proc/stat over the builds)
# or "BUILDBENCH FAIL <reason>"; exits 0 or 1. Around the builds it prints the EXITS-MARK lines
# the bench's exit counter windows on (as flushbench.c does: an idle window, then the work's,
# each mark followed by 2 s of quiet).
rounds=${1:-1}
case $rounds in '' | *[!0-9]*) echo "BUILDBENCH FAIL rounds must be a number"; exit 1 ;; esac
n=$(nproc)
fail() { echo "BUILDBENCH FAIL $*"; exit 1; }
up() { cut -d' ' -f1 /proc/uptime; }
ticks() { awk '/^cpu / { print $2 + $3, $4 + $7 + $8, $9 }' /proc/stat; }
quiet() { echo "EXITS-MARK $1"; sleep 2; }

grep -q " /tmp " /proc/mounts || mount -t tmpfs -o size=256m tmpfs /tmp || fail "cannot mount a tmpfs on /tmp"
rm -rf /tmp/b && cp -a /usr/src/buildtree /tmp/b || fail "cannot copy the tree"
per_round=$(ls /tmp/b/*.c | wc -l)
echo "buildbench: $rounds round(s) of make -j$n CC=tcc, $per_round files each"
quiet idle-begin
quiet idle-end
quiet build-begin
t0=$(up); k0=$(ticks)
r=0
while [ $r -lt "$rounds" ]; do
	make -C /tmp/b -s clean >/dev/null || fail "make clean"
	make -C /tmp/b -s -j"$n" CC=tcc || fail "make -j$n (round $((r + 1)))"
	r=$((r + 1))
	echo "buildbench: round $r built after $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }') s"
done
t1=$(up); k1=$(ticks)
quiet build-end
got=$(/tmp/b/prog) || fail "the program built did not run"
[ "$got" = "$(cat /etc/buildbench.expect)" ] || fail "the program built printed '$got', not '$(cat /etc/buildbench.expect)'"
files=$((rounds * per_round))
echo "$k0 $k1" | awk -v n="$n" -v r="$rounds" -v f="$files" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '{
	printf "BUILDBENCH vcpus=%d rounds=%d files=%d wall=%.2f user=%.2f sys=%.2f steal=%.2f\n",
		n, r, f, w, ($4 - $1) / 100, ($5 - $2) / 100, ($6 - $3) / 100 }'
