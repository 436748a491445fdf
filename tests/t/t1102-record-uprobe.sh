#!/bin/sh
# mt-record --backend uprobe, for real: a program calling outer 300 times,
# each calling work twice, gives exactly 300 outer and 600 work spans,
# nested, from its stream of records and from its --text through
# mt-script-parse alike; --trigger . with the stop indicator called at iteration 200 ends
# the trace there (200 and 400, and the trigger mark); --arm-after ignores
# the calls before it; a trigger in a thread started after recording began
# fires; --repeat 2 -o DIR/ writes two snapshots of one recording (the
# second still holds what led to the first); Ctrl+C before the trigger
# fires ends without a snapshot.
. "$MT_TOP/tests/lib.sh"
need_uprobes
prog=$MT_TESTBIN/progs/stopper
mkdir tmp
export TMPDIR="$PWD/tmp"

pipeline() { mt-script-parse "$1" | mt-stacks | mt-dump >"$2"; }

for out in all.mt all.txt; do
	text=
	[ "$out" = all.mt ] || text=--text
	mt-record --backend uprobe $text --functions '^(work|outer)$' -- "$prog" >$out 2>err ||
		{ cat err >&2; fail "mt-record $text failed"; }
	contains err "recording"
	contains err "done 634200" # the program's own output, kept off the trace
	pipeline $out $out.dump
	[ "$(span_count $out.dump outer)" -eq 300 ] || fail "$out: $(span_count $out.dump outer) outer spans"
	[ "$(span_count $out.dump work)" -eq 600 ] || fail "$out: $(span_count $out.dump work) work spans"
	nested $out.dump outer work 2 || fail "$out: work spans do not nest in outer spans"
done
mt-dump all.mt >all.records || fail "the stream does not read"
contains all.records 'META key="source" value="mt-record uprobe"'
contains all.records ' kind=wallclock '
contains all.txt "# mt: wallclock "
grep -q ' probe_stopper:outer: ' all.txt || fail "--text: no probe line"

# a Go program (here: one with a .gopclntab section) gets entry probes
# only, said in a warning; its calls become instants, not endless frames
mt-record --backend uprobe --functions '^(work|outer)$' -- "$MT_TESTBIN/progs/outer-go" \
	>go.mt 2>err || { cat err >&2; fail "mt-record on a Go program failed"; }
contains err "Go"
mt-dump go.mt >go.records
contains go.records 'name="entry-only" text="outer"'
grep -q 'kind=return' go.records && fail "return probes in a Go program"
pipeline go.mt go.dump
[ "$(span_count go.dump outer)" -eq 300 ] || fail "Go: $(span_count go.dump outer) outer spans"
awk '/ SPAN / && /name="outer"/ { for (i = 1; i <= NF; i++) { if ($i ~ /^start=/) s = $i; if ($i ~ /^end=/) e = $i }
	sub(/start=/, "", s); sub(/end=/, "", e); if (s != e) bad++ } END { exit bad > 0 }' go.dump ||
	fail "Go: calls are not instants"

# the trigger at iteration 200, a uprobe (t1109 tests the hardware
# breakpoints that --trigger-via auto prefers where they fire)
mt-record --backend uprobe --functions '^(work|outer)$' --trigger . --trigger-via uprobe -- \
	"$prog" -s 200 >trig.mt 2>err || { cat err >&2; fail "mt-record --trigger failed"; }
contains err "trigger armed: magic_trace_stop_indicator @ 0x"
contains err "(uprobe)"
contains err "trigger magic_trace_stop_indicator hit by"
pipeline trig.mt trig.dump
[ "$(span_count trig.dump outer)" -eq 200 ] || fail "trigger: $(span_count trig.dump outer) outer spans"
[ "$(span_count trig.dump work)" -eq 400 ] || fail "trigger: $(span_count trig.dump work) work spans"
nested trig.dump outer work 2 || fail "trigger: not nested"
grep -q ' MARK .*kind=trigger .*text="magic_trace_stop_indicator"' trig.dump ||
	fail "no trigger mark"
# the trigger's MARK the last record, but for the stop indicator's region
mt-dump trig.mt | grep -v ' STRING ' | tail -n 3 >last
head -n 1 last | grep -q ' MARK .*kind=trigger ' && sed -n 2p last | grep -q ' MARK .*kind=region ' ||
	fail "the trigger's and region's MARKs are not the last records: $(cat last)"

