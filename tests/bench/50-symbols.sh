# Benchmark section, sourced by tests/bench/run in a subshell:
# mt-symbols listing every function symbol of large shared libraries (libc,
# and the largest library in /usr/lib/x86_64-linux-gnu when it has over
# 10,000 symbols) against nm -D --defined-only on the same file (goal: no
# slower), and against nm -DC (which demangles as mt-symbols does).
# shellcheck shell=sh disable=SC2034,SC2154 # variables are set and read by eval
set -u
sym=$BENCH_BIN/mt-symbols
files=
for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6; do
	[ -f "$f" ] && { files=$f; break; }
done
big=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -n 1)
[ -n "$big" ] && [ "$big" != "$files" ] && files="$files $big"
[ -n "$files" ] || { echo "== mt-symbols: no library to list, skipped"; exit 0; }

echo "== mt-symbols: list every function symbol, as a ratio to nm on the same file"
printf '%-28s %8s %8s %8s %8s %9s %9s\n' file symbols "mt s" "nm -D s" "nm -DC s" "x nm -D" "x nm -DC"
i=0
for f in $files; do
	i=$((i + 1))
	for round in 1 2 3 4 5; do
		measure_best "mt$i" -n 1 -o /dev/null -- "$sym" "$f" || exit 1
		measure_best "nm$i" -n 1 -o /dev/null -- nm -D --defined-only "$f" || exit 1
		measure_best "nmc$i" -n 1 -o /dev/null -- nm -DC --defined-only "$f" || exit 1
	done
	n=$("$sym" "$f" | wc -l)
	eval "m=\$mt${i}_wall a=\$nm${i}_wall c=\$nmc${i}_wall"
	awk -v f="$(basename "$f")" -v n="$n" -v m="$m" -v a="$a" -v c="$c" 'BEGIN {
		printf "%-28s %8d %8.3f %8.3f %8.3f %9.2f %9.2f\n", f, n, m, a, c,
			m / a, m / c }'
done
echo "   (goal: x nm -D <= 1; mt-symbols also demangles, and reads .symtab and the PLT)"
