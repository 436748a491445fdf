# Benchmark section, sourced by tests/bench/run in a subshell: the patch
# runtime's instruction decoder (docs/patch.md, "The decoder"; issue 29).
# BUILD/tests/decoders (tests/bench/decoders.c) decodes every function of
# libc, Debian's python3 and the newest libLLVM with capstone 4 (as patch.c does:
# detail on; and without detail) and Zydis 4 (full; instruction only;
# minimal mode), compares their lengths, relative branches and
# rip-relative displacements, and times them (best of 5 runs). Reported:
# functions fully decoded, undecodable instructions and ns per function
# per decoder; the disagreements counted per file. Baseline: capstone
# with detail, what patch.c runs today.
# shellcheck shell=sh disable=SC2034,SC2154
set -u
dec=$BENCH_TESTBIN/decoders
[ -x "$dec" ] || { echo "== decoders: $dec not built, skipped"; exit 0; }
files=
for f in /lib/x86_64-linux-gnu/libc.so.6 "$(readlink -f /usr/bin/python3)" \
	"$(printf '%s\n' /usr/lib/x86_64-linux-gnu/libLLVM-*.so.1 | sort -V | tail -n 1)"; do
	[ -n "$f" ] && [ -f "$f" ] && files="$files $f"
done
[ -n "$files" ] || { echo "== decoders: no file to decode, skipped"; exit 0; }

echo "== decoders: capstone 4 and Zydis 4 on every function ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1))"
# shellcheck disable=SC2086 # the file list is meant to split
"$dec" $files >"$BENCH_TMP/decoders" || exit 1
# the table, then per file the counts without their examples
grep -v '^  [^ ]' "$BENCH_TMP/decoders"
awk '$3 == "capstone," && $4 == "detail" { f = $1; cs = $(NF - 1) }
	$2 == "Zydis," && $3 == "instruction" {
		printf "%s: Zydis (instruction) takes %.2fx capstone (detail)'"'"'s time per function\n",
			f, $(NF - 1) / cs }' "$BENCH_TMP/decoders"
