# Benchmark section, sourced by tests/bench/run in a subshell:
# mt-stacks' throughput on the stream that mt-script-parse makes of the
# parse benchmark's text, as events/s and as a ratio to mt-script-parse
# alone on the same input in the same run; peak RSS at two sizes. Goals:
# mt-stacks costs no more than parsing; memory bounded by threads x depth
# (the same at both sizes).
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
parse=$BENCH_BIN/mt-script-parse
stacks=$BENCH_BIN/mt-stacks
big=$BENCH_TMP/perf-script-2000000.txt
small=$BENCH_TMP/perf-script-500000.txt

gen_perf_script "$big" --lines 2000000 --seed 1 || exit 1
gen_perf_script "$small" --lines 500000 --seed 1 || exit 1
for size in small big; do
	eval "f=\$$size"
	"$parse" "$f" >"$f.mt" || { echo "bench: mt-script-parse failed" >&2; exit 1; }
	for round in 1 2 3; do
		measure_best "parse_$size" -n 1 -i "$f" -- "$parse" || exit 1
		measure_best "stacks_$size" -n 1 -i "$f.mt" -- "$stacks" || exit 1
	done
done
events_big=$("$BENCH_BIN/mt-dump" "$big.mt" | grep -c ' BRANCH \| ERROR \| MARK ')
events_small=$("$BENCH_BIN/mt-dump" "$small.mt" | grep -c ' BRANCH \| ERROR \| MARK ')
spans_big=$("$stacks" "$big.mt" | "$BENCH_BIN/mt-dump" | grep -c ' SPAN ')

echo "== mt-stacks: branch events to call spans (the parse benchmark's stream)"
printf '%-16s %9s %8s %8s %12s %9s %8s\n' command events "wall s" "cpu s" events/s "x parse" "RSS MiB"
for size in small big; do
	eval "awk -v e=\$events_$size -v pw=\$parse_${size}_wall -v w=\$stacks_${size}_wall" \
		"-v u=\$stacks_${size}_user -v s=\$stacks_${size}_sys -v r=\$stacks_${size}_maxrss_kb" \
		"-v pu=\$parse_${size}_user -v ps=\$parse_${size}_sys -v pr=\$parse_${size}_maxrss_kb" "'BEGIN {
		printf \"%-16s %9d %8.4f %8.4f %12.0f %9.2f %8.1f\\n\", \"mt-script-parse\", e, pw, pu + ps, e / pw, 1, pr / 1024
		printf \"%-16s %9d %8.4f %8.4f %12.0f %9.2f %8.1f\\n\", \"mt-stacks\", e, w, u + s, e / w, w / pw, r / 1024 }'"
done
echo "($spans_big spans from $events_big events at the bigger size)"
awk -v w="$stacks_big_wall" -v p="$parse_big_wall" -v rs="$stacks_small_maxrss_kb" \
	-v rb="$stacks_big_maxrss_kb" 'BEGIN {
	r = w / (p > 0 ? p : 1e-6)
	printf "goal: mt-stacks costs no more than parsing: %.2fx -- %s\n", r,
		r <= 1 ? "goal met" : "goal missed"
	g = rb - rs; if (g < 0) g = -g
	printf "goal: memory bounded (same peak RSS at both sizes, within 1 MiB): %.1f vs %.1f MiB -- %s\n",
		rs / 1024, rb / 1024, g <= 1024 ? "goal met" : "goal missed"
}'
