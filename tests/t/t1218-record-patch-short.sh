#!/bin/sh
# The patch backend patches functions shorter than its 5-byte jump when
# alignment padding (no-ops, int3s) follows them, before the next
# function: the jump covers the function and the padding, which nothing
# runs. shorty's functions of 1, 3 and 4 bytes, and one of 4 that runs on
# over its padding into the next, called 1000 times each: the program
# prints what it prints untraced and every call is a span. One of 1 byte
# with functions right before and after it, and one whose padding a
# branch aims at, are left alone with the reason. Functions whose first instructions
# before a branch target are shorter than 5 bytes (a loop back to entry +
# 2; another function's jump to entry + 3, as glibc's mempcpy into
# memmove) are patched with a hop through the padding before them, also
# when the function before runs on over its end into that padding. The
# same with mt-record -p, attached three times to a running shorty: every
# round computes what it computed untraced, and after each detach its
# code (the functions, their padding and the hops') is as it was.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
"$P/shorty" >plain.out
mt-record -v --backend patch --functions '^(one|three|four|fallthru|packed|tiny|next|aimed|jumper)$' \
	-o s.mt -- "$P/shorty" >traced.out 2>err || { cat err >&2; fail "mt-record failed"; }
same_file plain.out traced.out
for f in one three four fallthru packed next jumper; do
	grep -q "^mt-record: $f (.*): patched$" err || fail "$f not patched: $(grep " $f " err)"
done
grep -q "^mt-record: tiny (.*): too short" err || fail "tiny: $(grep ' tiny ' err)"
grep -q "^mt-record: aimed (.*): a branch into the bytes" err || fail "aimed: $(grep ' aimed ' err)"
patch_records s.mt >rec
for f in one three four fallthru packed next jumper; do
	c=$(awk -v f=$f '$2 == "call" && $3 == f' rec | wc -l)
	r=$(awk -v f=$f '$2 == "return" && $3 == f' rec | wc -l)
	[ "$c" -eq 1000 ] && [ "$r" -eq 1000 ] || fail "$f: $c calls, $r returns, not 1000"
done
mt-stacks s.mt | mt-dump - >dump
for f in one three four fallthru; do
	n=$(grep -c " SPAN .* name=\"$f\"" dump)
	[ "$n" -eq 1000 ] || fail "$f: $n spans, not 1000"
done
# hops: loopy (a loop to +2; runon, not patched, runs on into it through
# the hop: 2000 entries), entry3 (into3 jumps to +3: not a call of it)
mt-record -v --backend patch --functions '^(loopy|into3|entry3)$' \
	-o h.mt -- "$P/shorty" >traced-h.out 2>err-h || { cat err-h >&2; fail "mt-record hops"; }
same_file plain.out traced-h.out
for f in loopy into3 entry3; do
	grep -q "^mt-record: $f (.*): patched$" err-h || fail "$f not patched: $(grep " $f " err-h)"
done
patch_records h.mt >rec-h
nested_ok() {
	awk '{ t = $1 } $2 == "call" { st[t, ++d[t]] = $3; next }
	     { if (d[t] == 0 || st[t, d[t]] != $3) { print "unmatched: " $0; exit 1 } d[t]-- }' "$1"
}
nested_ok rec-h || fail "hops: calls and returns do not nest"
for fc in loopy:2000 into3:1000 entry3:1000; do
	f=${fc%:*} want=${fc#*:}
	c=$(awk -v f=$f '$2 == "call" && $3 == f' rec-h | wc -l)
	r=$(awk -v f=$f '$2 == "return" && $3 == f' rec-h | wc -l)
	[ "$c" -eq "$want" ] && [ "$r" -eq "$want" ] || fail "$f: $c calls, $r returns, not $want"
done
# runon patched over its padding leaves none for loopy's hop: said
mt-record -v --backend patch --functions '^(runon|loopy)$' -o r.mt -- "$P/shorty" \
	>traced-r.out 2>err-r || { cat err-r >&2; fail "mt-record runon"; }
same_file plain.out traced-r.out
grep -q "^mt-record: runon (.*): patched$" err-r || fail "runon: $(grep ' runon ' err-r)"
grep -q "^mt-record: loopy (.*): a branch into the bytes" err-r || fail "loopy: $(grep ' loopy ' err-r)"

# 10 times as many: still the program's own sum
"$P/shorty" -n 10000 >plain10.out
mt-record --backend patch --functions '^(one|three|four|fallthru|loopy|entry3)$' -o s10.mt -- \
	"$P/shorty" -n 10000 >traced10.out 2>err10 || { cat err10 >&2; fail "mt-record -n 10000"; }
same_file plain10.out traced10.out

# mt-record -p: patched while running, detached, the code as it was
# (its loop makes no system call: mt-record -p can make one that a
# stopped thread was in fail, docs/patch.md "Limits")
"$P/shorty" -w >w.out &
wp=$!
wait_for grep -q ready w.out || fail "shorty -w did not start"
base=$(awk '$6 ~ /shorty$/ { split($1, a, "-"); print a[1]; exit }' /proc/$wp/maps)
lo=$(nm "$P/shorty" | awk '$3 == "one" { print $1 }')
hi=$(nm "$P/shorty" | awk '$3 == "main" { print $1 }')
code() { dd if=/proc/$wp/mem bs=4096 iflag=skip_bytes,count_bytes \
	skip=$((0x$base + 0x$lo)) count=$((0x$hi - 0x$lo)) 2>/dev/null | od -An -tx1; }
code >code0
[ -s code0 ] || fail "cannot read shorty's code"
for i in 1 2 3; do
	attach w$i $wp --functions '^(one|three|four|fallthru|packed|loopy|into3|entry3)$' -v
	sleep 0.2
	kill -INT $rec
	wait $rec || { cat w$i.err >&2; fail "attach $i: mt-record exited $?"; }
	for f in one packed loopy entry3; do
		grep -q "^mt-record: $f (.*): patched$" w$i.err || fail "attach $i: $f: $(grep " $f " w$i.err)"
	done
	patch_records w$i.mt >rec-w$i
	for f in one packed loopy entry3; do
		grep -q " call $f " rec-w$i || fail "attach $i: no call of $f"
	done
	code >code$i
	cmp -s code0 code$i || fail "attach $i: the code differs after the detach"
done
kill -USR1 $wp
wait $wp || fail "shorty -w exited $?"
grep -q '^bad 0 ' w.out || fail "$(tail -1 w.out)"
