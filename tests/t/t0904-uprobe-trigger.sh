#!/bin/sh
# uprobe engine: --trigger stop_here, a function the program calls once, in
# its 201st call of outer(): the recording ends at that call, which is its
# last line, at the time uprobe-rec reports; it holds outer's 201 calls and
# 200 returns, work's 401 calls and returns, and nothing of what followed.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
outer=$MT_TESTBIN/progs/outer

uprobe-rec --functions '^(work|outer)$' --trigger stop_here -- "$outer" -s 200 \
	>lines 2>err || { cat err >&2; fail "uprobe-rec failed"; }
contains err "trigger stop_here hit by"
when=$(sed -n 's/.*trigger stop_here hit by [0-9/]* at \([0-9.]*\)$/\1/p' err)
[ -n "$when" ] || { cat err >&2; fail "no trigger time"; }
tail -n 1 lines >last
grep -q "probe_outer:stop_here: " last || fail "the last line is not stop_here's call"
contains last " $when: "
count() {
	grep -c " probe_outer:$1: " lines || :
}
[ "$(count outer)" -eq 201 ] || fail "$(count outer) calls of outer, expected 201"
[ "$(count outer__return)" -eq 200 ] || fail "$(count outer__return) returns of outer"
[ "$(count work)" -eq 401 ] || fail "$(count work) calls of work, expected 401"
[ "$(count work__return)" -eq 401 ] || fail "$(count work__return) returns of work"
[ "$(count stop_here)" -eq 1 ] || fail "stop_here called $(count stop_here) times"
[ "$(wc -l <lines)" -eq 1204 ] || fail "$(wc -l <lines) lines, expected 1204"
# nothing after the trigger: times never exceed its time
awk -v t="$when" '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); if ($i + 0 > t + 0) exit 1 } }' lines ||
	fail "events after the trigger"
mt-script-parse lines | mt-stacks >spans.mt
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
