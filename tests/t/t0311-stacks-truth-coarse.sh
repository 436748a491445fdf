#!/bin/sh
# Coarse timing, as Intel PT gives it (time only every few branches, every
# ~1 us with psb/mtc in low resolution): gen-perf-script --coarse NS prints
# every time rounded down to a multiple of NS, so that dozens of branches
# share one timestamp, and its --truth holds those printed times.
# (a) mt-stacks --no-spread rebuilds exactly the truth's spans;
# (b) mt-stacks, spreading equal timestamps, rebuilds the same spans with
#     other times: stacks-check --no-times (names, flags, depths, order and
#     nesting, not times);
# (c) spans-check: Perfetto would drop none of the spread spans and nest
#     each at its depth.
. "$MT_TOP/tests/lib.sh"

bad=

# note WHAT REPORT: a failed check, shown and remembered
note() {
	echo "$1:" >&2
	sed 's/^/    | /' "$2" | head -40 >&2
	bad="$bad; $1"
}

for coarse in 50 1000; do
	for seed in 1 2 3; do
		for threads in 1 4; do
			for depth in 0 5; do
				what="--coarse $coarse --lines 30000 --seed $seed --threads $threads --start-depth $depth"
				gen-perf-script $what --no-errors --truth truth.txt >in.txt
				mt-script-parse in.txt >in.mt
				mt-stacks --no-spread in.mt >exact.mt
				mt-stacks in.mt >spread.mt
				stacks-check truth.txt exact.mt >report 2>&1 ||
					note "mt-stacks --no-spread differs from the truth ($what)" report
				stacks-check --no-times truth.txt spread.mt >report 2>&1 ||
					note "mt-stacks (spread) differs from the truth ($what)" report
				spans-check spread.mt >report 2>&1 ||
					note "Perfetto would misplace mt-stacks' spans ($what)" report
				grep -q '^spans-check: [0-9]* spans, 0 dropped, 0 with a wrong depth' report ||
					note "spans-check: spans dropped or misplaced ($what)" report
			done
		done
	done
done

# the times really are coarse: at 1000 ns, 30000 lines share few timestamps
gen-perf-script --coarse 1000 --lines 30000 --seed 1 --threads 4 --no-errors >in.txt
n=$(cut -d: -f1 in.txt | sort -u | wc -l)
[ "$n" -lt 3000 ] || fail "--coarse 1000: $n distinct pid/tid and times in 30000 lines"
awk '$2 !~ /\.[0-9][0-9][0-9][0-9][0-9][0-9]000:$/ { print; exit 1 }' in.txt >report ||
	fail "--coarse 1000 printed a time that is not a multiple of 1000 ns: $(cat report)"
# and without --coarse, the text is what it was
gen-perf-script --lines 2000 --seed 1 --threads 4 --no-errors >plain.txt
gen-perf-script --coarse 1 --lines 2000 --seed 1 --threads 4 --no-errors >one.txt
same_file plain.txt one.txt

[ -z "$bad" ] || fail "mt-stacks' spans differ from the truth for${bad#;}"

# the checker itself, on hand-made spans: thread 1/1's truth is A [0, 10]
# holding B [2, 3] and C [10, 10]; then D [10, 20]. C touches both A and D,
# so either may hold it.
tab=$(printf '\t')
cat >truth.txt <<EOF
1${tab}1${tab}1${tab}2${tab}3${tab}-${tab}B
1${tab}1${tab}1${tab}10${tab}10${tab}-${tab}C
1${tab}1${tab}0${tab}0${tab}10${tab}-${tab}A
1${tab}1${tab}0${tab}10${tab}20${tab}open${tab}D
EOF
# span NAME START END DEPTH [FLAGS]: a SPAN record for mt-asm (times in ns)
span() {
	printf 'SPAN start=0.%09d end=0.%09d pid=1 tid=1 depth=%d kind=function flags=%s name="%s"\n' \
		"$2" "$3" "$4" "${5:--}" "$1"
}
# spread times and depths from -1: the same spans
{ span B 4 5 0; span C 11 12 0; span A 0 11 -1; span D 11 20 -1 OPEN; } | mt-asm >out.mt
stacks-check --no-times truth.txt out.mt >report || { cat report >&2; fail "--no-times: equal spans differ"; }
# ... and C in D, which the times allow too
{ span B 4 5 0; span C 12 13 0; span A 0 11 -1; span D 11 20 -1 OPEN; } | mt-asm >out.mt
stacks-check --no-times truth.txt out.mt >report || { cat report >&2; fail "--no-times: C may nest in D"; }
# B in D: in the same order, but nested elsewhere
{ span B 6 7 0; span C 10 10 0; span A 0 5 -1; span D 5 20 -1 OPEN; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
contains report 'missing: 1/1 depth=1 start=0.000000002 end=0.000000003 flags=- kind=function name="B" (nests in another span)'
contains report 'all threads: matched 3 of 4 truth spans, 1 extra spans in the output'
# a name or flags that differ
{ span B 4 5 0; span C 11 12 0; span A 0 11 -1; span D 11 20 -1; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
contains report 'extra:   1/1 depth=0 (-1 in the stream) start=0.000000011 end=0.000000020 flags=- kind=function name="D"'
{ span B 4 5 0; span E 11 12 0; span A 0 11 -1; span D 11 20 -1 OPEN; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
contains report 'missing: 1/1 depth=1 start=0.000000010 end=0.000000010 flags=- kind=function name="C"'
# exact times are still required without --no-times
{ span B 4 5 0; span C 11 12 0; span A 0 11 -1; span D 11 20 -1 OPEN; } | mt-asm >out.mt
expect_exit 1 stacks-check truth.txt out.mt >report
expect_exit 2 stacks-check --no-times truth.txt 2>/dev/null
