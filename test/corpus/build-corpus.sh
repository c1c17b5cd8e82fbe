#!/bin/sh
# Build the real-guest corpus from Debian packages, into $PVSHIM_CACHE/corpus/:
#   vmlinuz               Debian's Linux (linux-image-amd64's versioned package): a 64-bit PV guest
#   vmlinuz-bzip2, -lzo, -zstd  the same bzImage with its payload recompressed as CONFIG_KERNEL_BZIP2,
#                         _LZO and _ZSTD would have built it (repack-kernel.py): Debian builds only xz
#   build-initrd.cpio.gz  the same with Debian's tcc and make, glibc and its headers, and the C
#                         project of buildtree.py: pvcheck.mode=buildbench builds it (buildbench.sh)
#   linux-initrd.cpio.gz  busybox initramfs whose /init (init.sh) runs self-checks (pvcheck.c):
#                         CHECK xen|forkexec|tmpfs|anonmem|sleep|pinned|vcpus ok|FAIL <detail>,
#                         then RESULT PASS|FAIL and poweroff -f. Kernel command line:
#                         console=hvc0 rdinit=/init pvcheck.vcpus=N  (N = the vCPUs the guest should see);
#                         pvcheck.mode=flushbench [pvcheck.scale=S] runs flushbench.c's workload instead
#                         (test/bench/flush)
#   pvgrub-linux.elf      PV GRUB x86_64-xen with a memdisk (grub-linux.cfg, vmlinuz, initrd) that
#                         boots that Linux with console=hvc0 rdinit=/init (no vCPU count: the vcpus
#                         check then compares online with possible vCPUs)
#   pvgrub32-smoke.elf    PV GRUB i386-xen (32-bit PAE PV) printing a marker, RESULT PASS, then halt
#   cloud-initrd.cpio.gz  the cloud guest's initramfs (cloud-initramfs.sh): loads Debian's
#                         xen-blkfront, xen-netfront and ext4 modules, mounts root=/dev/xvda, switches
#   cloud-root.img.gz     its root disk: ext4, busybox, cloudio, e2fsck, /sbin/init = cloud-init.sh
#                         (the checks), /sbin/poweroff and reboot = cloud-halt.sh
#   cloud-data.img.gz     a small second ext4 disk (xvdb) for fsck -n
#   cloudio               cloudio.c, static: the guest's and dom0's end of the disk and network checks
#                         Boot: console=hvc0 root=/dev/xvda (run-guest --guest cloud, --l0 xen only)
#   stamp                 key of the inputs (files in test/corpus, common.sh, package versions)
# Rebuilt only when an input changes, in a temporary directory, then renamed into place.
# Needs: apt (for apt-get download), grub-common, grub-xen-bin, cpio, gcc, libc6-dev, e2fsprogs. No root needed
# (the initramfs' /dev/console is written as a raw cpio entry).
set -eu
. "$(dirname "$0")/../lib/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
	cat <<EOF
usage: ${0##*/} [--force] [--help]
Build the real-guest corpus (Debian Linux PV kernel, self-checking busybox initramfs, PV GRUB
x86_64 and i386 images) into $PVSHIM_CACHE/corpus/ (\$PVSHIM_CACHE/corpus).
Silent and quick when everything is up to date.
  --force   rebuild even if the stamp says the corpus is up to date
  --help    this text
Boot the Linux guest with: console=hvc0 rdinit=/init pvcheck.vcpus=N
EOF
}

force=0
for a in "$@"; do
	case $a in
	--help | -h) usage; exit 0 ;;
	--force) force=1 ;;
	*) usage >&2; exit 2 ;;
	esac
done

OUT=$PVSHIM_CACHE/corpus
OUTPUTS="vmlinuz vmlinuz-bzip2 vmlinuz-lzo vmlinuz-zstd linux-initrd.cpio.gz build-initrd.cpio.gz pvgrub-linux.elf pvgrub32-smoke.elf cloud-initrd.cpio.gz
 cloud-root.img.gz cloud-data.img.gz cloudio"
