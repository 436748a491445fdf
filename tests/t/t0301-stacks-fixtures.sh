#!/bin/sh
# Every file of real perf output in the fixtures (magic-trace's tests and
# issues: many threads, kernel traces, decode errors, sampled stacks, lines
# out of time order) goes through mt-stacks, with and without spreading,
# without an error, and the spans it writes break none of Perfetto's
# nesting rules (spans-check).
. "$MT_TOP/tests/lib.sh"

for f in "$MT_FIXTURES"/perf-script/magic-trace-*.txt; do
	name=$(basename "$f")
	mt-script-parse "$f" >in.mt
	for opt in "" --no-spread; do
		# shellcheck disable=SC2086
		mt-stacks $opt in.mt >out.mt 2>err || { cat err >&2; fail "$name $opt: exit"; }
		spans-check out.mt >check 2>&1 || { cat check >&2; fail "$name $opt: spans-check"; }
		n=$(mt-dump out.mt | grep -c ' SPAN ' || true)
		[ "$n" -gt 0 ] || fail "$name $opt: no spans"
	done
done
