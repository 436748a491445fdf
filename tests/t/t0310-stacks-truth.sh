#!/bin/sh
# mt-stacks --no-spread rebuilds exactly the call spans that gen-perf-script
# simulated (its --truth): calls, returns, tail calls and PLT stubs,
# [untraced] and [syscall] spans between `tr end` and `tr strt`, frames
# running before the trace began (--start-depth: inferred, found by
# returning past the start) and frames still running at the end (open).
# stacks-check compares per thread, allowing a constant depth offset.
# Decode errors lose branches, so the generator runs with --no-errors.
. "$MT_TOP/tests/lib.sh"

bad=

# check WHAT: mt-stacks on in.txt against truth.txt; failures add to $bad
check() {
	mt-script-parse in.txt >in.mt
	mt-stacks --no-spread in.mt >out.mt
	stacks-check truth.txt out.mt >report 2>&1 || {
		echo "mt-stacks' spans differ from the truth ($1):" >&2
		sed 's/^/    | /' report >&2
		bad="$bad; $1"
	}
}

for seed in 1 2 3; do
	for threads in 1 4; do
		for depth in 0 5; do
			what="--lines 30000 --seed $seed --threads $threads --start-depth $depth"
			gen-perf-script $what --no-errors --truth truth.txt >in.txt
			check "$what"
		done
	done
done

# a thread whose last line is a psb 11 ns after its last branch: what is
# still running ends at the psb (the last time the thread was seen)
what="--lines 1504 --seed 1 --threads 4"
gen-perf-script $what --no-errors --truth truth.txt >in.txt
tail -n 1 in.txt | grep -q '^3894398/3894398 1922856.569457028: .* psb: ' ||
	fail "gen-perf-script $what no longer ends with the psb line"
check "$what"

[ -z "$bad" ] || fail "mt-stacks' spans differ from the truth for${bad#;}"

# the checker itself: a span that differs is reported and fails the check
awk -F '\t' -v OFS='\t' 'NR == 10 { $1 = 1; $2 = 1 } { print }' truth.txt >bad.txt
expect_exit 1 stacks-check bad.txt out.mt >report
contains report 'thread 1/1 (depth offset 0): matched 0 of 1 truth spans, 0 extra'
contains report 'missing: 1/1 '
grep -q '^all threads: matched [0-9]* of [0-9]* truth spans, 1 extra spans in the output$' \
	report || fail "bad summary: $(tail -n 1 report)"
