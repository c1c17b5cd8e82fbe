#!/bin/sh
# /sbin/init on the cloud guest's root disk (xvda, ext4; build-corpus.sh). A cloud guest's life,
# checked from inside: "CHECK <name> ok|FAIL <detail>" lines on hvc0, as the linux guest's.
# dom0's driver (test/l0/dom0/cloud-ctl) acts on the "CONSOLE-IN ready" and "CONTROL ready" lines
# and checks the dom0 side; the verdict (RESULT PASS|FAIL) comes when the toolstack powers the
# guest off (/sbin/poweroff: cloud-halt.sh), and covers every boot: failures persist on the disk.
#   boot 1: disk (64 MiB written, synced, caches dropped, read back by sha256; fsck -n of xvdb),
#           net (a DHCP address from dom0, ping, 32 MiB each way by TCP with sha256),
#           console-in (a line typed into `xl console` read back on hvc0), then the controls:
#           pause (a gap in the guest's clock), vcpu-set (a CPU goes and comes back, as udev
#           onlines it, and runs work), mem-set (MemTotal follows the balloon)
#   boot 2 (after `xl reboot`, under a new shim): persist (boot 1's file reads back), net (ping)
# cloud.mode=iobench runs test/bench/io's measurements instead ("IOBENCH <what> <value> <unit>").
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
echo 5 >/proc/sys/kernel/printk
. /etc/cloud.conf
S=/var/lib/cloud
DATA=$S/data.bin
boot=$(($(cat $S/boots 2>/dev/null || echo 0) + 1))
echo $boot >$S/boots
sync
mode=checks
for a in $(cat /proc/cmdline); do
	case $a in cloud.mode=*) mode=${a#*=} ;; esac
done
echo "CLOUD boot $boot, mode $mode, $(grep -c ^processor /proc/cpuinfo) CPUs, MemTotal $(awk '/^MemTotal/{print $2}' /proc/meminfo) kB"

# check NAME CMD...: CMD prints its CHECK line; a failure is remembered on the disk.
check() {
	_name=$1
	shift
	"$@"
	_rc=$?
	[ $_rc = 0 ] && return 0
	[ $_rc = 1 ] || echo "CHECK $_name FAIL exit status $_rc"
	echo "$_name" >>$S/fails
	sync
}

field() { sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }     # the word after " $1 " in a cloudio line

disk_check() {
	_w=$(cloudio seqwrite $DATA $DATA_MIB) || { echo "CHECK disk FAIL cannot write $DATA"; return 1; }
	sync
	echo 3 >/proc/sys/vm/drop_caches
	_r=$(cloudio seqread $DATA) || { echo "CHECK disk FAIL cannot read $DATA back"; return 1; }
	_ws=$(echo "$_w" | field sha256) _rs=$(echo "$_r" | field sha256)
	if [ "$_ws" != "$DATA_SHA" ] || [ "$_rs" != "$DATA_SHA" ]; then
		echo "CHECK disk FAIL $DATA_MIB MiB: wrote sha256 $_ws, read back $_rs, want $DATA_SHA"
		return 1
	fi
	if ! _f=$(e2fsck -n -f /dev/xvdb 2>&1); then
		echo "CHECK disk FAIL fsck -n /dev/xvdb: $(echo "$_f" | tail -2 | tr '\n' ' ')"
		return 1
	fi
	echo "CHECK disk ok $DATA_MIB MiB written, synced, caches dropped, read back (sha256 ${DATA_SHA%${DATA_SHA#????????????????}}...); fsck -n xvdb clean"
}

net_up() {
	ip link set lo up
	ip link set eth0 up || { echo "CHECK net FAIL no eth0 (netfront did not connect)"; return 1; }
	if ! udhcpc -i eth0 -n -q -t 20 -T 1 -s /etc/udhcpc.script >/tmp/dhcp.log 2>&1; then
		echo "CHECK net FAIL no DHCP answer from dom0: $(tail -1 /tmp/dhcp.log)"
		return 1
	fi
	_a=$(ip -4 -o addr show dev eth0 | awk '{print $4}')
	echo "NET eth0 $_a"
	if ! ping -c 3 -W 5 $DOM0 >/tmp/ping.log 2>&1; then
		echo "CHECK net FAIL eth0 $_a: no ping answer from dom0 $DOM0"
		return 1
	fi
	echo "NET ping $(tail -1 /tmp/ping.log)"
}

net_check() {
	net_up || return 1
	_tx=$(cloudio send $DOM0 5001 $NET_MIB) || { echo "CHECK net FAIL sending $NET_MIB MiB to dom0 $DOM0:5001"; return 1; }
	_rx=$(cloudio get $DOM0 5002) || { echo "CHECK net FAIL getting $NET_MIB MiB from dom0 $DOM0:5002"; return 1; }
	echo "NET to dom0: $_tx"
	echo "NET from dom0: $_rx"
	_s=$(echo "$_rx" | field sha256)
	if [ "$_s" != "$NET_SHA" ]; then
		echo "CHECK net FAIL $NET_MIB MiB from dom0 has sha256 $_s, want $NET_SHA"
		return 1
	fi
	echo "CHECK net ok DHCP address, ping, $NET_MIB MiB each way by TCP (dom0 checks what it got)"
}

console_check() {
	echo "CONSOLE-IN ready: type a line"
	if ! read -t 180 _line; then
		echo "CHECK console-in FAIL nothing typed on hvc0 in 180 s"
		return 1
	fi
	_line=$(echo "$_line" | tr -d '\r')
	echo "CONSOLE-IN got: $_line"
	case $_line in
	pvshim-console-*) echo "CHECK console-in ok read '$_line' on hvc0" ;;
	*) echo "CHECK console-in FAIL read '$_line', not the pvshim-console-<n> line"; return 1 ;;
	esac
}