TMPFS_MIB=4                          # size of the tmpfs check's file
BUILD_PKGS="tcc make libc6 libc6-dev linux-libc-dev"   # the build workload's toolchain
CLOUD_DATA_MIB=64                    # the cloud guest's disk check writes this much
CLOUD_NET_MIB=32                     # and sends this much each way
# the cloud initramfs' modules, dependencies first (modinfo depends=)
CLOUD_MODULES="lib/crc16 crypto/crc32c_generic fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4
 drivers/block/xen-blkfront drivers/net/xen-netfront"
GRUB_MODS_COMMON="memdisk tar normal configfile echo test halt reboot ls cat minicmd"

installed_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || true; }

KPKG=$(kernel_pkg)
[ -n "$KPKG" ] || die "cannot resolve linux-image-amd64 to a kernel package (apt-get update?)"
KVER=${KPKG#linux-image-}
for p in grub-common grub-xen-bin cpio gcc libc6-dev e2fsprogs; do
	[ -n "$(installed_version "$p")" ] || die "package $p is not installed (apt-get install $p)"
done
versions=$(
	# the candidates apt would download (what fetch_deb fetches), in one apt-cache call
	apt-cache policy "$KPKG" busybox-static e2fsck-static $BUILD_PKGS | awk '/^[^ ]/ { p = $1; sub(":$", "", p) }
		/^ *Candidate:/ { print p, $2 }'
	for p in grub-common grub-xen-bin libc6-dev e2fsprogs; do echo "$p $(installed_version "$p")"; done
	echo "gcc $(gcc -dumpfullversion)"
)
key=$(
	{
		cd "$HERE"
		for f in $(find . -type f ! -name '*.md' ! -name '*~' ! -name '.*' | LC_ALL=C sort); do
			echo "== $f"; cat "$f"
		done
		echo "== common.sh"; cat ../lib/common.sh
		echo "== packimage.py"; cat ../guests/lib/packimage.py
		echo "== versions"; echo "$versions"
	} | sha256sum | cut -c1-16
)

uptodate=1
[ $force = 0 ] && stamp_ok "$OUT/stamp" "$key" || uptodate=0
for f in $OUTPUTS; do [ -s "$OUT/$f" ] || uptodate=0; done
[ $uptodate = 1 ] && exit 0

t0=$(date +%s)
say "building the corpus in $OUT (key $key)"
mkdir -p "$OUT"
rm -f "$OUT/stamp"
tmp=$(mktemp -d "$PVSHIM_CACHE/.corpus.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# ---- 1. the kernel: only boot/vmlinuz-* and boot/config-* out of the 70 MB .deb ----
kdeb=$(fetch_deb "$KPKG")
say "extracting vmlinuz-$KVER from ${kdeb##*/}"
mkdir -p "$tmp/k"
dpkg-deb --fsys-tarfile "$kdeb" | tar -xf - -C "$tmp/k" "./boot/vmlinuz-$KVER" "./boot/config-$KVER"
[ -s "$tmp/k/boot/vmlinuz-$KVER" ] || die "no boot/vmlinuz-$KVER in $kdeb"
[ "$(dd if="$tmp/k/boot/vmlinuz-$KVER" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ] ||
	die "boot/vmlinuz-$KVER is not a bzImage"
for opt in XEN_PV XEN_PV_SMP HVC_XEN XEN_SYS_HYPERVISOR DEVTMPFS TMPFS RD_GZIP BLK_DEV_INITRD; do
	grep -qx "CONFIG_$opt=y" "$tmp/k/boot/config-$KVER" || die "$KPKG lacks CONFIG_$opt=y"
done
cp "$tmp/k/boot/vmlinuz-$KVER" "$tmp/vmlinuz"
for f in bzip2 lzo zstd; do
	say "repacking vmlinuz with a $f payload"
	python3 "$HERE/repack-kernel.py" "$tmp/vmlinuz" $f "$tmp/vmlinuz-$f"
done

# ---- 2. pvcheck, the static check helper ----
say "compiling pvcheck.c"
gcc -static -O2 -Wall -Wextra -Werror -s -o "$tmp/pvcheck" "$HERE/pvcheck.c"
gcc -static -O2 -Wall -Wextra -Werror -s -pthread -o "$tmp/flushbench" "$HERE/flushbench.c"
gcc -static -O2 -Wall -Wextra -Werror -s -o "$tmp/cloudio" "$HERE/cloudio.c"
tmpfs_sha=$("$tmp/pvcheck" gen - $TMPFS_MIB | sha256sum | cut -d' ' -f1)

# ---- 3. the initramfs ----
say "building linux-initrd.cpio.gz"
bdeb=$(fetch_deb busybox-static)
mkdir -p "$tmp/bb"
dpkg-deb --fsys-tarfile "$bdeb" | tar -xf - -C "$tmp/bb" ./bin/busybox
# busybox_tree DIR [SKIP...]: a root with busybox and its applet links (except the SKIP paths)
busybox_tree() {
	_r=$1
	shift
	mkdir -p "$_r/bin" "$_r/sbin" "$_r/usr/bin" "$_r/usr/sbin" "$_r/etc" "$_r/dev" "$_r/proc" "$_r/sys" \
		"$_r/tmp" "$_r/root"
	cp "$tmp/bb/bin/busybox" "$_r/bin/busybox"
	chmod 755 "$_r/bin/busybox"
	for _a in $("$_r/bin/busybox" --list-full); do
		case " $* " in *" $_a "*) continue ;; esac
		[ "$_a" = bin/busybox ] || [ -e "$_r/$_a" ] || ln -s /bin/busybox "$_r/$_a"
	done
	[ -L "$_r/bin/sh" ] && [ -L "$_r/usr/bin/sha256sum" ] || die "busybox lacks sh or sha256sum"
}

# A newc entry written by hand: the device node dev/console (char 5:1) needs no root or mknod.
newc_entry() { # name mode rdevmajor rdevminor
	_n=$(($(printf %s "$1" | wc -c) + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
		0 "$2" 0 0 1 0 0 0 0 "$3" "$4" $_n 0 "$1"
	_pad=$(((4 - (110 + _n) % 4) % 4))
	[ $_pad = 0 ] || printf '\0\0\0' | head -c $_pad
}

# initramfs DIR OUT.gz: DIR as a reproducible newc archive, then a second one (the kernel unpacks
# concatenated archives) with dev/console, gzipped.
initramfs() {
	find "$1" -exec touch -h -d @0 {} +
	{
		(cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort |
			cpio -o -H newc -R 0:0 --reproducible --quiet)
		newc_entry dev/console $((0020600)) 5 1
		newc_entry TRAILER!!! 0 0 0
	} | gzip -9n >"$2"
}

r=$tmp/root
busybox_tree "$r"
[ -L "$r/sbin/poweroff" ] || die "busybox lacks poweroff"
cp "$tmp/pvcheck" "$tmp/flushbench" "$r/bin/"
cp "$HERE/init.sh" "$r/init"
chmod 755 "$r/init" "$r/bin/pvcheck" "$r/bin/flushbench"
printf 'TMPFS_MIB=%s\nTMPFS_SHA256=%s\n' $TMPFS_MIB "$tmpfs_sha" >"$r/etc/pvcheck.conf"
initramfs "$r" "$tmp/linux-initrd.cpio.gz"

# ---- 3a. the build workload: that root plus Debian's tcc and make, glibc, and a C project ----
say "building build-initrd.cpio.gz (the same root with tcc, make, glibc's headers and buildtree.py's project)"
b=$tmp/build-root
cp -a "$r" "$b"
for p in $BUILD_PKGS; do dpkg-deb -x "$(fetch_deb "$p")" "$b"; done
# what a compile and a link use stays: binaries, shared libraries, headers, crt files
rm -rf "$b/usr/share" "$b/usr/lib/x86_64-linux-gnu/gconv" "$b/usr/lib/x86_64-linux-gnu/perl" "$b/etc/ld.so.conf.d"
find "$b/usr/lib/x86_64-linux-gnu" -maxdepth 1 -name '*.a' ! -name libc_nonshared.a -delete
[ -x "$b/usr/bin/tcc" ] && [ -x "$b/usr/bin/make" ] && [ -f "$b/usr/include/stdio.h" ] &&
	[ -f "$b/usr/lib/x86_64-linux-gnu/crt1.o" ] || die "the build root lacks tcc, make, stdio.h or crt1.o"
python3 "$HERE/buildtree.py" "$b/usr/src/buildtree"
# the answer the guest's build must print: the same tree built here with gcc
cp -a "$b/usr/src/buildtree" "$tmp/bt"
make -s -C "$tmp/bt" CC=gcc >/dev/null || die "buildtree.py's project does not build with gcc"
"$tmp/bt/prog" > "$b/etc/buildbench.expect" || die "buildtree.py's program failed"
cp "$HERE/buildbench.sh" "$b/bin/buildbench"
chmod 755 "$b/bin/buildbench"
initramfs "$b" "$tmp/build-initrd.cpio.gz"

# ---- 3b. the cloud guest: an initramfs with the frontends, a root disk and a data disk ----
say "building the cloud guest (initramfs with Debian's frontend modules, ext4 root and data disks)"
mkdir -p "$tmp/km"
dpkg-deb --fsys-tarfile "$kdeb" | tar -xf - -C "$tmp/km" $(for m in $CLOUD_MODULES; do
	echo "./lib/modules/$KVER/kernel/$m.ko"; done)
r=$tmp/cloud-initrd
busybox_tree "$r"
mkdir -p "$r/lib/modules"
for m in $CLOUD_MODULES; do
	cp "$tmp/km/lib/modules/$KVER/kernel/$m.ko" "$r/lib/modules/" || die "$KPKG lacks $m.ko"
	echo "${m##*/}" >>"$r/etc/modules"
done
cp "$HERE/cloud-initramfs.sh" "$r/init"
chmod 755 "$r/init"
initramfs "$r" "$tmp/cloud-initrd.cpio.gz"

edeb=$(fetch_deb e2fsck-static)
mkdir -p "$tmp/e2"
dpkg-deb --fsys-tarfile "$edeb" | tar -xf - -C "$tmp/e2" ./sbin/e2fsck.static
r=$tmp/cloud-root
busybox_tree "$r" sbin/init sbin/poweroff sbin/reboot
mkdir -p "$r/var/lib/cloud"
cp "$tmp/cloudio" "$r/bin/"
cp "$tmp/e2/sbin/e2fsck.static" "$r/sbin/e2fsck"
cp "$HERE/cloud-init.sh" "$r/sbin/init"
cp "$HERE/cloud-halt.sh" "$r/sbin/poweroff"
ln -s poweroff "$r/sbin/reboot"
chmod 755 "$r/sbin/init" "$r/sbin/poweroff" "$r/sbin/e2fsck"
cat >"$r/etc/udhcpc.script" <<'EOS'
#!/bin/sh
# udhcpc's hook: take the address dom0's udhcpd offers
case $1 in
bound | renew) ip addr flush dev "$interface"; ip addr add "$ip/${mask:-24}" dev "$interface" ;;
deconfig) ip link set "$interface" up ;;
esac
EOS
chmod 755 "$r/etc/udhcpc.script"
{
	echo "DOM0=10.0.0.1"
	echo "DATA_MIB=$CLOUD_DATA_MIB"
	echo "DATA_SHA=$("$tmp/cloudio" gen - $CLOUD_DATA_MIB 2>/dev/null | sha256sum | cut -d' ' -f1)"
	echo "NET_MIB=$CLOUD_NET_MIB"
	echo "NET_SHA=$("$tmp/cloudio" gen - $CLOUD_NET_MIB 2>/dev/null | sha256sum | cut -d' ' -f1)"
} >"$r/etc/cloud.conf"
# room for the 64 MiB file and the tools, with ext4's own overhead
mkfs.ext4 -q -F -L cloud-root -E root_owner=0:0 -d "$r" "$tmp/cloud-root.img" $((CLOUD_DATA_MIB * 2 + 32))M ||
	die "mkfs.ext4 -d of the cloud root failed"
r=$tmp/cloud-data
mkdir -p "$r/docs"
cp "$HERE/cloud-init.sh" "$HERE/cloud-halt.sh" "$r/docs/"
cp "$tmp/cloudio" "$r/"
mkfs.ext4 -q -F -L cloud-data -E root_owner=0:0 -d "$r" "$tmp/cloud-data.img" 16M ||
	die "mkfs.ext4 -d of the cloud data disk failed"
for d in root data; do
	e2fsck -n -f "$tmp/cloud-$d.img" >/dev/null 2>&1 || die "cloud-$d.img is not a clean ext4 image"
	gzip -1n <"$tmp/cloud-$d.img" >"$tmp/cloud-$d.img.gz"
done

# ---- 4. PV GRUB images, each with a ustar memdisk ----
mkmemdisk() { # dir tarfile
	(cd "$1" && find . -exec touch -h -d @0 {} + &&
		tar --format=ustar --owner=0 --group=0 --numeric-owner --sort=name -cf "$2" boot)
}
say "building pvgrub-linux.elf (PV GRUB x86_64-xen with Linux in its memdisk)"
m=$tmp/md64
mkdir -p "$m/boot/grub"
cp "$HERE/grub-linux.cfg" "$m/boot/grub/grub.cfg"
cp "$tmp/vmlinuz" "$m/boot/vmlinuz"
cp "$tmp/linux-initrd.cpio.gz" "$m/boot/initrd"
mkmemdisk "$m" "$tmp/md64.tar"
grub-mkimage -O x86_64-xen -d /usr/lib/grub/x86_64-xen -m "$tmp/md64.tar" -p '(memdisk)/boot/grub' \
	-o "$tmp/pvgrub-linux.elf" $GRUB_MODS_COMMON linux xzio gzio

say "building pvgrub32-smoke.elf (PV GRUB i386-xen)"
m=$tmp/md32
mkdir -p "$m/boot/grub"
cp "$HERE/grub32-smoke.cfg" "$m/boot/grub/grub.cfg"
mkmemdisk "$m" "$tmp/md32.tar"
grub-mkimage -O i386-xen -d /usr/lib/grub/i386-xen -m "$tmp/md32.tar" -p '(memdisk)/boot/grub' \
	-o "$tmp/pvgrub32-smoke.elf" $GRUB_MODS_COMMON

for f in pvgrub-linux.elf pvgrub32-smoke.elf; do
	readelf -n "$tmp/$f" 2>/dev/null | grep -q 'Xen' || die "$f carries no Xen ELF notes"
done

# ---- 5. into place: each output by rename, the stamp last ----
for f in $OUTPUTS; do mv -f "$tmp/$f" "$OUT/$f"; done
echo "$key" >"$tmp/stamp"
mv -f "$tmp/stamp" "$OUT/stamp"
say "corpus ready in $(($(date +%s) - t0)) s: $(cd "$OUT" && for f in $OUTPUTS; do
	printf '%s %s KiB, ' "$f" $(($(wc -c <"$f") / 1024)); done | sed 's/, $//')"