# FILE:LINE: the line of the indicator's call in stopper.c
line=$(grep -n 'magic_trace_stop_indicator();' "$MT_TOP/tests/progs/stopper.c" | cut -d: -f1)
mt-record --backend uprobe --functions '^outer$' --trigger "stopper.c:$line" -- \
	"$prog" -s 120 >line.txt 2>err || { cat err >&2; fail "FILE:LINE trigger failed"; }
contains err "(stopper.c:$line) @ 0x"
pipeline line.txt line.dump
[ "$(span_count line.dump outer)" -eq 120 ] || fail "FILE:LINE: $(span_count line.dump outer) outer spans"
expect_exit 1 mt-record --backend uprobe --trigger nosuch.c:3 -- "$prog" >out 2>err
contains err "no code at that line"

# a trigger in a shared library of a running process
cat >libt.c <<'C'
int lib_stop(int x) { return x + 1; }
C
cat >usel.c <<'C'
#include <unistd.h>
int lib_stop(int);
static volatile int s;
__attribute__((noinline)) void outer(int i) { s += i; }
int main(void)
{
	/* until the test says the recorder is ready */
	while (access("go", F_OK))
		usleep(10000);
	for (int i = 0; i < 100; i++) {
		outer(i);
		if (i == 60)
			s += lib_stop(i);
		usleep(1000);
	}
	return 0;
}
C
gcc -shared -fPIC -o libt.so libt.c
gcc -O1 -fno-inline -o usel usel.c -L. -lt -Wl,-rpath,"$PWD"
# go: the recorder is ready (usel waits for it)
go() { wait_for grep -q "recording $1" err || { cat err >&2; fail "$2: not recording"; }; : >go; }
rm -f go
./usel &
upid=$!
wait_mapped $upid "$PWD/libt.so"
mt-record --backend uprobe --text --functions '^outer$' --trigger lib_stop -p $upid >lib.txt 2>err &
rec=$!
go $upid "a trigger in a library"
wait $rec || { cat err >&2; fail "a trigger in a library failed"; }
contains err "trigger armed: lib_stop @ 0x"
contains err "libt.so"
[ "$(grep -c 'probe_usel:outer:' lib.txt)" -eq 61 ] || fail "library trigger: $(grep -c 'probe_usel:outer:' lib.txt) calls of outer"
wait $upid
# and probes on a library's function: its calls are spans like the rest
rm -f go
./usel &
upid=$!
wait_mapped $upid "$PWD/libt.so"
mt-record --backend uprobe --functions '^(outer|lib_stop)$' -p $upid >libf.txt 2>err &
rec=$!
go $upid "probing a library function"
wait $rec || { cat err >&2; fail "probing a library function failed"; }
contains err "probing 1 function of the shared library"
pipeline libf.txt libf.dump
[ "$(span_count libf.dump lib_stop)" -eq 1 ] || fail "$(span_count libf.dump lib_stop) lib_stop spans"
[ "$(span_count libf.dump outer)" -gt 50 ] || fail "$(span_count libf.dump outer) outer spans"
wait $upid

# --arm-after: the indicator runs at every iteration (1 ms apart); calls
# in the first 150 ms do not count
mt-record --backend uprobe --functions '^outer$' --trigger . --arm-after 150ms -- \
	"$prog" -e -u 1000 -n 2000 >arm.txt 2>err || { cat err >&2; fail "--arm-after failed"; }
pipeline arm.txt arm.dump
n=$(span_count arm.dump outer)
[ "$n" -gt 20 ] && [ "$n" -lt 1900 ] || fail "--arm-after: $n outer spans"

# a trigger in a thread that starts 300 ms after recording began
mt-record --backend uprobe --text --functions '^(work|outer)$' --trigger . --trigger-via uprobe -- \
	"$prog" -t -d 300 -s 100 >thr.txt 2>err || { cat err >&2; fail "thread trigger failed"; }
contains err "trigger magic_trace_stop_indicator hit by"
pipeline thr.txt thr.dump
[ "$(span_count thr.dump outer)" -eq 100 ] || fail "thread: $(span_count thr.dump outer) outer spans"
hit=$(sed -n 's/^# mt: trigger [0-9.]* \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' thr.txt)
set -- $hit
[ "$1" != "$2" ] || fail "the trigger fired on the main thread: $hit"

# --repeat 2: two snapshots, one file each
mt-record --backend uprobe --text --functions '^outer$' --trigger . --repeat 2 -o snaps/ -- \
	"$prog" -e -u 3000 -n 4000 >rep.out 2>err || { cat err >&2; fail "--repeat failed"; }
