#!/bin/sh
# --trigger FUNCTION --slower-than DURATION with the patch backend (issue
# 30): tests/progs/slowcall calls work() 300 times, each 1 us but calls
# 100 and 200, which take 50 ms. The snapshot ends at the return of call
# 100, exactly: the stream's last record that return, 101 work spans, the
# last the longest, its length and the trigger MARK's value (the call's
# duration) within 1% of what the program measured around the call; with
# --repeat 0 one snapshot for each slow call and none for the fast ones;
# no slow call, no hit. The uprobe backend (root) times the trigger with
# a uprobe and its return probe (the trigger's own engine; the recording
# probes it too): the same hit, the snapshot ending at that return (101
# work spans, the last the longest), a snapshot for each slow call; the
# sample backend's trigger the same; a breakpoint (--trigger-via breakpoint) cannot, and says so,
# as --slower-than without --trigger does.
. "$MT_TOP/tests/lib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "skip: the patch backend patches x86-64" >&2; exit 0; }
prog=$MT_TESTBIN/progs/slowcall

# spans STREAM: "START END" (ns) of each work span, by end
spans() {
	mt-stacks "$1" | mt-dump | awk '
	function t(s) { sub("^[a-z]*=", "", s); split(s, p, "."); return p[1] * 1000000000 + p[2] }
	/ SPAN / && /kind=function/ && /name="work"/ { printf "%.0f %.0f\n", t($3), t($4) }' |
		sort -n -k 2
}
# triggers STREAM: "TIME VALUE" of each trigger MARK
triggers() {
	mt-dump "$1" | awk '
	function t(s) { sub("^time=", "", s); split(s, p, "."); return p[1] * 1000000000 + p[2] }
	/ MARK / && / kind=trigger / { v = $0; sub(/.* value=/, "", v); sub(/ .*/, "", v); printf "%.0f %s\n", t($3), v }'
}
# within A B: A within 1% of B
within() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b / 100) }'
}

mt-record --backend patch --functions '^work$' --trigger work --slower-than 20ms -o one.mt \
	--command-stdout 3 -- "$prog" -k 100 -k 200 3>truth.txt 2>err ||
	{ cat err >&2; fail "mt-record --slower-than failed"; }
grep -q '^mt-record: trigger work hit by [0-9]*/[0-9]* at [0-9.]*: a call of [0-9.]* ms$' err ||
	fail "the hit not said: $(cat err)"
read -r _ i start end <truth.txt
[ "$i" = 100 ] || fail "the program's first slow call: $(cat truth.txt)"
want=$((end - start))
mt-dump one.mt | grep BRANCH | tail -1 | grep -q 'kind=return .*"work"' ||
	fail "the snapshot does not end at work's return"
