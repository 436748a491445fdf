#!/bin/sh
# mt-record --trigger mark --repeat N with more hits than N (issue 15):
# N snapshots, numbered 0 to N-1, the N-th hit's trigger line the last;
# -o DIR/ gets snapshot-000.txt to snapshot-N-1; the uprobe
# and sample backends. --dry-run shows how the pt and sample backends take
# them (perf record --switch-output=signal, SIGUSR2 and ping at each hit
# but the last, perf script on each snapshot-NNN.data), and --repeat 1 no
# switching at all (no PT here: the commands only), and takes the first
# hit alone.
. "$MT_TOP/tests/lib.sh"
prog=$MT_TESTBIN/progs/marks
N=2 K=6

for be in pt sample; do
	mt-record --dry-run --backend $be --trigger mark --repeat 3 -- "$prog" >dry.txt 2>err ||
		{ cat err >&2; fail "--dry-run $be failed"; }
	grep '^PERF_CONFIG=.* record ' dry.txt | grep -q -- ' --switch-output=signal ' ||
		fail "$be: no --switch-output=signal: $(cat dry.txt)"
	contains dry.txt "kill -USR2 PERF, then ping on CTL"
	contains dry.txt "the last: "
	grep '^PERF_CONFIG=.* script ' dry.txt | grep -q 'DIR/snapshot-NNN.data' ||
		fail "$be: perf script not on the snapshots: $(cat dry.txt)"
	mt-record --dry-run --backend $be --trigger mark -- "$prog" >one.txt 2>err ||
		{ cat err >&2; fail "--dry-run $be (one snapshot) failed"; }
	grep -q -- '--switch-output' one.txt && fail "$be: --switch-output without --repeat"
	grep -q 'USR2' one.txt && fail "$be: SIGUSR2 without --repeat"
done
mt-record --dry-run --backend pt --trigger mark --repeat 3 -- "$prog" | grep -q 'the last: snapshot and stop on CTL' ||
	fail "pt: the last snapshot is not taken on the control channel"
mt-record --dry-run --backend pt --trigger mark --repeat 0 -- "$prog" | grep '^PERF_CONFIG=.* record ' |
	grep -q -- ' --snapshot --switch-output=signal ' || fail "pt --repeat 0: not --snapshot with --switch-output"

backends=sample
[ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ] &&
	backends="uprobe sample"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
for be in $backends; do
	case $be in
	uprobe) set -- --backend uprobe --text --functions '^step$' ;;
	*) set -- --backend sample ;;
	esac
	mt-record "$@" --trigger mark --repeat $N --command-stdout 3 -- "$prog" -k $K -c 20 -s 5 \
		3>truth.txt >s.txt 2>err || { cat err >&2; fail "$be: mt-record failed"; }
	[ "$(grep -c 'trigger mark hit by' err)" -eq $N ] || fail "$be: $(grep -c 'hit by' err) hits said"
	[ "$(grep -c '^# mt: snapshot ' s.txt)" -eq $N ] || fail "$be: $(grep -c '^# mt: snapshot ' s.txt) snapshots"
	[ "$(grep -c '^# mt: trigger ' s.txt)" -eq $N ] || fail "$be: $(grep -c '^# mt: trigger ' s.txt) trigger lines"
	grep -q "^# mt: snapshot $((N - 1)) " s.txt || fail "$be: no snapshot $((N - 1))"
	# the N-th trigger line is the N-th call's
	at=$(awk -v n=$((N - 1)) '$2 == n { print $4 }' truth.txt)
	hit=$(sed -n 's/^# mt: trigger \([0-9]*\)\.\([0-9]*\) .*/\1\2/p' s.txt | tail -1)
	next=$(awk -v n=$N '$2 == n { print $4 }' truth.txt)
	[ -n "$at" ] && [ "$hit" -gt "$at" ] && { [ -z "$next" ] || [ "$hit" -lt "$next" ]; } ||
		fail "$be: the last trigger at $hit, mark $((N - 1)) at $at, the next at $next"

	rm -rf snaps
	mt-record "$@" --trigger mark --repeat $N -o snaps/ --command-stdout 3 -- "$prog" -k $K -c 20 -s 5 \
		3>truth.txt 2>err || { cat err >&2; fail "$be: mt-record -o snaps/ failed"; }
	[ "$(ls snaps)" = "$(printf 'snapshot-000.txt\nsnapshot-001.txt')" ] || fail "$be: in snaps/: $(ls snaps)"
	contains snaps/snapshot-001.txt "# mt: snapshot 1 "
done

# without --repeat: the first hit's snapshot alone, no snapshot line (a
# uprobe trigger, which reports its first hit for good, once)
mt-record --backend sample --trigger mark --trigger-via uprobe -- "$prog" -k 3 -c 20 -s 5 \
	>one.txt 2>err || { cat err >&2; fail "one snapshot: mt-record failed"; }
[ "$(grep -c '^# mt: trigger ' one.txt)" -eq 1 ] || fail "one snapshot: $(grep -c '^# mt: trigger ' one.txt) trigger lines"
grep -q '^# mt: snapshot ' one.txt && fail "one snapshot: a snapshot line"
[ "$(grep -c 'hit by' err)" -eq 1 ] || fail "one snapshot: $(grep -c 'hit by' err) hits said"
exit 0
