#!/bin/sh
# SIGKILL of a recording mt-record leaves nothing behind: with the uprobe
# backend the probes are gone (work's first byte in the target's memory is
# the file's again, no uprobe event registered), the target keeps running;
# with the sample backend no perf process is left; in both cases the
# temporary directory disappears.
. "$MT_TOP/tests/lib.sh"
need_uprobes
# a copy of its own: another recorder probing the shared build's stopper
# (a test run beside this one) must not show in work's first byte
cp "$MT_TESTBIN/progs/stopper" ./stopper
prog=$PWD/stopper
mkdir tmp
export TMPDIR="$PWD/tmp"

"$prog" -l -u 200 >/dev/null &
pid=$!
wait_mapped $pid "$prog"
trap 'kill $pid 2>/dev/null || true' EXIT
work=$(mt-symbols --exact work "$prog" | cut -f1)
bias=$(mt-symbols -p "$pid" --exact work | cut -f2)
[ -n "$work" ] && [ -n "$bias" ] || fail "work not found"
off=
readelf -lW "$prog" | awk '$1 == "LOAD" { print $2, $3, $5 }' >loads
while read -r o v f; do
	if [ $((work)) -ge $((v)) ] && [ $((work)) -lt $((v + f)) ]; then
		off=$((work - v + o))
	fi
done <loads
[ -n "$off" ] || fail "work is in no LOAD segment"
file_byte() { od -An -tx1 -j "$1" -N1 "$prog" | tr -d ' '; }
mem_byte() { dd if=/proc/$pid/mem bs=1 skip=$(($1)) count=1 iflag=skip_bytes 2>/dev/null | od -An -tx1 | tr -d ' '; }
# uprobe events of our program in tracefs (others' come and go beside us)
events() { cat /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events 2>/dev/null | grep -cF "$prog" || :; }
ev0=$(events)

: >err # no "recording" from before: the waits below read it
mt-record --backend uprobe --functions '^(work|outer)$' -p "$pid" >rec.txt 2>err &
rec=$!
wait_for grep -qs recording err || fail "mt-record did not start: $(cat err)"
[ "$(mem_byte "$bias")" = cc ] || fail "work is not probed (int3): $(mem_byte "$bias")"
kill -KILL $rec
wait $rec 2>/dev/null || true
wait_for sh -c "[ \"\$(dd if=/proc/$pid/mem bs=1 skip=$((bias)) count=1 iflag=skip_bytes 2>/dev/null | od -An -tx1 | tr -d ' ')\" != cc ]" ||
	fail "a probe is left in the target"
[ "$(mem_byte "$bias")" = "$(file_byte "$off")" ] || fail "work's first byte is not the file's"
[ "$(events)" = "$ev0" ] || fail "uprobe events left in tracefs"
kill -0 "$pid" || fail "the target died"
wait_for sh -c '[ -z "$(ls tmp)" ]' || fail "left in TMPDIR: $(ls tmp)"

# a perf process recording into our TMPDIR (Debian's perf is a script
# that execs perf_VERSION: its command line says what it is)
perf_running() {
	pgrep -f "record -o $PWD/tmp/" >/dev/null
}

# sample: perf dies with mt-record
: >err # no "recording" from before: the waits below read it
mt-record --backend sample -p "$pid" >rec.txt 2>err &
rec=$!
wait_for grep -qs recording err || fail "sample: mt-record did not start: $(cat err)"
perf_running || fail "no perf record running"
kill -KILL $rec
wait $rec 2>/dev/null || true
i=0
while perf_running && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
perf_running && fail "perf is left running"
wait_for sh -c '[ -z "$(ls tmp)" ]' || fail "left in TMPDIR: $(ls tmp)"
kill -0 "$pid" || fail "the target died"

# SIGKILL leaves no temporary beside -o's file (it has no name until the
# end: O_TMPFILE), and the file as it was
mkdir kd
echo old >kd/t.mt
mt-record --backend patch -o kd/t.mt -- "$MT_TESTBIN/progs/stopper" -l >/dev/null 2>kd.err &
rec=$!
wait_for grep -q '^mt-record: recording' kd.err || { kill $rec; fail "patch: not recording"; }
kill -9 $rec
wait $rec 2>/dev/null || :
pkill -f "$MT_TESTBIN/progs/stopper -l" || :
[ "$(ls -A kd)" = t.mt ] || fail "SIGKILL left: $(ls -A kd)"
[ "$(cat kd/t.mt)" = old ] || fail "SIGKILL changed the -o file"
