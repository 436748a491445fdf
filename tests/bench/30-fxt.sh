# Benchmark section, sourced by tests/bench/run in a subshell:
# mt-fxt on the spans mt-stacks makes of the parse benchmark's text: spans/s,
# bytes per span and peak RSS at two sizes, with cat of the same span stream
# as the baseline. Goals: at most 40 bytes per span with the address
# argument (magic-trace writes about 56); memory bounded by distinct names
# and threads (the same at both sizes).
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
fxt=$BENCH_BIN/mt-fxt
big=$BENCH_TMP/perf-script-2000000.txt
small=$BENCH_TMP/perf-script-500000.txt

gen_perf_script "$big" --lines 2000000 --seed 1 || exit 1
gen_perf_script "$small" --lines 500000 --seed 1 || exit 1
for size in small big; do
	eval "f=\$$size"
	if ! "$BENCH_BIN/mt-script-parse" "$f" | "$BENCH_BIN/mt-stacks" >"$f.spans"; then
		echo "bench: making spans failed" >&2
		exit 1
	fi
	for round in 1 2 3; do
		measure_best "cat_$size" -n 1 -i "$f.spans" -- cat || exit 1
		measure_best "fxt_$size" -n 1 -i "$f.spans" -- "$fxt" || exit 1
	done
	"$fxt" "$f.spans" >"$f.fxt" || exit 1
	eval "spans_$size=\$(\"\$BENCH_BIN/mt-dump\" \"\$f.spans\" | grep -c ' SPAN ')"
	eval "bytes_$size=\$(wc -c <\"\$f.fxt\")"
done

echo "== mt-fxt: spans to FXT (the spans of the parse benchmark)"
printf '%-8s %9s %8s %8s %11s %10s %8s %8s\n' size spans "wall s" "x cat" spans/s "bytes/span" "MB out" "RSS MiB"
for size in small big; do
	eval "awk -v n=\$spans_$size -v w=\$fxt_${size}_wall -v c=\$cat_${size}_wall" \
		"-v b=\$bytes_$size -v r=\$fxt_${size}_maxrss_kb -v s=$size 'BEGIN {
		printf \"%-8s %9d %8.4f %8.2f %11.0f %10.1f %8.1f %8.1f\\n\", s, n, w,
			w / (c > 0 ? c : 1e-6), n / (w > 0 ? w : 1e-6), b / n, b / 1e6, r / 1024 }'"
done
awk -v b="$bytes_big" -v n="$spans_big" -v rs="$fxt_small_maxrss_kb" -v rb="$fxt_big_maxrss_kb" 'BEGIN {
	printf "goal: at most 40 bytes per span with the address argument: %.1f -- %s\n",
		b / n, b / n <= 40 ? "goal met" : "goal missed"
	g = rb - rs; if (g < 0) g = -g
	printf "goal: memory bounded (same peak RSS at both sizes, within 1 MiB): %.1f vs %.1f MiB -- %s\n",
		rs / 1024, rb / 1024, g <= 1024 ? "goal met" : "goal missed"
}'
