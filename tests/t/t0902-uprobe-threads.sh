#!/bin/sh
# uprobe engine: uprobe-rec -p attached to a program that has only its main
# thread, which then starts three threads one after another (each calls
# outer() 300 times): all three are recorded from their first call, each
# with 300 outer and 600 work spans, named by the thread's comm.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer
target=
rec=
cleanup() {
	[ -z "$rec" ] || kill -9 "$rec" 2>/dev/null || :
	[ -z "$target" ] || kill -9 "$target" 2>/dev/null || :
}
trap cleanup EXIT

mkfifo go
"$outer" -w -t 3 <go >out &
target=$!
exec 3>go
wait_for grep -q ready out || fail "the target did not start"
[ "$(ls /proc/$target/task | wc -l)" -eq 1 ] || fail "the target has threads already"

: >err
uprobe-rec --functions '^(work|outer)$' -p "$target" >lines 2>err &
rec=$!
wait_for grep -q recording err || { cat err >&2; fail "uprobe-rec did not start"; }
echo go >&3
exec 3>&-
wait "$target" || fail "the target failed"
target=
wait "$rec" || { cat err >&2; fail "uprobe-rec failed"; }
rec=

# three threads, none the main thread, 1800 lines each
awk '{ print $2 }' lines | sort | uniq -c >threads
[ "$(wc -l <threads)" -eq 3 ] || { cat threads >&2; fail "not three threads"; }
awk '$1 != 1800 { exit 1 }' threads || { cat threads >&2; fail "not 1800 lines a thread"; }
! grep -q "^ *[0-9]* *\([0-9]*\)/\1 " threads || fail "the main thread has events"
awk '$1 != "outer" { exit 1 }' lines || fail "a thread is not named outer"

mt-script-parse lines | mt-stacks >spans.mt
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt >dump
for tid in $(awk '{ split($2, a, "/"); print a[2] }' threads); do
	o=$(grep -c " tid=$tid .*name=\"outer\"" dump) || :
	w=$(grep -c " tid=$tid .*name=\"work\"" dump) || :
	[ "$o" -eq 300 ] && [ "$w" -eq 600 ] ||
		fail "thread $tid: $o outer and $w work spans, expected 300 and 600"
done
