#!/bin/sh
# tests/fixtures is a copy of the shared fixtures (real perf output); where
# the shared ones are present, the copy must not have drifted from them.
. "$MT_TOP/tests/lib.sh"

shared=$MT_TOP/../shared/fixtures
[ -d "$MT_FIXTURES/perf-script" ] || fail "no fixtures in $MT_FIXTURES"
n=$(ls "$MT_FIXTURES"/perf-script/*.txt | wc -l)
[ "$n" -ge 4 ] || fail "only $n fixture files"
if [ -d "$shared/perf-script" ]; then
	for f in "$shared"/perf-script/*; do
		cmp "$f" "$MT_FIXTURES/perf-script/$(basename "$f")" ||
			fail "tests/fixtures differs from $f: copy it again"
	done
else
	echo "no shared fixtures beside the checkout: copy not compared"
fi
