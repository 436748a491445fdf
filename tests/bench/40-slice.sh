# Benchmark section, sourced by tests/bench/run in a subshell:
# mt-slice on the FXT file of the mt-fxt benchmark (and on its span
# stream): a window of the middle half and --min-duration, as throughput and
# as a ratio to cat of the same file; peak RSS at two sizes (streaming: the
# same at both).
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
slice=$BENCH_BIN/mt-slice
big=$BENCH_TMP/perf-script-2000000.txt
small=$BENCH_TMP/perf-script-500000.txt

gen_perf_script "$big" --lines 2000000 --seed 1 || exit 1
gen_perf_script "$small" --lines 500000 --seed 1 || exit 1
for size in small big; do
	eval "f=\$$size"
	if [ ! -s "$f.spans" ]; then
		"$BENCH_BIN/mt-script-parse" "$f" | "$BENCH_BIN/mt-stacks" >"$f.spans" || exit 1
	fi
	"$BENCH_BIN/mt-fxt" "$f.spans" >"$f.fxt" || exit 1
	for round in 1 2 3; do
		measure_best "cat_$size" -n 1 -i "$f.fxt" -- cat || exit 1
		measure_best "win_$size" -n 1 -i "$f.fxt" -- "$slice" --from 10ms --duration 20ms || exit 1
		measure_best "min_$size" -n 1 -i "$f.fxt" -- "$slice" --min-duration 1us || exit 1
		measure_best "stream_$size" -n 1 -i "$f.spans" -- "$slice" --from 10ms --duration 20ms || exit 1
	done
	eval "bytes_$size=\$(wc -c <\"\$f.fxt\")"
done

echo "== mt-slice: windows and minimum durations (the FXT of the mt-fxt benchmark)"
printf '%-30s %8s %8s %8s %9s %8s\n' command MB "wall s" MB/s "x cat" "RSS MiB"
for size in small big; do
	for k in cat win min stream; do
		case $k in
		cat) label="cat ($size)" ;;
		win) label="FXT --from 10ms --duration 20ms" ;;
		min) label="FXT --min-duration 1us" ;;
		stream) label="mt stream, the same window" ;;
		esac
		eval "awk -v l=\"\$label\" -v b=\$bytes_$size -v w=\$${k}_${size}_wall" \
			"-v c=\$cat_${size}_wall -v r=\$${k}_${size}_maxrss_kb 'BEGIN {
			printf \"%-30s %8.1f %8.4f %8.1f %9.2f %8.1f\\n\", l, b / 1e6, w,
				b / 1e6 / (w > 0 ? w : 1e-6), w / (c > 0 ? c : 1e-6), r / 1024 }'"
	done
done
awk -v rs="$win_small_maxrss_kb" -v rb="$win_big_maxrss_kb" 'BEGIN {
	g = rb - rs; if (g < 0) g = -g
	printf "goal: streaming (same peak RSS at both sizes, within 1 MiB): %.1f vs %.1f MiB -- %s\n",
		rs / 1024, rb / 1024, g <= 1024 ? "goal met" : "goal missed"
}'
