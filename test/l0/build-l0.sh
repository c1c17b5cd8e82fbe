#!/bin/sh
# Build (once, cached) everything the real-Xen-L0 test bed boots in QEMU:
#   $PVSHIM_CACHE/l0/xen.elf      Debian's Xen 4.17 hypervisor, as a multiboot ELF for `qemu -kernel`
#   $PVSHIM_CACHE/l0/vmlinuz      Debian's Linux, used as dom0 and as the PV guest kernel
#   $PVSHIM_CACHE/l0/rootfs.cpio  dom0 root: debootstrap minbase + xen-utils 4.17 (same build as Xen),
#                                 with the block and network backends (blkback, netback, a bridge)
#   $PVSHIM_CACHE/l0/stock-shim   Debian's xen-shim from that xen-utils build: our oracle and rival
# Rebuilt only when a package version or this script changes. Needs root (debootstrap, chroot).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/common.sh"

OUT=$PVSHIM_CACHE/l0
XEN_DEBS="xen-hypervisor-4.17-amd64 xen-utils-4.17 xen-utils-common xenstore-utils libxencall1
 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxenmisc4.17
 libxenstore4 libxentoolcore1 libxentoollog1"
KPKG=$(kernel_pkg)
[ -n "$KPKG" ] || die "cannot resolve linux-image-amd64 to a kernel package"

key=$( { cat "$0"; for p in $XEN_DEBS $KPKG; do echo "$p $(pkg_version "$p")"; done; } | sha256sum | cut -c1-16)
stamp_ok "$OUT/stamp" "$key" && exit 0

[ "$(id -u)" = 0 ] || die "building the dom0 root needs root (debootstrap); run as root once"
for p in $XEN_DEBS $KPKG; do fetch_deb "$p" >/dev/null; done

say "building the L0 images in $OUT (one time, about 2 minutes)"
tmp=$OUT.tmp; rm -rf "$tmp"; mkdir -p "$tmp/x"
for p in xen-hypervisor-4.17-amd64 xen-utils-4.17 $KPKG; do dpkg-deb -x "$(fetch_deb "$p")" "$tmp/x"; done
zcat "$tmp"/x/boot/xen-4.17-amd64.gz > "$tmp/xen.elf"
cp "$tmp"/x/boot/vmlinuz-* "$tmp/vmlinuz"
cp "$tmp"/x/usr/lib/xen-4.17/boot/xen-shim "$tmp/stock-shim"
kv=$(ls "$tmp/x/lib/modules")

# The Xen debs' own dependencies, minus what dom0 does not need (python3 tools, udev, ucf).
deps=$(for p in $XEN_DEBS; do dpkg-deb -f "$(fetch_deb "$p")" Depends; done | tr ',' '\n' |
	sed 's/(.*//; s/|.*//; s/:any//; s/ //g' | grep -vE '^(lib)?xen|^python3|^udev$|^ucf$|^$' | sort -u | tr '\n' ,)
say "debootstrap of the dom0 root (bookworm minbase + ${deps%,})"
root=$tmp/root
# iproute2: the bridge the guests' vifs join (vif-bridge); e2fsprogs and mount (losetup, for the
# block script's file: disks) are in minbase.
debootstrap --variant=minbase --include="${deps}busybox,kmod,iproute2" bookworm "$root" http://deb.debian.org/debian \
	> "$tmp/debootstrap.log" 2>&1 || { tail -20 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
mkdir -p "$root/tmp/debs"
for p in $XEN_DEBS; do cp "$(fetch_deb "$p")" "$root/tmp/debs/"; done
# postinst scripts complain that no hypervisor is running: expected in a chroot.
chroot "$root" sh -c 'dpkg -i --force-depends /tmp/debs/*.deb' > "$tmp/dpkg.log" 2>&1 || true
[ -x "$root/usr/lib/xen-4.17/bin/xl" ] || { tail -20 "$tmp/dpkg.log" >&2; die "xen-utils did not install into the dom0 root"; }
rm -rf "$root/tmp/debs"

# Kernel modules dom0 loads: Xen's control devices, the block and network backends with the
# loop device and the bridge they sit on, and virtio-9p for the host share.
km=$tmp/x/lib/modules/$kv/kernel
m=$root/lib/modules/$kv; mkdir -p "$m/kernel/drivers/block" "$m/kernel/drivers/net" "$m/kernel/fs" "$m/kernel/net"
cp -a "$km/drivers/xen" "$km/drivers/virtio" "$m/kernel/drivers/"
cp -a "$km/drivers/block/xen-blkback" "$km/drivers/block/loop.ko" "$m/kernel/drivers/block/"
cp -a "$km/drivers/net/xen-netback" "$m/kernel/drivers/net/"
cp -a "$km/fs/9p" "$km/fs/netfs" "$km/fs/fscache" "$m/kernel/fs/"
cp -a "$km/net/9p" "$km/net/bridge" "$km/net/802" "$km/net/llc" "$m/kernel/net/"
cp "$tmp/x/lib/modules/$kv"/modules.builtin* "$tmp/x/lib/modules/$kv/modules.order" "$m/"
chroot "$root" depmod "$kv"
(cd "$root" && rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/* \
	usr/share/doc usr/share/man usr/share/locale usr/share/info usr/share/i18n usr/share/zoneinfo)
(cd "$root" && find . | cpio -o -H newc --quiet > "$tmp/rootfs.cpio")
rm -rf "$tmp/x" "$root"
rm -rf "$OUT"; mv "$tmp" "$OUT"
echo "$key" > "$OUT/stamp"
say "L0 images ready: $(du -sh "$OUT" | cut -f1) in $OUT"
