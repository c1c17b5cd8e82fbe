#!/bin/sh
# /init of the cloud guest's initramfs (build-corpus.sh): what a distribution's initramfs does for
# a Xen PV guest that boots from a PV disk. Debian's kernel has the disk and network frontends and
# ext4 as modules, so: load them (the order in /etc/modules, dependencies first), wait for the
# root= disk to appear (blkfront connects to dom0's blkback through xenstore, grants and an event
# channel: the first thing that breaks if the shim forwards them wrongly), mount it, switch to it.
export PATH=/bin:/sbin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo 5 >/proc/sys/kernel/printk

fail() {
	echo "initramfs: $*"
	echo "RESULT FAIL"
	poweroff -f
	while :; do sleep 3600; done
}

while read -r m; do
	insmod "/lib/modules/$m.ko" || fail "insmod $m failed"
done </etc/modules

root=
for a in $(cat /proc/cmdline); do
	case $a in root=*) root=${a#root=} ;; esac
done
[ -n "$root" ] || fail "no root= on the kernel command line"
i=0
while [ ! -b "$root" ]; do
	i=$((i + 1))
	[ $i -le 300 ] || fail "root disk $root did not appear in 30 s (blkfront did not connect)"
	sleep 0.1
done
mkdir -p /newroot
mount -t ext4 -o rw "$root" /newroot || fail "cannot mount $root as ext4"
mount --move /dev /newroot/dev
umount /proc /sys
exec switch_root /newroot /sbin/init
