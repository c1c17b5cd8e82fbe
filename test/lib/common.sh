# Shared shell helpers for the test bed: cache location, progress output, stamps.
# Sourced, not executed.

PVSHIM_CACHE=${PVSHIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pvshim}
# The Xen L0's state folder (test/l0/l0). L0_SLOT=N (2-8) names a further L0 beside the first, with
# its own QEMU, dom0 and job queue: run-tests --jobs 2 runs one per core.
case "${L0_SLOT:-1}" in [1-8]) ;; *) printf '%s: error: L0_SLOT must be 1..8, not "%s"\n' "${0##*/}" "$L0_SLOT" >&2; exit 2 ;; esac
l0_run_dir() { if [ "$1" = 1 ]; then echo "$PVSHIM_CACHE/l0-run"; else echo "$PVSHIM_CACHE/l0-run-$1"; fi; }
L0_RUN=$(l0_run_dir "${L0_SLOT:-1}")

say() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Version of the package apt would download now: the candidate, or with SUITE (pkg_version PKG
# bookworm) the newest version that suite's main component offers.
pkg_version() {
	if [ -n "${2:-}" ]; then
		apt-cache madison "$1" 2>/dev/null | awk -F' [|] ' -v s=" $2/main " '
			{ split($3, a, " "); if (" " a[2] " " == s) { gsub(/ /, "", $2); print $2; exit } }'
	else
		apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p'
	fi
}

# fetch_deb PKG [SUITE]: fetch a .deb (the candidate, or SUITE's version) into $PVSHIM_CACHE/debs
# unless that exact version is already there; print its path.
fetch_deb() {
	_p=$1; _v=$(pkg_version "$_p" "${2:-}")
	[ -n "$_v" ] && [ "$_v" != "(none)" ] || die "package $_p is unknown to apt (run apt-get update?)"
	mkdir -p "$PVSHIM_CACHE/debs"
	for _f in "$PVSHIM_CACHE/debs/${_p}_"*.deb; do
		[ -f "$_f" ] && [ "$(dpkg-deb -f "$_f" Version)" = "$_v" ] && { echo "$_f"; return 0; }
	done
	say "downloading $_p $_v"
	(cd "$PVSHIM_CACHE/debs" && apt-get download -q=2 -o APT::Sandbox::User=root "$_p=$_v") >&2 ||
		die "apt-get download $_p failed"
	for _f in "$PVSHIM_CACHE/debs/${_p}_"*.deb; do
		[ -f "$_f" ] && [ "$(dpkg-deb -f "$_f" Version)" = "$_v" ] && { echo "$_f"; return 0; }
	done
	die "downloaded $_p but cannot find its .deb"
}

# The versioned kernel package linux-image-amd64 points to (e.g. linux-image-6.1.0-37-amd64).
kernel_pkg() { apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }

# stamp_ok FILE KEY: true when FILE exists and records KEY (the hash of a build's inputs).
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
