#!/bin/sh
# scripts/deps.sh: install the Debian packages that mt needs to build, test
# and run, when some are missing. Run by `make check`, `make demo` and
# `make bench`; safe to run again (it does nothing when all are there).
#   MT_DEPS_DRY=1  only print what would be installed
set -eu

# build: compiler, make; tests: clang with the libFuzzer and sanitizer
# runtimes; tools: perf, ELF and DWARF reading, regexes, compression,
# demangling; test programs in Go and Rust, fzf for mt-symbols --pick,
# capstone for tests/ptsynth's instruction decoder, Zydis for the patch
# runtime's (plugins/patch-runtime/decode.c), both for the decoders'
# benchmark (tests/bench/decoders.c, docs/patch.md "The decoder"), strace for the tests that watch system calls (t0135,
# t1005), sqlite3 and python3 for the real programs the patch backend
# traces whole (t1204); libc6-dbg for the C library's local symbols (the
# demo's cos, an IFUNC, is traced as its implementation __cos_fma); make deb: dpkg-dev (dpkg-shlibdeps), and lintian and man-db for
# its test (t0601); uftrace, the peer make bench measures the patch
# backend against (tests/bench/60-record.sh)
PKGS="gcc g++ make clang libclang-rt-14-dev linux-perf libelf-dev libdw-dev
libpcre2-dev zlib1g-dev libiberty-dev golang-go fzf libcapstone-dev libzydis-dev
strace sqlite3 python3 libc6-dbg dpkg-dev lintian man-db uftrace"
# rustc: a rustup install on PATH counts; otherwise Debian's
command -v rustc >/dev/null 2>&1 || PKGS="$PKGS rustc"

missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -n "$missing" ] || exit 0

echo "deps: installing:$missing" >&2
if [ "${MT_DEPS_DRY:-}" = 1 ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: no apt-get here; install these packages by hand:$missing" >&2
	exit 3
fi
sudo=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: not root and no sudo; as root run: apt-get install$missing" >&2
		exit 3
	fi
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # the package list is meant to split
$sudo apt-get update -qq >&2 &&
	$sudo apt-get install -y -qq --no-install-recommends $missing >&2 || {
	echo "deps: apt-get failed; install by hand:$missing" >&2
	exit 3
}
