#!/bin/sh
# ptsynth against an independent record of the same program: a non-PIE C
# program with recursion, a call through a function pointer and a longjmp
# out of a recursion (tests/ptsynth/corpus/basic.c). steplog single-steps
# it too, knowing nothing of branch classes: a transfer is a step that
# does not go to the next instruction by length. The branches perf decodes
# from ptsynth's perf.data, from or to the program's own code, must be
# exactly those transfers, in order; and all of perf's branches, with
# their times, must be the truth's, also when traps come late.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need basic

# usage
expect_exit 2 ptsynth 2>/dev/null
expect_exit 2 ptsynth --timing medium -- true 2>/dev/null
ptsynth --help >help.txt
contains help.txt 'usage: ptsynth [-v] [-o perf.data] [--truth FILE] [--timing fine|coarse] [--aslr] -- PROGRAM [ARGS]'
expect_exit 3 ptsynth -o none.data -- ./no-such-program 2>err.txt
contains err.txt 'no-such-program'

# the executable segment of basic (non-PIE: its addresses are final)
seg=$(readelf -lW "$CORPUS/basic" | awk '$1 == "LOAD" && / R E / { print $3, $6 }')
[ -n "$seg" ] || fail "no executable segment in basic"
set -- $seg
lo=$(printf '%x' $(($1)))
hi=$(printf '%x' $(($1 + $2)))

pts_run basic fine
[ "$spans_ok" = 1 ] || { cat basic-fine.report >&2; fail "basic: spans differ"; }

steplog --range "$lo-$hi" -o steps.txt -- "$CORPUS/basic" ||
	fail "steplog failed"
cut -f2,3 steps.txt >steps.cmp
# perf's branches with both ends known, from or to [lo, hi)
awk -F '\t' -v lo="$lo" -v hi="$hi" -v OFS='\t' '
function pad(h) { return substr("0000000000000000", 1, 16 - length(h)) h }
BEGIN { lo = pad(lo); hi = pad(hi) }
$4 != "0" && $5 != "0" {
	f = pad($4); t = pad($5)
	if ((f >= lo && f < hi) || (t >= lo && t < hi))
		print $4, $5
}' basic-fine.pb >perf.cmp
n=$(wc -l <steps.cmp)
[ "$n" -ge 100 ] || fail "steplog saw only $n transfers in basic's code"
diff steps.cmp perf.cmp >diff.txt || {
	head -20 diff.txt >&2
	fail "perf's branches in basic's code differ from steplog's transfers"
}
echo "basic: $n transfers from or to its code, the same in steplog and perf"

# the repair of late traps (some hypervisors deliver the trap after cpuid
# one instruction late; here it is faked): the same branches and spans
PTSYNTH_FAKE_LATE_TRAP=1
export PTSYNTH_FAKE_LATE_TRAP
PTS_TAG=late
pts_run basic fine -v
PTS_TAG=
unset PTSYNTH_FAKE_LATE_TRAP
[ "$spans_ok" = 1 ] || { cat basic-fine-late.report >&2; fail "basic (late traps): spans differ"; }
grep -q ' [1-9][0-9]* late traps filled' basic-fine-late.log ||
	fail "no late trap was faked: $(cat basic-fine-late.log)"
cut -f4- basic-fine.pb >plain.cmp
cut -f4- basic-fine-late.pb >late.cmp
cmp plain.cmp late.cmp >/dev/null ||
	fail "basic: late traps change perf's branches"

# every kind of branch is there
for k in call return jcc jmp 'tr strt' 'tr end syscall'; do
	grep -q "	$k\$" basic-fine.pb || fail "no '$k' branch in perf's output"
done
# the comparison is not blind: one time off by 1 ns is a difference
awk -F '\t' -v OFS='\t' 'NR == 100 { $3 = $3 + 1 } { print }' basic-fine.tb >tampered
if diff -q tampered basic-fine.pb >/dev/null; then
	fail "a changed time went unnoticed"
fi
