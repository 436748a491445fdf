#!/bin/sh
# Simulated traces with everything at once (decode errors that lose
# branches, syscalls, interrupts, many threads, frames from before the
# trace): mt-stacks, with and without spreading, writes spans that break
# none of Perfetto's nesting rules, and every thread's spans are closed.
# (Under make check this also runs with ASan and UBSan.)
. "$MT_TOP/tests/lib.sh"

for args in "--seed 18 --threads 1 --start-depth 4" "--seed 18 --threads 8 --start-depth 4" \
	"--seed 1 --threads 3 --start-depth 4"; do
	# shellcheck disable=SC2086
	gen-perf-script --lines 40000 $args | mt-script-parse >in.mt
	errors=$(mt-dump in.mt | grep -c ' ERROR ' || true)
	[ "$errors" -gt 0 ] || fail "$args: the simulation made no decode errors"
	for opt in "" --no-spread; do
		# shellcheck disable=SC2086
		mt-stacks $opt in.mt >out.mt 2>err || { cat err >&2; fail "$args $opt: exit"; }
		spans-check out.mt >check 2>&1 || { cat check >&2; fail "$args $opt: spans-check"; }
		gaps=$(mt-dump out.mt | grep -c ' SPAN .*kind=gap' || true)
		[ "$gaps" -eq "$errors" ] || fail "$args $opt: $gaps gaps for $errors errors"
	done
done
