#!/bin/sh
# run.sh: xl-shim's host tests. convert on real-world-shaped PV configs (stdout and stderr
# against expected/), a libxlutil re-parse of every converted config, every bad-input case with
# its exit code, create with a fake xl, check on this machine. UPDATE=1 rewrites expected/.
set -u
cd "$(dirname "$0")"
XS=${XL_SHIM:?set XL_SHIM to the xl-shim binary}
RP=${REPARSE:?set REPARSE to the reparse helper}
TOP=$(cd ../../.. && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p expected "$T/tmp"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# run NAME WANT-RC ARGS...: xl-shim ARGS in cfg/; exit code, stdout and stderr must match
# expected/NAME.{out,err}; a failure must say so in exactly one stderr line.
run() {
    name=$1 want=$2
    shift 2
    (cd cfg && TMPDIR="$T/tmp" "$XS" "$@") >"$T/$name.out" 2>"$T/$name.err"
    got=$?
    sed -i "s|$T|\$T|g" "$T/$name.out" "$T/$name.err"    # temp paths: the same every run
    if [ -n "${UPDATE:-}" ]; then
        cp "$T/$name.out" "expected/$name.out"
        cp "$T/$name.err" "expected/$name.err"
    fi
    if [ "$got" -ne "$want" ]; then
        bad "$name" "exit $got, want $want: $(head -1 "$T/$name.err")"
    elif ! cmp -s "expected/$name.out" "$T/$name.out"; then
        bad "$name" "stdout differs"; diff -u "expected/$name.out" "$T/$name.out" | head -20
    elif ! cmp -s "expected/$name.err" "$T/$name.err"; then
        bad "$name" "stderr differs"; diff -u "expected/$name.err" "$T/$name.err" | head -20
    elif [ "$want" -ne 0 ] && [ "$(wc -l <"$T/$name.err")" -ne 1 ]; then
        bad "$name" "a failure must be one stderr line"
    elif [ -n "$(ls -A "$T/tmp")" ]; then
        bad "$name" "left files behind: $(ls "$T/tmp")"; rm -f "$T/tmp"/*
    else
        ok "$name"
    fi
}

# reparse NAME GUEST-MIB: the converted config (from run) parses with libxlutil, says PVH +
# shim, memory = the formula, and keeps every other setting the original had.
KEYS="name kernel ramdisk extra root cmdline firmware bootloader bootloader_args vcpus maxvcpus
      disk vif vfb on_poweroff on_reboot on_crash pci cpuid e820_host iomem vnc sdl"
reparse() {
    name=$1 mem=$2 want_mem=$(( ( ( ($2 * 1024 + 4096) * 512 + 510) / 511 + 1023) / 1024 ))
    "$RP" "cfg/$name.cfg" $KEYS >"$T/$name.orig.keys" 2>&1 &&
        "$RP" "$T/$name.out" $KEYS >"$T/$name.conv.keys" 2>&1 &&
        "$RP" "$T/$name.out" type builder pvshim memory >"$T/$name.shim.keys" 2>&1
    if [ $? -ne 0 ]; then
        bad "$name-reparse" "libxlutil does not parse it: $(cat "$T/$name.conv.keys")"
    elif ! cmp -s "$T/$name.orig.keys" "$T/$name.conv.keys"; then
        bad "$name-reparse" "settings changed"; diff -u "$T/$name.orig.keys" "$T/$name.conv.keys"
    elif [ "$(cat "$T/$name.shim.keys")" != "$(printf 'type=pvh\nbuilder=<unset>\npvshim=1\nmemory=%s' "$want_mem")" ]; then
        bad "$name-reparse" "shim settings wrong: $(cat "$T/$name.shim.keys" | tr '\n' ' ')"
    else
        ok "$name-reparse"
    fi
}

# --- convert: good configs ---
run linux-kernel 0 convert linux-kernel.cfg;   reparse linux-kernel 512
run pygrub 0 convert pygrub.cfg;               reparse pygrub 1024
run odd-spacing 0 convert odd-spacing.cfg;     reparse odd-spacing 256
run defaults 0 convert defaults.cfg;           reparse defaults 32
run passthrough 0 convert passthrough.cfg;     reparse passthrough 2048
run pvgrub 0 convert --shim /opt/pvshim/pvshim-1.0 --shim-args 'loglvl=all shim_mem=64M' pvgrub.cfg
reparse pvgrub 4096
run keep-memory 0 convert --keep-memory linux-kernel.cfg

# convert -o: same text, written whole; nothing written on failure
run output 0 convert -o "$T/written.cfg" linux-kernel.cfg
if cmp -s "$T/written.cfg" expected/linux-kernel.out; then ok output-file; else bad output-file "differs"; fi
run output-notpv 4 convert -o "$T/never.cfg" hvm.cfg
if [ ! -e "$T/never.cfg" ] && [ -z "$(ls "$T" | grep xl-shim-)" ]; then ok output-nothing; else bad output-nothing "left a file"; fi
run output-baddir 8 convert -o /nonexistent-dir/x.cfg linux-kernel.cfg

# --- convert: bad input, one line and its own exit code each ---
run missing 2 convert no-such.cfg
run directory 2 convert .
run bad-syntax 3 convert bad-syntax.cfg
run bad-list 3 convert bad-list.cfg
run bad-type 3 convert bad-type.cfg
run contradict 3 convert contradict.cfg
run bad-memory 3 convert bad-memory.cfg
run hvm 4 convert hvm.cfg
run pvh 4 convert pvh.cfg
run builder-hvm 4 convert builder-hvm.cfg

# --- command line ---
run no-args 1
run unknown-cmd 1 frobnicate
run convert-nofile 1 convert
run convert-twofiles 1 convert a.cfg b.cfg
run convert-badopt 1 convert --bogus linux-kernel.cfg
run convert-noarg 1 convert linux-kernel.cfg --shim
run help 0 --help
run help-convert 0 convert --help
run help-create 0 help create
run help-check 0 check --help
run help-stats 0 stats --help

# --- stats: decoding pages (made-up ones, and the one in our shim's image), bad input ---
python3 mkpage.py "$T/good.page" good && python3 mkpage.py "$T/live.page" live &&
    python3 mkpage.py "$T/badmagic.page" badmagic &&
    python3 mkpage.py "$T/badversion.page" badversion && python3 mkpage.py "$T/torn.page" torn &&
    python3 mkpage.py "$T/short.page" short || bad mkpage "cannot make the test pages"
run stats-page 0 stats --page "$T/good.page"
run stats-json 0 stats --json --page "$T/good.page"
run stats-live-table 0 stats --page "$T/live.page"
run stats-live 0 stats --json --page "$T/live.page"
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/stats-live.out" 2>/dev/null; then
    ok stats-json-parses
else
    bad stats-json-parses "not valid JSON"
fi
run stats-badmagic 7 stats --page "$T/badmagic.page"
run stats-badversion 7 stats --page "$T/badversion.page"
run stats-torn 8 stats --page "$T/torn.page"
run stats-short 7 stats --page "$T/short.page"
run stats-nopage 2 stats --page "$T/no-such.page"
run stats-noarg 1 stats
run stats-two 1 stats web01 web02
run stats-page-and-domain 1 stats --page "$T/good.page" web01
run stats-badopt 1 stats --bogus web01
if [ -f "$TOP/build/pvshim" ]; then
    # The note in our image must point at an initialised, valid page that says "none yet".
    if python3 mkpage.py "$T/image.page" --from-image "$TOP/build/pvshim" &&
       "$XS" stats --page "$T/image.page" >"$T/image.out" 2>&1 &&
       grep -q '^snapshot: none yet' "$T/image.out" && grep -q '^shim: pvshim ' "$T/image.out"; then
        ok stats-image
    else
        bad stats-image "$(cat "$T/image.out" 2>/dev/null)"
    fi
else
    echo "SKIPPED stats-image (build/pvshim not built)"
fi
if [ -e /dev/xen/privcmd ]; then
    echo "SKIPPED stats-noxen (this is a Xen host)"
else
    run stats-noxen 5 stats web01
fi

# --- create ---
if [ -e /dev/xen/privcmd ]; then
    echo "SKIPPED create-noxen (this is a Xen host)"
else
    run create-noxen 5 create linux-kernel.cfg
fi
cat >"$T/fake-xl" <<FAKE
#!/bin/sh
printf '%s\n' "\$@" >"$T/xl-args"
cp "\$2" "$T/xl-cfg"
exit \${FAKE_XL_RC:-0}
FAKE
chmod +x "$T/fake-xl"
export XL_SHIM_ASSUME_XEN=1
XL="$T/fake-xl" run create-fake 0 create linux-kernel.cfg -c vcpus=1
if cmp -s "$T/xl-cfg" expected/linux-kernel.out &&
   [ "$(sed 2d "$T/xl-args" | tr '\n' ' ')" = "create -c vcpus=1 " ]; then
    ok create-fake-args
else
    bad create-fake-args "xl got: $(tr '\n' ' ' <"$T/xl-args")"
fi
FAKE_XL_RC=3 XL="$T/fake-xl" run create-xl-fails 6 create linux-kernel.cfg
XL=/nonexistent/xl run create-no-xl 6 create linux-kernel.cfg
XL="$T/fake-xl" run create-syntax 3 create bad-syntax.cfg
XL="$T/fake-xl" run create-hvm 4 create hvm.cfg
unset XL_SHIM_ASSUME_XEN

# --- check ---
if [ -e /dev/xen/privcmd ]; then
    echo "SKIPPED check-noxen (this is a Xen host)"
else
    run check-noxen 5 check --shim /nonexistent/pvshim
fi
if [ -f "$TOP/build/pvshim" ]; then
    (cd cfg && "$XS" check --shim "$TOP/build/pvshim") >"$T/check.out" 2>&1
    if grep -q "this project's pvshim" "$T/check.out" && grep -q "PVH entry 0x" "$T/check.out"; then
        ok check-shim
    else
        bad check-shim "$(cat "$T/check.out")"
    fi
fi
if [ -e /dev/xen/privcmd ]; then
    run check-notelf 9 check --shim linux-kernel.cfg
else
    run check-notelf-noxen 5 check --shim linux-kernel.cfg   # no Xen outranks a bad shim
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
