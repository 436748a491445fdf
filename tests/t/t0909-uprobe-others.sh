#!/bin/sh
# uprobe engine: the probes are per CPU and fire in every process running
# the probed program, but uprobe-rec -p keeps only the target's events
# (two copies of a program running, one recorded until SIGINT); SIGINT
# ends the recording with a dump and exit status 0.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer
a=
b=
rec=
cleanup() {
	for p in $rec $a $b; do kill -9 "$p" 2>/dev/null || :; done
}
trap cleanup EXIT

"$outer" -l >/dev/null &
a=$!
"$outer" -l >/dev/null &
b=$!
wait_mapped "$a" "$outer"
touch err
uprobe-rec --functions '^(work|outer)$' -p "$a" >lines 2>err &
rec=$!
wait_for grep -q recording err || { cat err >&2; fail "uprobe-rec did not start"; }
sleep 0.5
kill -INT "$rec"
wait "$rec" || { cat err >&2; fail "uprobe-rec failed after SIGINT"; }
rec=
[ "$(wc -l <lines)" -gt 1000 ] || fail "only $(wc -l <lines) lines"
# (a loss, on a loaded machine, is a line of no process: not an event)
awk -v p="$a" '/ PERF_RECORD_LOST / { next } { split($2, x, "/"); if (x[1] != p) exit 1 }' lines ||
	fail "events of another process than $a"
n=$(sed -n 's/.* \([0-9]*\) of other processes.*/\1/p' err)
[ "${n:-0}" -gt 0 ] || { cat err >&2; fail "no events of the other copy were dropped"; }
mt-script-parse lines | mt-stacks >spans.mt
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
