# Benchmark section, sourced by tests/bench/run in a subshell: what the
# patch backend costs call-heavy programs with `--functions .`, recording
# every call (--max-overhead none) and within a budget (--max-overhead
# 10%: the functions called most turned off, docs/patch.md "The
# budget"), against the program untraced, in the same run. The workload's
# own time (preparation excluded): sqlite3's statements timed by its
# .timer (600,000 rows inserted, a LIKE scan, a GROUP BY, a self-join; its
# output must be the untraced one's), python3's loop by time.perf_counter
# (a dictionary of 300,000 entries built and read, 3 times). Best of 3
# each. Goal (issue 32): with 10%, at most 1.15 times untraced.
# shellcheck shell=sh disable=SC2034,SC2154
set -u
rec=$BENCH_BIN/mt-record
if [ ! -f "$BUILD/lib/libmt-patch.so" ]; then
	echo "== budget: $BUILD/lib/libmt-patch.so not built, skipped"
	exit 0
fi
cat >"$BENCH_TMP/sq.sql" <<'SQL'
.timer on
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x<600000) insert into t select x, 'row'||x from c;
select count(*) from t where b like '%99%';
select a%100, count(*) from t group by 1 order by 2 desc limit 3;
select count(*) from t t1 join t t2 on t2.a = t1.a+1 where t1.a < 100000;
SQL
cat >"$BENCH_TMP/py.py" <<'PY'
import time
t = time.perf_counter()
for r in range(3):
    d = {}
    for i in range(300000):
        d["k%d" % i] = [i, str(i)]
    s = sum(len(v[1]) for v in d.values())
print("workload_s=%.6f" % (time.perf_counter() - t))
PY
echo "== budget: workload time traced / untraced, mt-record --backend patch --functions ."
printf '%-10s %-24s %10s %8s %10s\n' program how "workload s" ratio "turned off"

# workload seconds from a run's output: sqlite3's "Run Time: real S" summed
sq_secs() { awk '/^Run Time: real/ { s += $4 } END { printf "%.6f\n", s }' "$1"; }
py_secs() { sed -n 's/^workload_s=//p' "$1"; }

# run PROG HOW: the best of 3 workload seconds into best, the functions
# turned off (of the last) into off
run() {
	best= off=0
	for i in 1 2 3; do
		out=$BENCH_TMP/b-$1.out err=$BENCH_TMP/b-$1.err
		if [ "$2" = untraced ]; then
			pre=
		else
			pre="$rec --backend patch --functions . --max-overhead $2 -o /dev/null --"
		fi
		case $1 in
		sqlite3) $pre sqlite3 :memory: <"$BENCH_TMP/sq.sql" >"$out" 2>"$err" || return 1
			 s=$(sq_secs "$out")
			 grep -v '^Run Time' "$out" >"$BENCH_TMP/b-sq-$2.res" ;;
		python3) $pre /usr/bin/python3 "$BENCH_TMP/py.py" >"$out" 2>"$err" || return 1
			 s=$(py_secs "$out") ;;
		esac
		[ -n "$s" ] || return 1
		if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$s
		fi
		off=$(sed -n 's/^mt-record: \([0-9]*\) functions\{0,1\} turned off.*/\1/p' "$err")
	done
	: "${off:=0}"
}

for p in sqlite3 python3; do
	case $p in
	sqlite3) command -v sqlite3 >/dev/null || { echo "-- sqlite3: not installed"; continue; } ;;
	python3) [ -x /usr/bin/python3 ] || { echo "-- python3: not installed"; continue; } ;;
	esac
	run $p untraced || { echo "bench: $p untraced failed" >&2; exit 1; }
	base=$best
	printf '%-10s %-24s %10.3f %8s %10s\n' $p untraced "$base" 1.00 -
	for how in none 10%; do
		run $p $how || { tail -3 "$BENCH_TMP/b-$p.err" >&2; echo "bench: $p $how failed" >&2; exit 1; }
		awk -v p=$p -v h="--max-overhead $how" -v s="$best" -v b="$base" -v o="$off" 'BEGIN {
			printf "%-10s %-24s %10.3f %8.2f %10s\n", p, h, s, s / b, (h ~ /none/ ? "-" : o) }'
		[ $p != sqlite3 ] || cmp -s "$BENCH_TMP/b-sq-untraced.res" "$BENCH_TMP/b-sq-$how.res" ||
			{ echo "bench: sqlite3's output with --max-overhead $how differs" >&2; exit 1; }
		[ "$how" != 10% ] || awk -v s="$best" -v b="$base" -v p=$p 'BEGIN {
			printf "goal: %s with --max-overhead 10%% at most 1.15 times untraced: %.2f -- %s\n",
				p, s / b, (s / b <= 1.15 ? "goal met" : "goal missed") }'
	done
done
