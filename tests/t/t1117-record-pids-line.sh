#!/bin/sh
# mt-record -p A,B says it records both (the line named only the first),
# and with uprobes that the probes and the trigger go on the first alone.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
sleep 60 & a=$!
sleep 60 & b=$!
trap 'kill $a $b 2>/dev/null' EXIT
mt-record --backend sample -p "$a,$b" -o out.txt 2>err &
r=$!
wait_for grep -q 'recording' err || { cat err >&2; fail "no recording line"; }
kill -INT $r
wait $r || :
contains err "mt-record: recording $a, $b with sample; Ctrl+C takes the snapshot"
if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	prog=$MT_TESTBIN/progs/stopper
	"$prog" -l -u 100000 >/dev/null 2>&1 & c=$!
	"$prog" -l -u 100000 >/dev/null 2>&1 & d=$!
	trap 'kill $a $b $c $d 2>/dev/null' EXIT
	wait_mapped $c "$prog" && wait_mapped $d "$prog"
	mt-record --backend uprobe --functions '^main$' -p "$c,$d" -o out2.txt 2>err2 &
	r=$!
	wait_for grep -q 'recording [0-9]' err2 || { cat err2 >&2; fail "uprobe: no recording line"; }
	kill -INT $r
	wait $r || :
	contains err2 "mt-record: recording $c, $d with uprobe (uprobes and the trigger: the first); Ctrl+C takes the snapshot"
fi
