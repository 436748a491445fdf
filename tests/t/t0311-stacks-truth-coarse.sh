#!/bin/sh
# Coarse timing, as Intel PT gives it (time only every few branches, every
# ~1 us with psb/mtc in low resolution): gen-perf-script --coarse NS prints
# every time rounded down to a multiple of NS, so that dozens of branches
# share one timestamp, and its --truth holds those printed times.
# (a) mt-stacks --no-spread rebuilds exactly the truth's spans;
# (b) mt-stacks, spreading equal timestamps, rebuilds the same spans with
#     other times: stacks-check --no-times (names, flags, depths, order and
#     nesting, not times), each [syscall] and [untraced] span a child of the
#     frame that stopped the trace, as the text orders them, and inside
#     that frame's interval as Perfetto nests spans. Hundreds of them end
#     their timestamp group after a call (counted below): spread without a
#     share of the time, they started at the next timestamp, zero-length at
#     the end of a frame that returns right after the trace starts again;
# (c) spans-check: Perfetto would drop none of the spread spans and nest
#     each at its depth.
. "$MT_TOP/tests/lib.sh"

bad=


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

gen-perf-script --coarse 1000 --lines 30000 --seed 1 --threads 4 --no-errors >in.txt
n=$(group_ends in.txt)
[ "$n" -ge 200 ] || fail "--coarse 1000: only $n trace ends end their timestamp group after a call"

# the times really are coarse: at 1000 ns, 30000 lines share few timestamps
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

# pseudo-spans nest in the frame that stopped the trace, the first span of
# the level above written after them in the truth: A [0, 10] holds S
# [syscall] [4, 6]; then B [10, 20]
cat >truth.txt <<EOF
1${tab}1${tab}1${tab}4${tab}6${tab}-${tab}[syscall]
1${tab}1${tab}0${tab}0${tab}10${tab}-${tab}A
1${tab}1${tab}0${tab}10${tab}20${tab}-${tab}B
EOF
# pseudo KIND START END DEPTH: an untraced or syscall SPAN record
pseudo() {
	printf 'SPAN start=0.%09d end=0.%09d pid=1 tid=1 depth=%d kind=%s flags=- name="[%s]"\n' \
		"$2" "$3" "$4" "$1" "$1"
}
{ span A 0 10 0; pseudo syscall 8 10 1; span B 10 20 0; } | mt-asm >out.mt
stacks-check --no-times truth.txt out.mt >report || { cat report >&2; fail "--no-times: [syscall] inside A"; }
{ span A 0 10 0; pseudo syscall 0 3 1; span B 10 20 0; } | mt-asm >out.mt
stacks-check --no-times truth.txt out.mt >report || { cat report >&2; fail "--no-times: [syscall] at A's start, after it"; }
# zero-length at A's end: Perfetto closes A first and nests it in B
{ span A 0 10 0; pseudo syscall 10 10 1; span B 10 20 0; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
contains report 'missing: 1/1 depth=1 start=0.000000004 end=0.000000006 flags=- kind=syscall name="[syscall]" (nests in another span)'
# at A's start but before it in the file: Perfetto nests A in it
{ pseudo syscall 0 3 1; span A 0 10 0; span B 10 20 0; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
contains report 'all threads: matched 2 of 3 truth spans, 1 extra spans in the output'
# past A's end: Perfetto drops it
{ span A 0 10 0; pseudo syscall 8 12 1; span B 10 20 0; } | mt-asm >out.mt
expect_exit 1 stacks-check --no-times truth.txt out.mt >report
# a function span at A's end may still nest in either
sed 's/\[syscall\]/C/' truth.txt >truth-c.txt
{ span A 0 10 0; span C 10 10 1; span B 10 20 0; } | mt-asm >out.mt
stacks-check --no-times truth-c.txt out.mt >report || { cat report >&2; fail "--no-times: a function span at A's end"; }
