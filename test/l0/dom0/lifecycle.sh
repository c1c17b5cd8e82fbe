#!/bin/sh
# lifecycle.sh: sourced by dom0's guest drivers (cloud-ctl, suspend-ctl), which run beside the job's
# `xl create -F` with JOB, NAME and CON (the guest's console log) set. Gives them their CHECK
# lines (ok, fail: a failure destroys the guest and calls the driver's on_fail, if any), a reader
# of the guest's console (wait_line) and lifecycle(): the domain's life across hosts.
seen=0          # console lines already consumed by wait_line

say() { echo "$(cut -d' ' -f1 /proc/uptime) $*"; }
ok() { echo "CHECK dom0:$1 ok $2"; }
fail() {
	echo "CHECK dom0:$1 FAIL $2"
	# a Linux guest dumps its blocked tasks and every CPU's stack (xenbus's control/sysrq); our
	# shim answers an NMI with each CPU's state on the console (the stock shim ignores it)
	xl sysrq "$NAME" w >/dev/null 2>&1 && sleep 3
	xl sysrq "$NAME" l >/dev/null 2>&1 && sleep 3
	_n=$(xl vcpu-list "$NAME" 2>/dev/null | awk 'NR > 1' | wc -l)
	if [ "${_n:-0}" -gt 0 ]; then
		say "an NMI to each of its $_n vCPUs first (the shim's state report)"
		for _v in $(seq 0 $((_n - 1))); do xl trigger "$NAME" nmi "$_v" >/dev/null 2>&1; done
		sleep 3
	fi
	say "destroying $NAME after this failure"
	xl destroy "$NAME" 2>&1
	! command -v on_fail >/dev/null || on_fail
	exit 1
}

# wait_line REGEX SECS: the next console line (after those consumed) matching REGEX, in $line;
# the lines up to it are consumed. Fails after SECS. (Not in a $(...): that would lose $seen.)
wait_line() {
	_end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt "$_end" ]; do
		[ -f "$CON" ] || { sleep 0.5; continue; }   # xenconsoled has not opened it yet
		# a log started afresh (a reopened file) is read from its top
		[ "$(wc -l <"$CON")" -ge "$seen" ] || seen=0
		_hit=$(tr -d '\r' <"$CON" | tail -n +$((seen + 1)) | grep -n -m1 -E -- "$1")
		if [ -n "$_hit" ]; then
			seen=$((seen + ${_hit%%:*}))
			line=${_hit#*:}
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# The domain's life across hosts (issue 17), with the guest running: SAVES rounds of xl save to a
# file and xl restore, CHECKPOINTS of xl save -c (the guest goes on where it was), MIGRATES of
# xl migrate to this same dom0 (xl's rune, with no ssh: -s ""). After each, the guest must run
# again: its clock watcher reports the jump it saw (the downtime, from inside), and dom0 times
# the operation. The domain that lives on is watched by the daemon of the xl restore or
# migrate-receive that made it (its log: /var/log/xen/xl-NAME.log); $JOB/taken tells the create
# script, whose xl create -F ends with the first domain, to wait for us and add that log to xl's.
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v t0="$1" '{ printf "%.1f", $1 - t0 }' /proc/uptime; }
lifecycle() {
	# xl create -F stops watching at the first suspend (xl save -c too): from here the create
	# script waits for us. A checkpoint leaves the domain unwatched, so checkpoints come first
	# and a save or migration after them gives the domain a watcher again (run-guest asks one).
	touch "$JOB/taken"
	for r in $(seq "${CHECKPOINTS:-0}"); do
		t0=$(uptime_s) d0=$domid
		xl save -c "$NAME" "$JOB/save.img" >"$JOB/xl-op.txt" 2>&1 ||
			fail checkpoint "round $r: xl save -c failed: $(tail -3 "$JOB/xl-op.txt" | tr '\n' ' ')"
		_what="xl save -c $(since "$t0") s, the domain stays $d0"
		rm -f "$JOB/save.img"
		after_op checkpoint "$r" "$t0"
		[ "$domid" = "$d0" ] || fail checkpoint "round $r: domain $d0 became $domid"
	done
	for r in $(seq "${SAVES:-0}"); do
		t0=$(uptime_s)
		xl save "$NAME" "$JOB/save.img" >"$JOB/xl-op.txt" 2>&1 ||
			fail save "round $r: xl save failed: $(tail -3 "$JOB/xl-op.txt" | tr '\n' ' ')"
		ts=$(since "$t0") size=$(($(stat -c %s "$JOB/save.img") / 1048576))
		! xl domid "$NAME" >/dev/null 2>&1 || fail save "round $r: domain $NAME still there after xl save"
		t1=$(uptime_s)
		xl restore "$JOB/save.img" >"$JOB/xl-op.txt" 2>&1 ||
			fail save "round $r: xl restore failed: $(tail -3 "$JOB/xl-op.txt" | tr '\n' ' ')"
		_what="xl save $ts s ($size MiB), xl restore $(since "$t1") s"
		after_op save "$r" "$t0"
		rm -f "$JOB/save.img"
	done
	for r in $(seq "${MIGRATES:-0}"); do
		t0=$(uptime_s) d0=$domid
		# xenconsoled names a domain's log when it first sees it: the new one is NAME--incoming
		ln -sf "$CON" "/var/log/xen/console/guest-$NAME--incoming.log"
		xl migrate -s "" "$NAME" "exec xl migrate-receive" >"$JOB/xl-op.txt" 2>&1 ||
			fail migrate "round $r: xl migrate failed: $(tail -3 "$JOB/xl-op.txt" | tr '\n' ' ')"
		_what="xl migrate $(since "$t0") s"
		after_op migrate "$r" "$t0"
		[ "$domid" != "$d0" ] || fail migrate "round $r: still domain $d0 after xl migrate"
	done
}
