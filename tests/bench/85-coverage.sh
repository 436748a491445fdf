# Benchmark section, sourced by tests/bench/run in a subshell: the patch
# backend over whole programs, `mt-record --backend patch --functions .`:
# python3 -c pass, sqlite3 :memory: 'select 1', gzip -c of a small file,
# and a C++ program with libstdc++ (tests/progs/throwy-O2 100: exceptions
# thrown, rethrown and caught). Per program, from mt-record -v's list (one
# line a function: patched, wrapped, or why it was left alone): the
# functions considered, patched, left alone by reason, the coverage over
# the functions entered by a call, and what preparing costs a function.
# Goals (issue 29): at least 99.5% coverage, at most 10 us a function.
#
# The rule. Considered: every function of mt-record's table but the
# walkers (the rows named as shm.h's MTP_WALKERS: wrapped, not traced).
# Entered by a call: those considered, less the aliases, those not entered
# by a call (the entry point, signal returns, lazy binding), libgcc's
# unwinder, those that return twice, the parts of others (.cold) and the
# runtime's own. Coverage: patched / entered by a call; every other reason
# (too short, no size, undecodable, branch in, unrelocatable, ...) counts
# against it. Preparing: the best wall time of three traced runs (no -v,
# the trace to /dev/null) less the best of three untraced, over the
# functions considered. Beside it, what does not grow with the functions:
# the best of three traced runs that patch malloc alone (the walkers and
# the scan of every function of libc for branches into it are there too),
# and the rest over the functions considered less one. Beside them, the
# best of three with MT_CACHE=off: the files' symbols read by mt-record
# and their branches in the process, as on a program's first run (the
# runs above take both from mt-record's caches, which the -v run filled).
#
# Every function left alone goes to BUILD/bench/coverage-left.txt
# (program, reason, name, file; tab-separated); with -v (BENCH_VERBOSE=1)
# the first 10 names of each reason are printed too.
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
rec=$BENCH_BIN/mt-record
shm=$TOP/plugins/patch-runtime/shm.h
left=$BUILD/bench/coverage-left.txt
if [ ! -f "$BUILD/lib/libmt-patch.so" ]; then
	echo "== patch coverage: $BUILD/lib/libmt-patch.so not built, skipped"
	exit 0
fi
walkers=$(sed -n 's/^[[:space:]]*X("\([^"]*\)", MTP_FK_[A-Z_]*).*$/\1/p' "$shm" | tr '\n' ' ')
[ -n "$walkers" ] || { echo "bench: no walker names in $shm" >&2; exit 1; }
seq 1 20000 >"$BENCH_TMP/gzip-in.txt" || exit 1

# cmd_NAME PREFIX...: run PREFIX followed by the program's command line
cmd_python3() { "$@" /usr/bin/python3 -c pass; }
cmd_sqlite3() { "$@" sqlite3 :memory: 'select 1'; }
cmd_gzip() { "$@" gzip -c "$BENCH_TMP/gzip-in.txt"; }
cmd_cxx() { "$@" "$BENCH_TESTBIN/progs/throwy-O2" 100; }
label_python3="python3 -c pass"
label_sqlite3="sqlite3 :memory: 'select 1'"
label_gzip="gzip -c (seq 1 20000, $(wc -c <"$BENCH_TMP/gzip-in.txt") bytes)"
label_cxx="C++: tests/progs/throwy-O2 100"

