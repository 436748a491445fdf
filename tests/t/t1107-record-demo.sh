#!/bin/sh
# make demo's script on this machine: it traces the demo program with the
# best backend here and writes demo.fxt, which imports without problems
# (fxt-check) and holds the demo's request handlers; and the sample backend
# with a trigger (the demo calls the stop indicator after request 149).
. "$MT_TOP/tests/lib.sh"
BUILD=$(dirname "$MT_BIN")
[ -x "$BUILD/tests/progs/demo" ] || fail "the demo program is not built"
# demo.sh writes into BUILD/demo: a build of our own (links to the tools)
# so that a run beside this one, or make demo, writes elsewhere
mkdir b
ln -s "$BUILD/bin" "$BUILD/tests" b/
BUILD=$PWD/b
sh "$MT_TOP/scripts/demo.sh" "$BUILD" >demo.out 2>&1 || { cat demo.out >&2; fail "demo.sh failed"; }
[ -s demo.fxt ] || fail "no demo.fxt"
fxt-check demo.fxt >check || { cat check >&2; fail "demo.fxt does not check"; }
contains check "problems: none"
# one thread: the wall-clock mark is on the program's track, not its own
contains check " 1 threads;"
contains demo.out "Wrote demo.fxt: open https://ui.perfetto.dev"
contains demo.out "where the time went (mt-report"
grep -q '^ *total  *self  *calls  *min  *median  *p99  *max  function$' demo.out ||
	fail "no mt-report table in the demo's output"
fxt-check --names demo.fxt >names 2>/dev/null || true
grep -q handle_request names || grep -q handle_request "$BUILD/demo/demo.perf.txt" ||
	fail "no handle_request in the demo's trace"
# without Intel PT on x86-64, the patch backend: the cos calls through the
# dlopened libm too (as an IFUNC, its implementation)
if grep -q 'with the patch backend' demo.out; then
	grep -q ' __cos_' demo.out || fail "no cos calls in the demo's trace"
fi

# sample + trigger: the trigger line stands in time order among the
# samples (the uprobe's and perf's clocks are both CLOCK_MONOTONIC)
mt-record --backend sample --frequency 10000 --trigger . -- "$BUILD/tests/progs/demo" \
	>s.txt 2>err || { cat err >&2; fail "sample with a trigger failed"; }
contains err "trigger magic_trace_stop_indicator hit by"
t=$(sed -n 's/^# mt: trigger \([0-9.]*\) .*/\1/p' s.txt)
[ -n "$t" ] || fail "no trigger line"
awk -v t="$t" '
/^# mt: trigger / { seen = 1; next }
/^[^#[:space:]].* [0-9]+\.[0-9]+: / {
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { x = $i; sub(":", "", x) }
	n++
	if (!seen && x + 0 > t + 0) { print "sample at " x " before the trigger line (" t ")" > "/dev/stderr"; bad = 1 }
	if (seen && x + 0 <= t + 0) { print "sample at " x " after the trigger line (" t ")" > "/dev/stderr"; bad = 1 }
}
END { exit bad || !n || !seen }' s.txt || fail "the trigger line is not in time order among the samples"
