#!/bin/sh
# perf's time column is the seconds since boot, padded to five columns
# ("%5lu.%09llu"): "    0.000001000" on a machine booted a moment ago,
# "  380.710891095" after minutes, "1922856.569416852" after weeks, wider
# still after years. The same simulated trace (gen-perf-script --start,
# in the magic-trace and comm-cpu layouts) at each of these uptimes, and
# crossing 10,000 s and 100,000,000 s (the column widens mid-trace), parses
# with nothing skipped, and mt-stacks --no-spread rebuilds exactly the
# truth's spans; mt-fxt's file of them imports without a problem.
. "$MT_TOP/tests/lib.sh"

bad=

for start in 0 380710891095 9999999600000 10568710891095 1922856569416852 \
	99999999999600000 4000000000000000000; do
	for l in magic-trace comm-cpu; do
		what="--start $start --layout $l"
		gen-perf-script $what --lines 20000 --seed 3 --threads 3 --start-depth 2 \
			--no-errors --truth truth.txt >in.txt
		mt-script-parse in.txt >in.mt 2>err || note "mt-script-parse failed ($what)" err
		[ ! -s err ] || note "mt-script-parse skipped lines ($what)" err
		mt-stacks --no-spread in.mt >out.mt
		stacks-check truth.txt out.mt >report 2>&1 ||
			note "mt-stacks' spans differ from the truth ($what)" report
		mt-fxt out.mt >t.fxt 2>err || note "mt-fxt failed ($what)" err
		fxt-check t.fxt >report 2>&1 || note "fxt-check ($what)" report
	done
done
[ -z "$bad" ] || fail "uptimes at which the pipeline fails:${bad#;}"

# the column is as perf prints it at each uptime
gen-perf-script --start 0 --lines 3 >in.txt
grep -q '^ *[0-9]*/[0-9]* *    0\.000000000: ' in.txt || fail "--start 0: $(head -1 in.txt)"
gen-perf-script --start 380710891095 --lines 3 --layout comm-cpu >in.txt
grep -q ' \[[0-9]*\]   380\.710891095: ' in.txt || fail "--start 380 s: $(head -1 in.txt)"
gen-perf-script --start 9999999600000 --lines 20000 >in.txt
grep -q ' 9999\.9999[0-9]*: ' in.txt && grep -q ' 10000\.0000[0-9]*: ' in.txt ||
	fail "--start 9999.9996 s does not cross 10,000 s"
expect_exit 2 gen-perf-script --start x 2>/dev/null
