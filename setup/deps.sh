#!/bin/sh
# Install what building and testing the shim needs, from Debian's packages only.
# Idempotent and silent when everything is present; run by the Makefile before any
# target that needs a package. QEMU comes from bookworm-backports (10.x): bookworm's 7.2
# has TCG bugs (wrong #GP error code for user-mode `int`) that look like shim bugs.
set -eu

PKGS="build-essential libxen-dev debootstrap cpio busybox-static grub-common grub-xen-bin
      gcc-multilib xz-utils gzip lz4 zstd lzop bzip2 dpkg-dev debhelper lintian perl file binutils clang libclang-rt-14-dev ca-certificates python3 e2fsprogs"
BACKPORTS_PKGS="qemu-system-x86"
BACKPORTS_LIST=/etc/apt/sources.list.d/bookworm-backports.list

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done

qemu_ok() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 || return 1
	v=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
	[ "${v:-0}" -ge 10 ]
}

qemu_ok && [ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:${missing}$(qemu_ok || echo ' qemu-system-x86(>=10, backports)'); run as root: $0" >&2
	exit 1
fi

echo "deps: installing:${missing}$(qemu_ok || echo ' qemu-system-x86 (bookworm-backports)')"
export DEBIAN_FRONTEND=noninteractive
if ! qemu_ok && [ ! -f "$BACKPORTS_LIST" ]; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" > "$BACKPORTS_LIST"
fi
apt-get update -qq
[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
qemu_ok || apt-get install -y -qq --no-install-recommends -t bookworm-backports $BACKPORTS_PKGS >/dev/null
qemu_ok || { echo "deps: qemu-system-x86_64 >= 10 still missing after install" >&2; exit 1; }
echo "deps: done ($(qemu-system-x86_64 --version | head -1))"
