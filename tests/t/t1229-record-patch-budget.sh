#!/bin/sh
# mt-record --max-overhead (mt-record/patch/patch-budget.h): tests/progs/hotleaf
# calls leaf() hundreds of millions of times a second from cold_a(), and
# cold_a() and cold_b() some thousands of times: traced whole, the recording
# would cost it more than its own work. With --max-overhead 10%:
# - leaf is turned off (its entry put back), said on stderr and by a MARK
#   of kind off (the function, its address, its calls a second) that mt-fxt
#   makes an instant "recording off" on the thread's track;
# - cold_a and cold_b stay on and exact: with --full, as many calls in the
#   trace as the program says it made, and every call of leaf recorded
#   before it was turned off ends with its return (none cut short);
# - the program computes what it computes untraced (hotleaf -n: the same
#   sum as untraced);
# - mt-report lists leaf apart as turned off (text and --json), from the
#   stream and from the FXT file.
# A function named alone (--functions '^leaf$') is never turned off;
# --max-overhead none turns nothing off (every call of leaf there); with a
# command the default is none, with -p it is 10%, said in one line; bad
# values are usage errors.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
fns='^(leaf|cold_a|cold_b)$'
said() { grep -q "$2" "$1" || { cat "$1" >&2; fail "$1: no \"$2\""; }; }
# records: "KIND NAME TIME" a call or return (lib.sh's patch_records, in
# awk: hundreds of thousands of lines)
records() {
	mt-dump "$1" | awk '/ BRANCH / && match($0, / kind=[a-z]+ /) {
		k = substr($0, RSTART + 6, RLENGTH - 7)
		if (k != "call" && k != "return") next
		match($0, / time=[0-9.]+ /); t = substr($0, RSTART + 6, RLENGTH - 7)
		if (!match($0, /"[^"]*"\+0x0 /)) next
		print k, substr($0, RSTART + 1, RLENGTH - 7), t }'
}
calls() { awk -v f="$2" '$1 == "call" && $2 == f' "$1" | wc -l; }
returns() { awk -v f="$2" '$1 == "return" && $2 == f' "$1" | wc -l; }
prog() { sed -n "s/^.*$2 \\([0-9]*\\).*/\\1/p" "$1"; }

mt-record --backend patch --functions "$fns" --max-overhead 10% --full --snapshot-size 256M -v \
	-o b.mt -- "$P/hotleaf" 1 >b.out 2>b.err || { cat b.err >&2; fail "mt-record failed"; }
said b.err 'keeping the recording.s cost under 10% of the process.s time'
said b.err '^mt-record: 1 function turned off to keep the cost under 10%'
said b.err '^mt-record: leaf (.*): turned off, [0-9]* calls a second$'
! grep -q 'cold_[ab] (.*): turned off' b.err || fail "a cold caller turned off: $(grep 'turned off' b.err)"
! grep -q 'overwritten' b.err || fail "records lost: $(grep overwritten b.err)"
grep -q '^cold_a [0-9]* cold_b [0-9]* leaf [0-9]* sum [0-9]*$' b.out || fail "hotleaf: $(cat b.out)"
records b.mt >rec
for f in cold_a cold_b; do
	want=$(prog b.out $f)
	[ "$(calls rec $f)" -eq "$want" ] && [ "$(returns rec $f)" -eq "$want" ] ||
		fail "$f: $(calls rec $f) calls, $(returns rec $f) returns in the trace, the program made $want"
done
nl=$(calls rec leaf)
[ "$nl" -gt 0 ] && [ "$nl" -lt "$(prog b.out leaf)" ] || fail "leaf: $nl calls recorded of $(prog b.out leaf)"
[ "$(returns rec leaf)" -eq "$nl" ] || fail "leaf: $nl calls, $(returns rec leaf) returns"
mt-dump b.mt | grep ' MARK .* kind=off ' >marks
[ "$(wc -l <marks)" -eq 1 ] || fail "off MARKs: $(cat marks)"
grep -q 'text="leaf"' marks && grep -q 'ip=0x[0-9a-f]*[1-9a-f]' marks && grep -q 'value=[1-9]' marks ||
	fail "the MARK: $(cat marks)"