echo "== patch coverage: mt-record --backend patch --functions . over whole programs"
echo "   coverage = patched / entered by a call; entered by a call = considered less"
echo "   aliases, not called, unwinder, returns twice, parts (.cold) and the runtime's"
echo "   own; considered = the table less the walkers (wrapped); us/function ="
echo "   (best traced - best untraced wall of 3) / considered; fixed: traced with"
echo "   --functions '^malloc\$' less untraced; the rest: (traced - that) / (considered - 1)"
printf 'program\treason\tname\tfile\n' >"$left" || exit 1
: >"$BENCH_TMP/cov-summary"
for p in python3 sqlite3 gzip cxx; do
	case $p in
	python3) have=/usr/bin/python3 ;;
	sqlite3) have=$(command -v sqlite3) ;;
	gzip) have=$(command -v gzip) ;;
	cxx) have=$BENCH_TESTBIN/progs/throwy-O2 ;;
	esac
	eval "label=\$label_$p"
	if [ -z "$have" ] || [ ! -x "$have" ]; then
		echo "-- $label: not run (${have:-$p} missing: scripts/deps.sh, make build-tests)"
		continue
	fi
	err=$BENCH_TMP/cov-$p.err
	if ! cmd_$p "$rec" --backend patch --functions . -v -o "$BENCH_TMP/cov.mt" -- \
		>/dev/null 2>"$err"; then
		tail -n 3 "$err" >&2
		echo "bench: mt-record --functions . -v -- $label failed" >&2
		exit 1
	fi
	for round in 1 2 3; do
		cmd_$p measure_best "u_$p" -n 1 -- 2>>"$BENCH_TMP/cov-$p.log" || exit 1
		cmd_$p measure_best "t_$p" -n 1 -- "$rec" --backend patch --functions . \
			-o /dev/null -- 2>>"$BENCH_TMP/cov-$p.log" ||
			{ tail -n 3 "$BENCH_TMP/cov-$p.log" >&2; exit 1; }
		cmd_$p measure_best "o_$p" -n 1 -- "$rec" --backend patch --functions '^malloc$' \
			-o /dev/null -- 2>>"$BENCH_TMP/cov-$p.log" ||
			{ tail -n 3 "$BENCH_TMP/cov-$p.log" >&2; exit 1; }
		cmd_$p measure_best "n_$p" -n 1 -- env MT_CACHE=off "$rec" --backend patch \
			--functions . -o /dev/null -- 2>>"$BENCH_TMP/cov-$p.log" ||
			{ tail -n 3 "$BENCH_TMP/cov-$p.log" >&2; exit 1; }
	done
	eval "tw=\$t_${p}_wall uw=\$u_${p}_wall ow=\$o_${p}_wall nw=\$n_${p}_wall"
	awk -v prog="$p" -v label="$label" -v walkers="$walkers" -v tw="$tw" -v uw="$uw" -v ow="$ow" \
		-v nw="$nw" \
		-v verbose="$BENCH_VERBOSE" -v left="$left" -v summary="$BENCH_TMP/cov-summary" \
		-f "$TOP/tests/bench/coverage.awk" "$err" || exit 1
done

