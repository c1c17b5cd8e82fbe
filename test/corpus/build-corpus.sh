#!/bin/sh
# Build the real-guest corpus from Debian packages, into $PVSHIM_CACHE/corpus/:
#   vmlinuz               Debian's Linux (linux-image-amd64's versioned package): a 64-bit PV guest
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
#   stamp                 key of the inputs (files in test/corpus, common.sh, package versions)
# Rebuilt only when an input changes, in a temporary directory, then renamed into place.
# Needs: apt (for apt-get download), grub-common, grub-xen-bin, cpio, gcc, libc6-dev. No root needed
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
OUTPUTS="vmlinuz linux-initrd.cpio.gz pvgrub-linux.elf pvgrub32-smoke.elf"
TMPFS_MIB=4                          # size of the tmpfs check's file
GRUB_MODS_COMMON="memdisk tar normal configfile echo test halt reboot ls cat minicmd"

installed_version() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || true; }

KPKG=$(kernel_pkg)
[ -n "$KPKG" ] || die "cannot resolve linux-image-amd64 to a kernel package (apt-get update?)"
KVER=${KPKG#linux-image-}
for p in grub-common grub-xen-bin cpio gcc libc6-dev; do
	[ -n "$(installed_version "$p")" ] || die "package $p is not installed (apt-get install $p)"
done
versions=$(
	# the candidates apt would download (what fetch_deb fetches), in one apt-cache call
	apt-cache policy "$KPKG" busybox-static | awk '/^[^ ]/ { p = $1; sub(":$", "", p) }
		/^ *Candidate:/ { print p, $2 }'
	for p in grub-common grub-xen-bin libc6-dev; do echo "$p $(installed_version "$p")"; done
	echo "gcc $(gcc -dumpfullversion)"
)
key=$(
	{
		cd "$HERE"
		for f in $(find . -type f ! -name '*.md' ! -name '*~' ! -name '.*' | LC_ALL=C sort); do
			echo "== $f"; cat "$f"
		done
		echo "== common.sh"; cat ../lib/common.sh
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

# ---- 2. pvcheck, the static check helper ----
say "compiling pvcheck.c"
gcc -static -O2 -Wall -Wextra -Werror -s -o "$tmp/pvcheck" "$HERE/pvcheck.c"
gcc -static -O2 -Wall -Wextra -Werror -s -pthread -o "$tmp/flushbench" "$HERE/flushbench.c"
tmpfs_sha=$("$tmp/pvcheck" gen - $TMPFS_MIB | sha256sum | cut -d' ' -f1)

# ---- 3. the initramfs ----
say "building linux-initrd.cpio.gz"
bdeb=$(fetch_deb busybox-static)
mkdir -p "$tmp/bb"
dpkg-deb --fsys-tarfile "$bdeb" | tar -xf - -C "$tmp/bb" ./bin/busybox
r=$tmp/root
mkdir -p "$r/bin" "$r/sbin" "$r/usr/bin" "$r/usr/sbin" "$r/etc" "$r/dev" "$r/proc" "$r/sys" "$r/tmp" "$r/root"
cp "$tmp/bb/bin/busybox" "$r/bin/busybox"
for a in $("$r/bin/busybox" --list-full); do
	[ "$a" = bin/busybox ] || [ -e "$r/$a" ] || ln -s /bin/busybox "$r/$a"
done
[ -L "$r/bin/sh" ] && [ -L "$r/sbin/poweroff" ] && [ -L "$r/usr/bin/sha256sum" ] ||
	die "busybox lacks sh, poweroff or sha256sum"
cp "$tmp/pvcheck" "$tmp/flushbench" "$r/bin/"
cp "$HERE/init.sh" "$r/init"
chmod 755 "$r/init" "$r/bin/busybox" "$r/bin/pvcheck" "$r/bin/flushbench"
printf 'TMPFS_MIB=%s\nTMPFS_SHA256=%s\n' $TMPFS_MIB "$tmpfs_sha" >"$r/etc/pvcheck.conf"
find "$r" -exec touch -h -d @0 {} +
(cd "$r" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet) >"$tmp/initrd.cpio"

# A second newc archive (the kernel unpacks concatenated ones) with the device node
# dev/console (char 5:1), written by hand so no root or mknod is needed.
newc_entry() { # name mode rdevmajor rdevminor
	_n=$(($(printf %s "$1" | wc -c) + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
		0 "$2" 0 0 1 0 0 0 0 "$3" "$4" $_n 0 "$1"
	_pad=$(((4 - (110 + _n) % 4) % 4))
	[ $_pad = 0 ] || printf '\0\0\0' | head -c $_pad
}
{
	newc_entry dev/console $((0020600)) 5 1
	newc_entry TRAILER!!! 0 0 0
} >>"$tmp/initrd.cpio"
gzip -9n <"$tmp/initrd.cpio" >"$tmp/linux-initrd.cpio.gz"

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
