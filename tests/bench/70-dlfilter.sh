# Benchmark section, sourced by tests/bench/run in a subshell: decoding
# Intel PT with perf's text and mt-script-parse, against the dlfilter
# (mt-dlfilter.so, docs/perf.md 3.1) that writes the stream itself, on
# ptsynth's coarse-timed trace of tests/ptsynth/corpus/loop at two sizes.
# Baseline: perf script with a dlfilter that keeps nothing (perf's own
# decoding and symbol resolution, no output). The dlfilter runs as
# mt-record runs it (--dlarg sideband: resolutions kept until perf's maps
# change), and without the side band (every address resolved by perf). Goals (issue 16): the
# whole decode, `mt-record -i | mt-script-parse | mt-stacks | mt-fxt`,
# within 1.5x the baseline; the dlfilter's peak RSS the same at both sizes
# (memory must not grow with the trace). The larger trace takes ptsynth
# about 3 minutes to make: times of a few hundredths of a second (the
# smaller) are mostly start-up.
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
corpus=$BENCH_TESTBIN/ptsynth-corpus
dlf=$BENCH_BIN/../lib/mt-dlfilter.so
null=$BENCH_TESTBIN/null-dlfilter.so
command -v perf >/dev/null 2>&1 || { echo "== dlfilter: no perf, skipped"; exit 0; }
for f in "$corpus/loop" "$BENCH_TESTBIN/ptsynth" "$dlf" "$null"; do
	[ -e "$f" ] || { echo "== dlfilter: $f not built, skipped"; exit 0; }
done
PERF_CONFIG=/dev/null
export PERF_CONFIG
fields=comm,pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period
script="perf script --ns --itrace=bep -F $fields"

for n in 10000 100000; do
	"$BENCH_TESTBIN/ptsynth" --timing coarse -o "$BENCH_TMP/loop-$n.data" \
		--truth "$BENCH_TMP/loop-$n.truth" -- "$corpus/loop" $n \
		>"$BENCH_TMP/loop-$n.log" 2>&1 || { cat "$BENCH_TMP/loop-$n.log" >&2; exit 1; }
done

echo "== dlfilter: perf script of Intel PT to the event stream (ptsynth loop, coarse timing)"
printf '%-34s %9s %8s %8s %8s\n' how branches "wall s" "x base" "RSS MiB"
for n in 10000 100000; do
	d=$BENCH_TMP/loop-$n.data
	for round in 1 2 3 4 5; do
		measure_best "base_$n" -n 1 -- $script -i "$d" --dlfilter "$null" || exit 1
		# as mt-record runs it: with perf's side band, resolutions kept
		measure_best "dlf_$n" -n 1 -- $script -i "$d" --dlfilter "$dlf" \
			--dlarg "$BENCH_TMP/dl-$n.mt" --dlarg sideband \
			--show-mmap-events --show-task-events || exit 1
		measure_best "dlfnosb_$n" -n 1 -- $script -i "$d" --dlfilter "$dlf" \
			--dlarg "$BENCH_TMP/dlnosb-$n.mt" || exit 1
		measure_best "text_$n" -n 1 -- sh -c \
			"$script -i '$d' | '$BENCH_BIN/mt-script-parse' >/dev/null" || exit 1
		measure_best "e2e_$n" -n 1 -- sh -c \
			"PATH='$BENCH_BIN':\$PATH; mt-record -i '$d' | mt-script-parse | mt-stacks | mt-fxt >/dev/null" || exit 1
	done
	cmp -s "$BENCH_TMP/dl-$n.mt" /dev/null && { echo "bench: empty stream" >&2; exit 1; }
	eval "branches_$n=\$('$BENCH_BIN/mt-dump' '$BENCH_TMP/dl-$n.mt' | grep -c ' BRANCH ')"
	cmp -s "$BENCH_TMP/dl-$n.mt" "$BENCH_TMP/dlnosb-$n.mt" ||
		{ echo "bench: the side band changed the stream" >&2; exit 1; }
	for k in base dlf dlfnosb text e2e; do
		eval "w=\$${k}_${n}_wall r=\$${k}_${n}_maxrss_kb b=\$base_${n}_wall br=\$branches_$n"
		case $k in
		base) label="perf, dlfilter keeping nothing" ;;
		dlf) label="perf, mt-dlfilter.so" ;;
		dlfnosb) label="  the same, no side band" ;;
		text) label="perf text | mt-script-parse" ;;
		e2e) label="mt-record -i | ... | mt-fxt" ;;
		esac
		printf '%-34s %9d %8.3f %8.2f %8.1f\n' "$label" "$br" "$w" \
			"$(calc "$w / $b")" "$(calc "$r / 1024")"
	done
done
ratio=$(calc "$e2e_100000_wall / $base_100000_wall")
text_ratio=$(calc "$text_100000_wall / $dlf_100000_wall")
echo "the text path takes $(calc "int($text_ratio * 100 + 0.5) / 100")x the dlfilter's time"
if [ "$(calc "$ratio <= 1.5")" = 1 ]; then g="goal met"; else g="goal missed"; fi
echo "the dlfilter alone takes $(calc "int($dlf_100000_wall / $base_100000_wall * 100 + 0.5) / 100")x perf keeping nothing"
echo "goal: the whole decode to FXT within 1.5x perf keeping nothing: $(calc "int($ratio * 100 + 0.5) / 100")x, $g"
if [ "$(calc "$dlf_100000_maxrss_kb <= $dlf_10000_maxrss_kb * 1.25 + 4096")" = 1 ]; then g="goal met"; else g="goal missed"; fi
echo "goal: dlfilter peak RSS flat in trace length: $(calc "int($dlf_10000_maxrss_kb / 1024)") MiB and $(calc "int($dlf_100000_maxrss_kb / 1024)") MiB, $g"
