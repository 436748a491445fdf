#!/bin/sh
# The patch backend's triggers mean what the other backends' do (issue
# 30): --repeat 0 with tests/progs/marks (K calls of mark(), C step()
# calls before each, microseconds apart): one recording, K snapshots in
# one stream, numbered, each trigger MARK between the times the program
# printed around that call, each snapshot holding exactly the C step calls
# since the one before (the recording goes on while a snapshot is written:
# nothing is lost), K*C spans through mt-stacks, an FXT Perfetto takes;
# with -o DIR/ a file per snapshot, each the whole ring then; --repeat 2
# two snapshots; --arm-after ignores the calls before it; Ctrl+C before
# the trigger fires leaves no snapshot and -o's file as it was; --full
# with --repeat refused. Before, --repeat took one snapshot and
# --arm-after was ignored.
. "$MT_TOP/tests/lib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "skip: the patch backend patches x86-64" >&2; exit 0; }
# a copy of its own: a uprobe another test put on marks's step (closed in
# the background, it can outlive that test) would leave step alone here
cp "$MT_TESTBIN/progs/marks" ./marks || fail "cp marks"
prog=$PWD/marks
K=5 C=40

# marks STREAM: the MARK and step-call lines of its dump, as repeat_check
# (lib.sh) takes them: "snapshot N T", "trigger T" (T in ns), "step T"
marks() {
	mt-dump "$1" | awk '
	function t(s) { sub("^time=", "", s); split(s, p, "."); return p[1] * 1000000000 + p[2] }
	/ MARK / && / kind=snapshot / { v = $0; sub(/.* value=/, "", v); sub(/ .*/, "", v); printf "snapshot %s %.0f\n", v, t($3) }
	/ MARK / && / kind=trigger / { printf "trigger %.0f\n", t($3) }
	/ BRANCH / && / kind=call / && /"step"/ { printf "step %.0f\n", t($3) }'
}

# one stream
mt-record --backend patch --functions '^step$' --trigger mark --repeat 0 -o s.mt \
	--command-stdout 3 -- "$prog" -k $K -c $C 3>truth.txt 2>err ||
	{ cat err >&2; fail "mt-record --repeat 0 failed"; }
[ "$(wc -l <truth.txt)" -eq $K ] || fail "the program printed $(wc -l <truth.txt) marks"
contains err "with patch; Ctrl+C ends, keeping the snapshots taken"
[ "$(grep -c 'trigger mark hit by' err)" -eq $K ] || fail "$(grep -c 'hit by' err) hits: $(cat err)"
marks s.mt >s.marks
out=$(repeat_check s.marks truth.txt stream $K $C) || fail "one stream: $out"
mt-stacks s.mt | mt-dump >s.dump
[ "$(span_count s.dump step)" -eq $((K * C)) ] ||
	fail "$(span_count s.dump step) step spans, not $((K * C))"
mt-stacks s.mt | mt-fxt -o s.fxt
fxt-check s.fxt >report 2>&1 || { cat report >&2; fail "the FXT breaks Perfetto's rules"; }

# a file per snapshot, each whole
mt-record --backend patch --functions '^step$' --trigger mark --repeat 0 -o snaps/ \
	--command-stdout 3 -- "$prog" -k $K -c $C 3>truth.txt 2>err ||
	{ cat err >&2; fail "mt-record -o snaps/ failed"; }
[ "$(ls snaps | wc -l)" -eq $K ] || fail "in snaps/: $(ls snaps)"
: >all.marks
for i in $(seq 0 $((K - 1))); do
	[ -s snaps/snapshot-00$i.mt ] || fail "no snapshot-00$i.mt: $(ls snaps)"
	marks snaps/snapshot-00$i.mt >>all.marks
done
out=$(repeat_check all.marks truth.txt dir $K $C) || fail "-o snaps/: $out"

# --repeat 2: two
mt-record --backend patch --functions '^step$' --trigger mark --repeat 2 -o two.mt \
	--command-stdout 3 -- "$prog" -k $K -c $C 3>/dev/null 2>err ||
	{ cat err >&2; fail "--repeat 2 failed"; }
[ "$(marks two.mt | grep -c '^snapshot ')" -eq 2 ] || fail "--repeat 2: $(marks two.mt | grep snapshot)"

# --arm-after 100ms, marks 20 ms of CPU apart: the hit 100 ms after the
# recording began at least (its wallclock MARK comes before), and a call
# of mark's; without it, mark 0
mt-record --backend patch --functions '^step$' --trigger mark --arm-after 100ms -o arm.mt \
	--command-stdout 3 -- "$prog" -k 12 -c 2 -s 20 3>truth.txt 2>err ||
	{ cat err >&2; fail "--arm-after failed"; }
mt-dump arm.mt | awk '
	function t(s) { sub("^time=", "", s); split(s, p, "."); return p[1] * 1000000000 + p[2] }
	/ MARK / && / kind=wallclock / { w = t($3) }
	/ MARK / && / kind=trigger / { h = t($3) }
	END { if (!w || !h || h - w < 100000000) { print "hit " h - w " ns after the start"; exit 1 } }' >arm.out ||
	fail "--arm-after: $(cat arm.out)"
hit=$(marks arm.mt | awk '$1 == "trigger" { print $2 }')
awk -v h="$hit" '{ t[NR - 1] = $4 } END { for (i = 0; i < NR; i++) if (t[i] < h && (i == NR - 1 || h < t[i + 1])) { print i; exit } print "none" }' \
	truth.txt >arm.which
[ "$(cat arm.which)" != none ] && [ "$(cat arm.which)" -ge 1 ] ||
	fail "--arm-after: the hit is mark $(cat arm.which)"
mt-record --backend patch --functions '^step$' --trigger mark -o now.mt \
	--command-stdout 3 -- "$prog" -k 12 -c 2 -s 20 3>truth.txt 2>err ||
	{ cat err >&2; fail "no --arm-after failed"; }
hit=$(marks now.mt | awk '$1 == "trigger" { print $2 }')
t0=$(sed -n 1p truth.txt | cut -d' ' -f4)
[ -n "$hit" ] && [ "$hit" -gt "$t0" ] && [ $((hit - t0)) -lt 20000000 ] ||
	fail "without --arm-after: the hit at $hit, mark 0 at $t0"

# Ctrl+C before the trigger fires (attachme's hold(), called only when
# told): no snapshot, -o's file left as it was
echo keep >kept.mt
mkfifo a.in
"$MT_TESTBIN/progs/attachme" <a.in >a.out 2>/dev/null &
p=$!
exec 7>a.in
wait_for grep -q ready a.out || fail "attachme did not start"
mt-record --backend patch --functions '^step$' --trigger hold -p $p -o kept.mt 2>int.err &
r=$!
wait_secs 30 grep -q "^mt-record: recording $p with patch; Ctrl+C ends without a snapshot" int.err ||
	{ kill $r; cat int.err >&2; fail "not recording"; }
kill -INT $r
wait $r || { cat int.err >&2; fail "Ctrl+C: mt-record exited $?"; }
echo stop >&7
exec 7>&-
wait $p || fail "attachme exited $?"
contains int.err "interrupted before the trigger fired: no snapshot"
[ "$(cat kept.mt)" = keep ] || fail "-o's file was replaced"

expect_exit 2 mt-record --backend patch --trigger mark --repeat 0 --full -o x.mt -- "$prog" 2>err
contains err "--repeat takes a snapshot at each hit, --full keeps everything"
