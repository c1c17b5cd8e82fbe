#!/bin/sh
# Unpack (once, cached) the QEMU that runs the Xen L0: Debian bookworm's QEMU 7.2, not the
# system's QEMU 10. QEMU 10's new x86 decoder checks a `mov %crN,reg` inside an SVM guest against
# the CR0-read intercept; Xen as L0 always intercepts CR0 reads, so every CR2 read in a shim
# exits to L0, which answers from a stale copy: 0. A shim then cannot tell where a #PF was, and
# Linux dies at its first exec inside Debian's stock shim. QEMU 7.2 decodes this correctly
# (measured: test/guests/ptwr-probe and the Linux guest pass in the stock shim on 7.2, fail on 10).
# Xen's upstream fix is "x86/svm: Always sync guest CR2 on VMExit" (not in Debian's 4.17).
# Output: $PVSHIM_CACHE/l0-qemu/qemu-system-x86_64, a wrapper with the right module and data paths.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/common.sh"

OUT=$PVSHIM_CACHE/l0-qemu
PKGS="qemu-system-x86 qemu-system-common qemu-system-data seabios"
key=$( { cat "$0"; for p in $PKGS; do echo "$p $(pkg_version "$p" bookworm)"; done; } | sha256sum | cut -c1-16)
stamp_ok "$OUT/stamp" "$key" && exit 0

say "unpacking bookworm's QEMU 7.2 for the Xen L0 into $OUT"
tmp=$OUT.tmp; rm -rf "$tmp"; mkdir -p "$tmp/root"
for p in $PKGS; do dpkg-deb -x "$(fetch_deb "$p" bookworm)" "$tmp/root"; done
# Its shared libraries come from the system; install any the system's QEMU did not bring.
need=$(dpkg-deb -f "$(fetch_deb qemu-system-x86 bookworm)" Depends | tr ',' '\n' |
	sed 's/(.*//; s/|.*//; s/ //g' | grep -vE '^qemu-system-|^seabios$|^ipxe|^$' |
	while read -r p; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; done)
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || die "QEMU 7.2 needs these packages; run as root once: $need"
	say "installing QEMU 7.2's libraries: $need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
r=$OUT/root
cat > "$tmp/qemu-system-x86_64" <<WRAP
#!/bin/sh
QEMU_MODULE_DIR=$r/usr/lib/x86_64-linux-gnu/qemu exec $r/usr/bin/qemu-system-x86_64 -L $r/usr/share/qemu -L $r/usr/share/seabios "\$@"
WRAP
chmod +x "$tmp/qemu-system-x86_64"
rm -rf "$OUT"; mv "$tmp" "$OUT"
"$OUT/qemu-system-x86_64" --version | head -1 | grep -q 'version 7\.2' || die "the unpacked QEMU 7.2 does not run"
echo "$key" > "$OUT/stamp"
say "L0 QEMU ready: $("$OUT/qemu-system-x86_64" --version | head -1)"