# after it, no call of leaf begins
off=$(sed -n 's/^.* MARK time=\([0-9.]*\) .*/\1/p' marks)
late=$(awk -v t="$off" '$1 == "call" && $2 == "leaf" && $3 > t + 0.000001' rec | wc -l)
[ "$late" -eq 0 ] || fail "$late calls of leaf begin after the MARK at $off"
mt-stacks b.mt | mt-fxt --json >b.json || fail "mt-fxt --json"
python3 - b.json <<'PY' || fail "no instant \"recording off\" for leaf in the FXT's JSON"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
sys.exit(0 if any(e.get("name") == "recording off" and e.get("args", {}).get("function") == "leaf"
                  for e in ev) else 1)
PY
# mt-report lists it apart, from the stream and from the FXT file
mt-stacks b.mt >b.st
mt-fxt -o b.fxt b.st || fail "mt-fxt"
for in in b.st b.fxt; do
	mt-report "$in" >rep.txt || fail "mt-report $in"
	grep -A1 '^turned off by mt-record --max-overhead' rep.txt |
		grep -q '^  leaf at .* from the first call$' || { cat rep.txt >&2; fail "mt-report $in: leaf not listed"; }
	mt-report --json "$in" >rep.json || fail "mt-report --json $in"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); t = d.get("turned_off", [])
sys.exit(0 if len(t) == 1 and t[0]["name"] == "leaf" and t[0]["ts"] > 0 else 1)' rep.json ||
		fail "mt-report --json $in: $(tail -c 200 rep.json)"
done

# a function named alone stays on
mt-record --backend patch --functions '^leaf$' --max-overhead 10% -v -o n.mt -- "$P/hotleaf" 0.3 \
	>/dev/null 2>n.err || { cat n.err >&2; fail "named"; }
! grep -q 'turned off' n.err || fail "a named function turned off: $(grep 'turned off' n.err)"

# none, and a command's default: nothing turned off, every call there
for how in "--max-overhead none" ""; do
	# shellcheck disable=SC2086 # how is one option and its value, or none
	mt-record --backend patch --functions "$fns" $how --full --snapshot-size 64M -o a.mt -- \
		"$P/hotleaf" -n 5 >a.out 2>a.err || { cat a.err >&2; fail "$how"; }
	! grep -q -e 'turned off' -e 'keeping' a.err || fail "$how: $(cat a.err)"
	records a.mt >rec-a
	[ "$(calls rec-a leaf)" -eq "$(prog a.out leaf)" ] ||
		fail "${how:-default}: leaf $(calls rec-a leaf) calls recorded of $(prog a.out leaf)"
done
"$P/hotleaf" -n 5 >plain.out
same_file plain.out a.out
mt-record --backend patch --functions "$fns" --max-overhead 10% -o /dev/null -- \
	"$P/hotleaf" -n 3000 >c.out 2>c.err || { cat c.err >&2; fail "-n 3000"; }
"$P/hotleaf" -n 3000 >plain3.out
same_file plain3.out c.out

# -p: 10% unless told otherwise, said
rm -f h.in h.out
mkfifo h.in
"$P/hotleaf" -r <h.in >h.out &
hp=$!
exec 7>h.in
wait_for grep -q ready h.out || fail "hotleaf -r did not start"
mt-record --backend patch -p $hp --functions "$fns" -o p.mt 2>p.err &
rec=$!
wait_secs 30 grep -q "^mt-record: recording $hp with patch" p.err 2>/dev/null ||
	{ cat p.err >&2; kill $rec; fail "mt-record -p $hp is not recording"; }
sleep 0.5
kill -INT $rec
wait $rec || { cat p.err >&2; fail "mt-record -p exited $?"; }
said p.err 'keeping the recording.s cost under 10% of the process.s time'
said p.err '^mt-record: 1 function turned off'
exec 7>&-
wait $hp
grep -q '^cold_a' h.out || fail "hotleaf -r: $(cat h.out)"

# usage
for bad in 0 abc 101 -5 10%% ''; do
	expect_exit 2 mt-record --backend patch --max-overhead "$bad" -o x.mt -- true
done
mt-record --backend patch --max-overhead 7 -o x.mt -- true 2>/dev/null; :
exit 0
