#!/bin/sh
# /init of the corpus initramfs (installed by build-corpus.sh; busybox sh, PID 1).
# Runs the self-checks, one "CHECK <name> ok|FAIL <detail>" line each, then "RESULT PASS|FAIL",
# then powers off (poweroff -f: reboot(2) -> SCHEDOP_shutdown(poweroff) under Xen).
# Everything goes to /dev/console, i.e. the last console= of the kernel command line.
# /etc/pvcheck.conf (written at build time) sets TMPFS_MIB and TMPFS_SHA256.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t devtmpfs devtmpfs /dev 2>/dev/null
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# Quieter console: keep warnings and errors (WARN splats matter), drop info/notice chatter.
echo 5 >/proc/sys/kernel/printk
. /etc/pvcheck.conf

pvcheck start

# pvcheck.mode=flushbench [pvcheck.scale=N]: test/bench/flush's workload instead of the checks;
# pvcheck.mode=buildbench: its build workload (build-initrd.cpio.gz: N rounds of the build).
# pvcheck.forks=N, pvcheck.anonmib=M: a lighter (or heavier) forkexec/anonmem load than 300 and 64.
# pvcheck.timeout=S: each check's livelock alarm (default 600 s; an overcommitted L0 needs more).
for _a in $(cat /proc/cmdline); do
	case $_a in
	pvcheck.mode=*) PVCHECK_MODE=${_a#*=} ;;
	pvcheck.scale=*) PVCHECK_SCALE=${_a#*=} ;;
	pvcheck.forks=*) PVCHECK_FORKS=${_a#*=} ;;
	pvcheck.anonmib=*) PVCHECK_ANONMIB=${_a#*=} ;;
	pvcheck.timeout=*) export PVCHECK_TIMEOUT=${_a#*=} ;;
	esac
done
case ${PVCHECK_MODE:-} in
flushbench | buildbench)
	if $PVCHECK_MODE ${PVCHECK_SCALE:-}; then echo "RESULT PASS"; else echo "RESULT FAIL"; fi
	poweroff -f
	while :; do sleep 3600; done ;;
esac

fails=0
# check NAME CMD...: CMD prints the CHECK line and exits 0 (ok) or 1 (FAIL); anything else
# (crash, timeout) printed nothing, so the line is printed here.
check() {
	_name=$1
	shift
	"$@"
	_rc=$?
	case $_rc in
	0) ;;
	1) fails=$((fails + 1)) ;;
	*) echo "CHECK $_name FAIL exit status $_rc (crashed or timed out)"; fails=$((fails + 1)) ;;
	esac
}

tmpfs_check() {
	if ! mount -t tmpfs -o size=$((TMPFS_MIB * 2 + 8))m tmpfs /tmp; then
		echo "CHECK tmpfs FAIL cannot mount tmpfs on /tmp"
		return 1
	fi
	_f=/tmp/pvcheck.dat
	if ! pvcheck gen $_f "$TMPFS_MIB" 2>/dev/null; then
		echo "CHECK tmpfs FAIL cannot write $TMPFS_MIB MiB to $_f"
		return 1
	fi
	_size=$(stat -c %s $_f)
	_sum=$(sha256sum $_f | cut -d' ' -f1)
	rm -f $_f
	if [ "$_size" != $((TMPFS_MIB * 1048576)) ]; then
		echo "CHECK tmpfs FAIL $_f has $_size bytes, expected $((TMPFS_MIB * 1048576))"
		return 1
	fi
	if [ "$_sum" != "$TMPFS_SHA256" ]; then
		echo "CHECK tmpfs FAIL $TMPFS_MIB MiB file sha256 $_sum, expected $TMPFS_SHA256"
		return 1
	fi
	echo "CHECK tmpfs ok $TMPFS_MIB MiB file, sha256 $(echo "$_sum" | cut -c1-16)... as computed at build time"
}

check xen pvcheck xen
check forkexec pvcheck forkexec "${PVCHECK_FORKS:-300}"
check tmpfs tmpfs_check
check anonmem pvcheck anonmem "${PVCHECK_ANONMIB:-64}"
check sleep pvcheck sleep
check pinned pvcheck pinned
check vcpus pvcheck vcpus
# AVX only where the hypervisor offers it (standalone with --cpu-xsave; the Xen L0 here hides it)
if grep -qw avx /proc/cpuinfo; then
	check ymm pvcheck ymm
else
	echo "SKIPPED: CHECK ymm (no AVX offered; not counted as passed)"
fi

if [ $fails = 0 ]; then
	echo "RESULT PASS"
else
	echo "RESULT FAIL"
fi
sync
poweroff -f
# Not reached unless poweroff failed; PID 1 must not exit (that panics the kernel).
echo "PVCHECK poweroff -f failed"
while :; do sleep 3600; done
