#!/bin/sh
# mt-record --backend sample --trigger mark --repeat 0 (issue 15): perf
# records once, its samples' ring overwritten; each of the K calls of
# mark() makes perf write the ring out (SIGUSR2, --switch-output=signal)
# while it records on, and the program's exit right after the last call
# keeps every snapshot: K of them, each with its trigger line between the
# times the program printed around the call; the work (spin, CPU time)
# done between two marks has samples: nothing is lost between two triggers
# (in the later snapshot, or in the earlier one when mt-record took it
# late: a snapshot holds what came until perf wrote it). perf's overwrite ring is read from where the last snapshot
# ended, so no sample is in two snapshots (docs/perf.md 1.6). -o DIR/
# writes snapshot-000.txt to snapshot-NNN.txt, the same snapshots.
# A snapshot's file decodes with the maps perf read from /proc as it
# opened it; one opened as the program was exiting (mt-record slower than
# the program's last 60 ms, under ASan) has none: its frames are all
# [unknown], and mt-record must say so (docs/perf.md 1.6). The marks
# are 150 ms of spin apart: under ASan mt-record took more than 60 ms to
# have perf write a snapshot, and a hit that comes after perf has ended
# with the program is folded into the last snapshot (said so).
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/marks
K=4

check_snapshots() {
	awk -v K=$K '
	function t(s) { sub(":$", "", s); split(s, p, "."); return p[1] * 1000000000 + p[2] }
	FNR == NR { at[$2] = $4; next }
	/^# mt: snapshot / { n++; if ($4 != n - 1) { print "snapshot numbered " $4 " at " n; bad = 1 } next }
	/^# mt: trigger / { hit[n] = t($4); next }
	/ cpu-clock/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { s = t($i); key = $i; break }
		if (key in seen) { print "a sample at " key " in two snapshots"; bad = 1 }
		seen[key] = 1; ins = 1; next }
	ins { sp[n, ++ns[n]] = s; ins = 0 }
	!NF { ins = 0 }
	END {
		if (n != K) { print n " snapshots, not " K; exit 1 }
		for (i = 1; i <= K; i++) {
			if (!(at[i - 1] < hit[i] && (i == K || hit[i] < at[i]))) {
				print "trigger " i - 1 " at " hit[i] ", the program called it at " at[i - 1]; bad = 1 }
			for (m = 1; m <= K; m++)
				for (j = 1; j <= ns[m]; j++)
					if (sp[m, j] > hit[i - 1] && sp[m, j] <= hit[i])
						work[i]++
			if (!work[i]) { print "no sample in spin between trigger " i - 2 " and " i - 1; bad = 1 }
		}
		exit bad
	}' "$2" "$1"
}

# check_unknown TEXT ERR: each snapshot of TEXT whose frames are all
# [unknown] ([unknown]) is named in ERR's warning, and no other
check_unknown() {
	awk '/^# mt: snapshot / { n = $4; next }
	/^\t/ { f[n]++; if ($0 ~ / \[unknown\] \(\[unknown\]\) *$/) u[n]++ }
	END { for (i in f) if (f[i] == u[i]) print i }' "$1" | sort >unknown.want
	sed -n 's/^mt-record: snapshot \([0-9]*\): perf found none of the program.s memory maps.*/\1/p' "$2" |
		sort >unknown.got
	same_file unknown.want unknown.got
	[ ! -s unknown.want ] || echo "snapshots without maps (the program was exiting): $(tr '\n' ' ' <unknown.want)"
	return 0
}

mt-record --backend sample --trigger mark --repeat 0 --command-stdout 3 -- \
	"$prog" -k $K -c 10 -s 150 3>truth.txt >s.txt 2>err || { cat err >&2; fail "mt-record failed"; }
[ "$(wc -l <truth.txt)" -eq $K ] || fail "the program printed $(wc -l <truth.txt) marks"
[ "$(grep -c 'trigger mark hit by' err)" -eq $K ] || fail "$(grep -c 'hit by' err) hits: $(cat err)"
[ "$(grep -c 'trigger armed' err)" -eq 1 ] || fail "armed more than once"
out=$(check_snapshots s.txt truth.txt) || fail "one stream: $out"
check_unknown s.txt err
[ "$(grep -c '^# mt: wallclock' s.txt)" -eq $K ] || fail "not one wallclock line a snapshot"
mt-script-parse s.txt | mt-stacks | mt-dump >s.dump
[ "$(span_count s.dump spin)" -gt 0 ] || fail "no spin span"
mt-script-parse s.txt | mt-stacks | mt-fxt -o s.fxt
fxt-check s.fxt >report 2>&1 || { cat report >&2; fail "the FXT breaks Perfetto's rules"; }

mt-record --backend sample --trigger mark --repeat 0 -o snaps/ --command-stdout 3 -- \
	"$prog" -k $K -c 10 -s 150 3>truth.txt 2>err || { cat err >&2; fail "mt-record -o snaps/ failed"; }
[ "$(ls snaps | wc -l)" -eq $K ] || fail "in snaps/: $(ls snaps)"
for i in $(seq 0 $((K - 1))); do
	contains snaps/snapshot-00$i.txt "# mt: snapshot $i "
done
cat snaps/snapshot-*.txt >all.txt
out=$(check_snapshots all.txt truth.txt) || fail "-o snaps/: $out"
check_unknown all.txt err
