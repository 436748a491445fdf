#!/bin/sh
# mt-record --backend sample on a program that spends its time in work:
# the sampled stacks become work spans inside outer spans; from the start
# of a command and attached with -p; -i decodes the kept perf.data to the
# same text.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/stopper

mt-record --backend sample --frequency 5000 --keep kept -- "$prog" -n 2000000 >s.txt 2>err ||
	{ cat err >&2; fail "mt-record failed"; }
contains s.txt "# mt: wallclock "
mt-script-parse s.txt | mt-stacks | mt-dump >s.dump
[ "$(span_count s.dump work)" -gt 0 ] || fail "no work span"
[ "$(span_count s.dump outer)" -gt 0 ] || fail "no outer span"
awk '/ SPAN / && /name="work"/ && / depth=0 /' s.dump | grep -q . && fail "work at depth 0: no callers?"
[ -s kept/perf.data ] || fail "--keep kept no perf.data"
mt-record -i kept/perf.data >d.txt
grep -v '^# mt: ' s.txt | vdso_norm /dev/stdin >s.perf
vdso_norm d.txt >d.norm
same_file s.perf d.norm

"$prog" -l >/dev/null &
pid=$!
wait_mapped $pid "$prog"
trap 'kill $pid 2>/dev/null || true' EXIT
: >err # no "recording" from before: the waits below read it
mt-record --backend sample --frequency 2000 -p "$pid" >p.txt 2>err &
rec=$!
wait_for grep -qs recording err || fail "did not start: $(cat err)"
sleep 0.5
kill -INT $rec
wait $rec || fail "mt-record -p exited $?"
mt-script-parse p.txt | mt-stacks | mt-dump >p.dump
[ "$(span_count p.dump work)" -gt 0 ] || fail "-p: no work span"
kill -0 $pid || fail "the target died"