[ -s snaps/snapshot-000.txt ] && [ -s snaps/snapshot-001.txt ] || fail "--repeat: $(ls snaps)"
[ ! -e snaps/snapshot-002.txt ] || fail "--repeat 2 made a third snapshot"
contains snaps/snapshot-000.txt "# mt: snapshot 0 "
contains snaps/snapshot-001.txt "# mt: snapshot 1 "
t1=$(sed -n 's/^# mt: trigger \([0-9.]*\) .*/\1/p' snaps/snapshot-000.txt)
first2=$(grep -m1 'probe_stopper:outer' snaps/snapshot-001.txt | sed 's/.* \([0-9]*\.[0-9]*\): .*/\1/')
[ -n "$t1" ] && [ -n "$first2" ] || fail "--repeat: no trigger or no events"
# one recording, not two: with -o DIR/ each snapshot is the whole ring,
# so the second still holds what led to the first trigger
awk -v a="$t1" -v b="$first2" 'BEGIN { exit !(b < a) }' || fail "--repeat: second snapshot starts at $first2, after the first trigger $t1 (a new recording?)"
# again into the same directory: the earlier snapshots stay
cp snaps/snapshot-000.txt first.txt
mt-record --backend uprobe --text --functions '^outer$' --trigger . --repeat 2 -o snaps/ -- \
	"$prog" -e -u 3000 -n 4000 >rep.out 2>err || { cat err >&2; fail "--repeat again failed"; }
cmp -s first.txt snaps/snapshot-000.txt || fail "a second run replaced snapshot-000.txt"
[ -s snaps/snapshot-002.txt ] && [ -s snaps/snapshot-003.txt ] || fail "--repeat again: $(ls snaps)"
contains err "wrote snaps//snapshot-003.txt"
[ "$(ls -A snaps | wc -l)" -eq 4 ] || fail "left in snaps/: $(ls -A snaps)"
# the stream: one a snapshot, snapshot-NNN.mt, each with its MARKs
mt-record --backend uprobe --functions '^outer$' --trigger . --repeat 2 -o streams/ -- \
	"$prog" -e -u 3000 -n 4000 >rep.out 2>err || { cat err >&2; fail "--repeat (stream) failed"; }
[ "$(ls streams)" = "snapshot-000.mt
snapshot-001.mt" ] || fail "--repeat (stream): $(ls streams)"
for i in 0 1; do
	mt-dump streams/snapshot-00$i.mt >s$i.records || fail "snapshot-00$i.mt does not read"
	grep -q " MARK .*kind=snapshot .*value=$i " s$i.records || fail "snapshot $i: no snapshot MARK"
	contains s$i.records ' kind=trigger '
	grep -q ' BRANCH .*"outer"' s$i.records || fail "snapshot $i: no call of outer"
done

# Ctrl+C before the trigger: no snapshot, exit 0
"$prog" -l -u 1000 >/dev/null &
pid=$!
wait_mapped $pid "$prog"
trap 'kill $pid 2>/dev/null || true' EXIT
: >err # no "recording" from before: the waits below read it
mt-record --backend uprobe --functions '^outer$' --trigger . -p "$pid" >int.txt 2>err &
rec=$!
wait_for grep -qs recording err || fail "mt-record did not start: $(cat err)"
kill -INT $rec
wait $rec || fail "Ctrl+C with a trigger: exit $?"
contains err "interrupted before the trigger fired: no snapshot"
[ ! -s int.txt ] || fail "written without a snapshot: $(mt-dump int.txt | head -5)"
# with -o: the file is left as it was, and a directory gets no file
echo "an earlier trace" >keep.txt
for o in keep.txt snaps/; do
	: >err
	mt-record --backend uprobe --functions '^outer$' --trigger . --repeat 2 -p "$pid" -o $o 2>err &
	rec=$!
	wait_for grep -qs recording err || fail "mt-record did not start: $(cat err)"
	kill -INT $rec
	wait $rec || fail "Ctrl+C with a trigger and -o $o: exit $?"
done
[ "$(cat keep.txt)" = "an earlier trace" ] || fail "-o keep.txt: replaced without a snapshot"
[ "$(ls -A snaps | wc -l)" -eq 4 ] || fail "-o snaps/ without a snapshot: $(ls -A snaps)"
[ "$(ls -A | grep -c '^\.keep')" -eq 0 ] || fail "a temporary is left: $(ls -A)"
kill -0 $pid || fail "the target died"
[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
