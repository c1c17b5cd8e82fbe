#!/bin/sh
# /sbin/poweroff and /sbin/reboot of the cloud guest: what Linux runs when the toolstack writes
# control/shutdown ("poweroff" from `xl shutdown`, "reboot" from `xl reboot`; orderly_poweroff and
# orderly_reboot). Says it was asked, gives the verdict on a poweroff, and ends cleanly: sync,
# root read-only, then the reboot(2) that becomes SCHEDOP_shutdown.
exec >/dev/console 2>&1
S=/var/lib/cloud
case ${0##*/} in
reboot)
	echo "CONTROL reboot requested: control/shutdown reached /sbin/reboot"
	sync
	mount -o remount,ro /
	exec busybox reboot -f
	;;
*)
	echo "CHECK shutdown ok control/shutdown reached /sbin/poweroff"
	if [ -s $S/fails ]; then
		echo "CLOUD failed checks over $(cat $S/boots) boots: $(sort -u $S/fails | tr '\n' ' ')"
		echo "RESULT FAIL"
	else
		echo "CLOUD every check passed over $(cat $S/boots) boots"
		echo "RESULT PASS"
	fi
	sync
	mount -o remount,ro /
	exec busybox poweroff -f
	;;
esac