spans one.mt >one.spans
[ "$(wc -l <one.spans)" -eq 101 ] || fail "$(wc -l <one.spans) work spans, not 101"
last=$(tail -1 one.spans | awk '{ print $2 - $1 }')
longest=$(awk '{ d = $2 - $1; if (d > m) m = d } END { print m }' one.spans)
[ "$last" = "$longest" ] || fail "the last span ($last ns) is not the longest ($longest)"
within "$last" "$want" || fail "the slow span: $last ns, the program measured $want"
set -- $(triggers one.mt)
[ $# -eq 2 ] || fail "trigger MARKs: $*"
within "$2" "$want" || fail "the trigger MARK's duration: $2 ns, the program measured $want"
[ "$1" -ge "$start" ] && [ "$1" -le "$end" ] || fail "the hit at $1, the call $start-$end"

# --repeat 0: a snapshot per slow call
mt-record --backend patch --functions '^work$' --trigger work --slower-than 20ms --repeat 0 \
	-o rep.mt --command-stdout 3 -- "$prog" -k 100 -k 200 3>truth.txt 2>err ||
	{ cat err >&2; fail "mt-record --slower-than --repeat 0 failed"; }
[ "$(wc -l <truth.txt)" -eq 2 ] || fail "the program: $(cat truth.txt)"
[ "$(grep -c 'trigger work hit by' err)" -eq 2 ] || fail "hits: $(cat err)"
triggers rep.mt >rep.triggers
[ "$(wc -l <rep.triggers)" -eq 2 ] || fail "trigger MARKs: $(cat rep.triggers)"
paste rep.triggers truth.txt | while read -r t v _ i s e; do
	within "$v" $((e - s)) || fail "call $i: a MARK of $v ns, the program measured $((e - s))"
	[ "$t" -ge "$s" ] && [ "$t" -le "$e" ] || fail "call $i: the hit at $t, the call $s-$e"
done
[ "$(mt-dump rep.mt | grep -c ' MARK .* kind=snapshot ')" -eq 2 ] || fail "not 2 snapshots"
[ "$(spans rep.mt | wc -l)" -eq 201 ] || fail "$(spans rep.mt | wc -l) work spans, not 201"

# no slow call: no hit
mt-record --backend patch --functions '^work$' --trigger work --slower-than 20ms --repeat 0 \
	-o none.mt -- "$prog" 2>err || { cat err >&2; fail "no slow call: mt-record failed"; }
grep -q 'hit by' err && fail "a fast call was a hit: $(cat err)"
[ -z "$(triggers none.mt)" ] || fail "a trigger MARK: $(triggers none.mt)"

if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	mt-record --backend uprobe --functions '^work$' --trigger work --slower-than 20ms \
		-o up.mt --command-stdout 3 -- "$prog" -k 100 -k 200 3>truth.txt 2>err ||
		{ cat err >&2; fail "uprobe: mt-record --slower-than failed"; }
	grep -q '^mt-record: trigger work hit by [0-9]*/[0-9]* at [0-9.]*: a call of [0-9.]* ms$' err ||
		fail "uprobe: the hit not said: $(cat err)"
	read -r _ i start end <truth.txt
	set -- $(triggers up.mt)
	[ $# -eq 2 ] || fail "uprobe: trigger MARKs: $*"
	within "$2" $((end - start)) || fail "uprobe: a MARK of $2 ns, the program measured $((end - start))"
	[ "$1" -ge "$start" ] && [ "$1" -le "$end" ] || fail "uprobe: the hit at $1, the call $start-$end"
	spans up.mt >up.spans
	[ "$(wc -l <up.spans)" -eq 101 ] || fail "uprobe: $(wc -l <up.spans) work spans, not 101"
	last=$(tail -1 up.spans | awk '{ print $2 - $1 }')
	longest=$(awk '{ d = $2 - $1; if (d > m) m = d } END { print m }' up.spans)
	[ "$last" = "$longest" ] || fail "uprobe: the last span ($last ns) is not the longest ($longest)"
	within "$last" $((end - start)) || fail "uprobe: the slow span: $last ns, measured $((end - start))"

	mt-record --backend uprobe --functions '^work$' --trigger work --slower-than 20ms --repeat 0 \
		-o uprep.mt --command-stdout 3 -- "$prog" -k 100 -k 200 3>truth.txt 2>err ||
		{ cat err >&2; fail "uprobe --repeat 0"; }
	[ "$(grep -c 'trigger work hit by' err)" -eq 2 ] || fail "uprobe --repeat 0: $(cat err)"
	triggers uprep.mt >uprep.triggers
	paste uprep.triggers truth.txt | while read -r t v _ i s e; do
		within "$v" $((e - s)) || fail "uprobe call $i: a MARK of $v ns, the program measured $((e - s))"
		[ "$t" -ge "$s" ] && [ "$t" -le "$e" ] || fail "uprobe call $i: the hit at $t, the call $s-$e"
	done
	[ "$(wc -l <uprep.triggers)" -eq 2 ] || fail "uprobe --repeat 0: $(cat uprep.triggers)"

	mt-record --backend sample --trigger work --slower-than 20ms -o sample.txt -- \
		"$prog" -k 100 -k 200 2>err || { cat err >&2; fail "sample --slower-than"; }
	[ "$(grep -c 'trigger work hit by .*: a call of ' err)" -eq 1 ] || fail "sample: $(cat err)"
	grep -q '^# mt: trigger ' sample.txt || fail "sample: no trigger line"
fi
expect_exit 2 mt-record --backend uprobe --trigger work --trigger-via breakpoint --slower-than 20ms \
	-- "$prog" 2>err
contains err "a breakpoint cannot time a call (its return): --trigger-via uprobe"
expect_exit 2 mt-record --backend patch --slower-than 20ms -- "$prog" 2>err
contains err "--slower-than needs --trigger"
expect_exit 2 mt-record --backend patch --trigger work --slower-than 0 -- "$prog" 2>err
contains err "--slower-than 0: expected a duration"
