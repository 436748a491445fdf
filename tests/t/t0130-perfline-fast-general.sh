#!/bin/sh
# The perf script line parser's fast paths (the usual header, the usual
# branch line) decide exactly as its general parser: the same result, the
# same reason, the same fields, on every line of the real perf output in
# the fixtures, of the parse cases, and of generated traces in every
# layout gen-perf-script knows (the fuzzer checks the same on any bytes);
# so does the parse with the hint of the last branch's target (most
# sources and many targets are then read by compares).
. "$MT_TOP/tests/lib.sh"
for layout in magic-trace legacy comm-cpu perf615; do
	gen-perf-script --lines 20000 --seed 7 --layout "$layout" >"gen-$layout.txt" ||
		fail "gen-perf-script --layout $layout"
done
perfline-agree "$MT_FIXTURES"/perf-script/*.txt "$MT_TOP"/tests/cases/script-parse/*.t \
	gen-*.txt >out 2>err || { cat err >&2; fail "fast and general parsers disagree"; }
cat out >&2
n=$(cut -d' ' -f1 out)
[ "$n" -gt 80000 ] || fail "only $n lines"
hf=$(cut -d' ' -f5 out) ht=$(cut -d' ' -f8 out)
[ "$hf" -gt $((n / 3)) ] && [ "$ht" -gt $((n / 5)) ] ||
	fail "only $hf sources and $ht targets of $n lines were read through the hint"
