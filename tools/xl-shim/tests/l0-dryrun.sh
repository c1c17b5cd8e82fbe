#!/bin/sh
# l0-dryrun.sh: on the running test-bed L0 (test/l0/l0 start), run xl-shim check in dom0 and
# feed every converted test config to the real xl parser (xl -N create: a dry run).
# Exits non-zero if check fails to find Xen or xl rejects a converted config.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
XS=${XL_SHIM:-$TOP/build/xl-shim/xl-shim}
J=$(mktemp -d)
trap 'rm -rf "$J"' EXIT
cd "$HERE/cfg"
for f in linux-kernel pygrub odd-spacing defaults passthrough pvgrub; do
    "$XS" convert "$f.cfg" >"$J/$f.shim.cfg" 2>/dev/null
done
cp "$XS" "$J/xl-shim"
[ -f "$TOP/build/pvshim" ] && cp "$TOP/build/pvshim" "$J/pvshim"
cat >"$J/script" <<'SCRIPT'
D=$(dirname "$0"); fail=0
chmod +x $D/xl-shim
$D/xl-shim check --shim $D/pvshim; rc=$?; echo "check rc=$rc"; [ $rc -eq 0 ] || fail=1
for f in $D/*.shim.cfg; do
    if xl -N create $f >/dev/null 2>$D/err; then echo "PASS xl -N create $(basename $f)"
    else echo "FAIL xl -N create $(basename $f): $(tail -1 $D/err)"; fail=1; fi
done
exit $fail
SCRIPT
"$TOP/test/l0/l0" job "$J"
[ "$(cat "$J/status")" = "exit 0" ]