persist_check() {
	_r=$(cloudio seqread $DATA) || { echo "CHECK persist FAIL $DATA is gone after the reboot"; return 1; }
	_s=$(echo "$_r" | field sha256)
	[ "$_s" = "$DATA_SHA" ] || { echo "CHECK persist FAIL boot 1's $DATA reads back with sha256 $_s"; return 1; }
	echo "CHECK persist ok boot 1's $DATA_MIB MiB file reads back intact under the new shim"
}

# The controls, watched from inside while dom0 drives them: each change is reported.
# A CPU that comes back present is onlined as udev does, then given work; pause shows as a gap.
# ncpus LIST: how many CPUs a sysfs CPU list ("0-2,4") names
ncpus() { echo "$1" | tr ',' '\n' | awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }'; }
watch_controls() {
	cloudio gapwatch 1500 | while read -r _l; do echo "CONTROL $_l"; done &
	_on=$(cat /sys/devices/system/cpu/online) _mem=$(awk '/^MemTotal/{print $2}' /proc/meminfo) _went=
	echo "CONTROL cpus online $_on"
	echo "CONTROL memtotal $_mem kB"
	while :; do
		sleep 0.5
		for _c in /sys/devices/system/cpu/cpu[0-9]*; do
			[ "$(cat $_c/online 2>/dev/null)" = 0 ] && echo 1 >$_c/online
		done
		_n=$(cat /sys/devices/system/cpu/online)
		if [ "$_n" != "$_on" ]; then
			echo "CONTROL cpus online $_n"
			[ "$(ncpus "$_n")" -ge "$(ncpus "$_on")" ] || _went=$_on
			if [ -n "$_went" ] && [ "$_n" = "$_went" ]; then
				_cpu=${_n##*-}
				_ran=$(taskset -c $_cpu awk '{print $39}' /proc/self/stat)
				if [ "$_ran" = "$_cpu" ]; then
					echo "CHECK vcpu-set ok cpu$_cpu went offline and came back (onlined as udev would), and ran a task"
				else
					echo "CHECK vcpu-set FAIL cpu$_cpu came back but a task pinned to it ran on cpu$_ran"
					echo vcpu-set >>$S/fails
				fi
				_went=
			fi
			_on=$_n
		fi
		_m=$(awk '/^MemTotal/{print $2}' /proc/meminfo)
		# every MiB: dom0 judges a mem-set by the last report, so a coarse step would hide
		# the balloon's last few MiB (cloud-stock failed on it twice at 345760 of 343712 kB)
		if [ $((_m - _mem)) -ge 1024 ] || [ $((_mem - _m)) -ge 1024 ]; then
			echo "CONTROL memtotal $_m kB"
			_mem=$_m
		fi
	done
}

iobench() {
	net_up || return 1
	_w=$(cloudio seqwrite $DATA $DATA_MIB) && sync && echo 3 >/proc/sys/vm/drop_caches &&
		_r=$(cloudio seqread $DATA) && _i=$(cloudio randread $DATA 10) &&
		_tx=$(cloudio send $DOM0 5001 $NET_MIB) && _rx=$(cloudio get $DOM0 5002) ||
		{ echo "IOBENCH FAIL a measurement did not run"; return 1; }
	echo "IOBENCH disk-write $(echo "$_w" | sed 's/.*: \([0-9.]*\) MiB.s.*/\1/') MiB/s"
	echo "IOBENCH disk-read $(echo "$_r" | sed 's/.*: \([0-9.]*\) MiB.s.*/\1/') MiB/s"
	echo "IOBENCH disk-randread $(echo "$_i" | sed 's/.*: \([0-9]*\) IOPS.*/\1/') IOPS"
	echo "IOBENCH net-tx $(echo "$_tx" | sed 's/.*: \([0-9.]*\) MiB.s.*/\1/') MiB/s"
	echo "IOBENCH net-rx $(echo "$_rx" | sed 's/.*: \([0-9.]*\) MiB.s.*/\1/') MiB/s"
}

if [ "$mode" = iobench ]; then
	if iobench; then echo "RESULT PASS"; else echo "RESULT FAIL"; fi
	sync
	busybox poweroff -f             # not /sbin/poweroff: that is the toolstack's (cloud-halt.sh)
elif [ $boot = 1 ]; then
	check disk disk_check
	check net net_check
	check console-in console_check
	echo "CONTROL ready (boot 1)"
	watch_controls
else
	check persist persist_check
	check net net_up && echo "CHECK net ok after the reboot: DHCP address, ping"
	echo "CONTROL ready (boot $boot)"
	watch_controls
fi
while :; do sleep 3600; done
