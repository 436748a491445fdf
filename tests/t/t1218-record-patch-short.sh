#!/bin/sh
# The patch backend patches functions shorter than its 5-byte jump when
# alignment padding (no-ops, int3s) follows them, before the next
# function: the jump covers the function and the padding, which nothing
# runs. shorty's functions of 1, 3 and 4 bytes, and one of 4 that runs on
# over its padding into the next, called 1000 times each: the program
# prints what it prints untraced and every call is a span. One with the
# next function right after it, and one whose padding a branch aims at,
# are left alone with the reason.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
"$P/shorty" >plain.out
mt-record -v --backend patch --functions '^(one|three|four|fallthru|packed|next|aimed|jumper)$' \
	-o s.mt -- "$P/shorty" >traced.out 2>err || { cat err >&2; fail "mt-record failed"; }
same_file plain.out traced.out
for f in one three four fallthru next jumper; do
	grep -q "^mt-record: $f (.*): patched$" err || fail "$f not patched: $(grep " $f " err)"
done
grep -q "^mt-record: packed (.*): too short" err || fail "packed: $(grep ' packed ' err)"
grep -q "^mt-record: aimed (.*): a branch into the bytes" err || fail "aimed: $(grep ' aimed ' err)"
patch_records s.mt >rec
for f in one three four fallthru next jumper; do
	c=$(awk -v f=$f '$2 == "call" && $3 == f' rec | wc -l)
	r=$(awk -v f=$f '$2 == "return" && $3 == f' rec | wc -l)
	[ "$c" -eq 1000 ] && [ "$r" -eq 1000 ] || fail "$f: $c calls, $r returns, not 1000"
done
mt-stacks s.mt | mt-dump - >dump
for f in one three four fallthru; do
	n=$(grep -c " SPAN .* name=\"$f\"" dump)
	[ "$n" -eq 1000 ] || fail "$f: $n spans, not 1000"
done
# 10 times as many: still the program's own sum
"$P/shorty" -n 10000 >plain10.out
mt-record --backend patch --functions '^(one|three|four|fallthru)$' -o s10.mt -- \
	"$P/shorty" -n 10000 >traced10.out 2>err10 || { cat err10 >&2; fail "mt-record -n 10000"; }
same_file plain10.out traced10.out