[ -s "$BENCH_TMP/cov-summary" ] || exit 0
echo "-- all programs"
awk 'BEGIN {
	printf "%-8s %9s %8s %8s %9s %8s %8s %8s %8s %8s %8s\n", "program", "functions", "patched",
		"entered", "coverage", "traced s", "untrac s", "us/func", "fixed s", "rest us",
		"1st us"
	mincov = 101; maxus = -1
}
{
	printf "%-8s %9d %8d %8d %8.2f%% %8.3f %8.3f %8.1f %8.3f %8.1f %8.1f\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
	if ($5 < mincov) { mincov = $5; lowest = $1 }
	if ($8 > maxus) { maxus = $8; slowest = $1 }
}
END {
	printf "goal: at least 99.5%% of the functions entered by a call patched: lowest %.2f%% (%s) -- %s\n",
		mincov, lowest, (mincov >= 99.5 ? "goal met" : "goal missed")
	printf "goal: preparing at most 10 us a function: highest %.1f (%s) -- %s\n",
		maxus, slowest, (maxus <= 10 ? "goal met" : "goal missed")
	print "   (1st us: the same without the caches of mt-record, MT_CACHE=off: the first"
	print "   run of a program, which reads the symbols and branches of its files, then keeps them)"
}' "$BENCH_TMP/cov-summary"
echo "   (every function left alone, by program and reason: $left)"
# gzip's row holds its own 176,000 calls traced and a full ring read out
# at its end: its preparing alone is gzip -c of an empty file (the same
# functions, patched the same way, almost no call), best of three each,
# alternating
gz_fns=$(awk '$1 == "gzip" { print $2 }' "$BENCH_TMP/cov-summary")
if [ -n "$gz_fns" ]; then
	: >"$BENCH_TMP/gzip-empty.txt"
	for round in 1 2 3; do
		gzip -c "$BENCH_TMP/gzip-empty.txt" >/dev/null
		measure_best ge_u -n 1 -- gzip -c "$BENCH_TMP/gzip-empty.txt" \
			2>>"$BENCH_TMP/cov-gzip.log" || exit 1
		measure_best ge_t -n 1 -- "$rec" --backend patch --functions . -o /dev/null -- \
			gzip -c "$BENCH_TMP/gzip-empty.txt" 2>>"$BENCH_TMP/cov-gzip.log" || exit 1
	done
	awk -v t="$ge_t_wall" -v u="$ge_u_wall" -v n="$gz_fns" -f /dev/stdin "$BENCH_TMP/cov-summary" <<'AWK'
{ us[$1] = $8 }
END {
	g = (t - u) * 1e6 / n
	printf "gzip -c of an empty file (preparing alone): traced %.3f s, untraced %.3f s, %.1f us/function\n", t, u, g
	us["gzip"] = g; max = -1
	for (p in us) if (us[p] > max) { max = us[p]; slowest = p }
	printf "goal: preparing at most 10 us a function, gzip by its empty run: highest %.1f (%s) -- %s\n",
		max, slowest, (max <= 10 ? "goal met" : "goal missed")
}
AWK
fi

# Attaching (issue 29: under 150 ms): mt-record --backend patch -p PID
# --functions . to a python3 that sleeps 50 ms at a time, from mt-record's
# start to its "recording" line (read from a pipe as it comes: a polling
# loop would take the CPU the attach needs), then Ctrl+C; 7 attaches to
# the one process, their median, least and most.
if /usr/bin/python3 -c pass 2>/dev/null; then
	echo "-- attach: mt-record --backend patch -p PID --functions . (python3, sleeping) to \"recording\""
	/usr/bin/python3 -c 'import time
while True: time.sleep(0.05)' &
	py=$!
	sleep 0.5
	fifo=$BENCH_TMP/attach-err
	rm -f "$fifo" && mkfifo "$fifo" || exit 1
	: >"$BENCH_TMP/attach-ms"
	ok=1
	for i in 1 2 3 4 5 6 7; do
		t0=$(date +%s%N)
		"$rec" --backend patch -p "$py" --functions . -o /dev/null 2>"$fifo" &
		r=$!
		exec 3<"$fifo"
		seen=0
		while IFS= read -r l <&3; do
			case $l in
			"mt-record: recording $py with patch"*) seen=1; break ;;
			esac
			printf '%s\n' "$l" >>"$BENCH_TMP/attach.log"
		done
		t1=$(date +%s%N)
		kill -INT $r 2>/dev/null
		cat <&3 >>"$BENCH_TMP/attach.log" # to its end: the rest of its lines
		exec 3<&-
		wait $r
		if [ $seen = 0 ]; then
			ok=0
			tail -n 3 "$BENCH_TMP/attach.log" >&2
			break
		fi
		echo $(((t1 - t0) / 1000000)) >>"$BENCH_TMP/attach-ms"
		sleep 0.2
	done
	kill $py
	wait $py 2>/dev/null
	[ $ok = 1 ] || { echo "bench: mt-record -p python3 did not record" >&2; exit 1; }
	sort -n "$BENCH_TMP/attach-ms" | awk '{ v[NR] = $1 } END {
		printf "attach ms: median %d (least %d, most %d, of %d)\n", v[int((NR + 1) / 2)], v[1], v[NR], NR
		printf "goal: attach to python3 under 150 ms (median): %s\n",
			(v[int((NR + 1) / 2)] < 150 ? "goal met" : "goal missed")
	}'
fi
