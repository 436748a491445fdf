# Benchmark section, sourced by tests/bench/run in a subshell:
# mt-script-parse's throughput on synthetic perf script text at two sizes,
# its time as a ratio to `wc -l` on the same file in the same run, and its
# peak RSS; by default (parsing threads: the CPUs online, up to 3) and with
# -j 1 (one thread, the CPU time it takes in all). Goals (default): within
# 4x of wc -l; peak RSS under 32 MiB and the same at both sizes (streaming:
# memory must not grow with the input).
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
tool=$BENCH_BIN/mt-script-parse
big=$BENCH_TMP/perf-script-2000000.txt
small=$BENCH_TMP/perf-script-500000.txt

gen_perf_script "$big" --lines 2000000 --seed 1 || exit 1
gen_perf_script "$small" --lines 500000 --seed 1 || exit 1

# wc -l is the baseline: the cost of reading the bytes and finding newlines.
# Rounds alternate the two commands and keep the best of each; a slow tool
# gets fewer rounds so that the run stays short.
for size in small big; do
	eval "f=\$$size"
	for round in 1 2 3; do
		measure_best "wc_$size" -n 3 -i "$f" -- wc -l || exit 1
		measure_best "mt_$size" -n 1 -i "$f" -- "$tool" || exit 1
		measure_best "mt1_$size" -n 1 -i "$f" -- "$tool" -j 1 || exit 1
		eval "w=\$mt_${size}_wall"
		[ "$(calc "$w > 6")" = 1 ] && break
	done
done

lines_small=$(wc -l <"$small")
lines_big=$(wc -l <"$big")
bytes_small=$(wc -c <"$small")
bytes_big=$(wc -c <"$big")

echo "== mt-script-parse: perf script text to event stream" \
	"(gen-perf-script --seed 1, $(calc "int($bytes_big / $lines_big + 0.5)") bytes/line)"
printf '%-18s %8s %7s %8s %8s %10s %7s %7s %8s\n' \
	command lines MB "wall s" "cpu s" lines/s MB/s "x wc-l" "RSS MiB"
row() {	# NAME LINES BYTES WALL USER SYS RSS_KB BASE_WALL
	awk -v n="$1" -v l="$2" -v b="$3" -v w="$4" -v u="$5" -v s="$6" -v r="$7" \
		-v base="$8" 'BEGIN {
		if (w <= 0) w = 1e-6
		printf "%-18s %8d %7.1f %8.4f %8.4f %10.0f %7.1f %7.2f %8.1f\n",
			n, l, b / 1e6, w, u + s, l / w, b / 1e6 / w, w / base, r / 1024 }'
}
for size in small big; do
	eval "row 'wc -l' \$lines_$size \$bytes_$size \$wc_${size}_wall \$wc_${size}_user" \
		"\$wc_${size}_sys \$wc_${size}_maxrss_kb \$wc_${size}_wall"
	eval "row mt-script-parse \$lines_$size \$bytes_$size \$mt_${size}_wall" \
		"\$mt_${size}_user \$mt_${size}_sys \$mt_${size}_maxrss_kb \$wc_${size}_wall"
	eval "row 'mt-script-parse -j1' \$lines_$size \$bytes_$size \$mt1_${size}_wall" \
		"\$mt1_${size}_user \$mt1_${size}_sys \$mt1_${size}_maxrss_kb \$wc_${size}_wall"
done

awk -v wb="$wc_big_wall" -v mb="$mt_big_wall" -v rs="$mt_small_maxrss_kb" \
	-v rb="$mt_big_maxrss_kb" -v ls="$lines_small" -v lb="$lines_big" '
function verdict(ok) { return ok ? "goal met" : "goal missed" }
BEGIN {
	ratio = mb / (wb > 0 ? wb : 1e-6)
	printf "goal: wall time <= 4x wc -l at %d lines: %.2fx -- %s\n", lb, ratio,
		verdict(ratio <= 4)
	printf "goal: peak RSS < 32 MiB: %.1f MiB at %d lines, %.1f MiB at %d -- %s\n",
		rs / 1024, ls, rb / 1024, lb, verdict(rs < 32768 && rb < 32768)
	growth = rb - rs
	slack = rs / 10 > 1024 ? rs / 10 : 1024
	printf "goal: same peak RSS at both sizes (within 1 MiB or 10%%): %+.1f MiB -- %s\n",
		growth / 1024, verdict((growth < 0 ? -growth : growth) <= slack)
}'
