#!/bin/sh
# Each tests/cases/script-parse/*.t holds perf script lines (real ones, from
# ../shared/fixtures or perf's docs) and the records they must become, as
# mt-dump prints them without offsets and STRING records. Sections:
#   --- input            the perf script text
#   --- expect           the records
#   --- args             (optional) options for mt-script-parse
#   --- exit             (optional) expected exit status, default 0
#   --- stderr           (optional) lines that stderr must contain
. "$MT_TOP/tests/lib.sh"
export TZ=UTC # tod columns are local time

n=0
for t in "$CASES"/script-parse/*.t; do
	n=$((n + 1))
	name=$(basename "$t" .t)
	rm -f input expect args exit stderr
	awk '/^--- [a-z]+$/ { f = $2; next } f { print > f }' "$t"
	touch input expect args stderr
	want=0; [ -f exit ] && want=$(cat exit)
	set +e
	mt-script-parse $(cat args) input >out.mt 2>err
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat err >&2; fail "$name: exit $got, expected $want"; }
	while IFS= read -r l; do
		[ -n "$l" ] && { grep -qF -- "$l" err || { cat err >&2; fail "$name: stderr lacks '$l'"; }; }
	done <stderr
	[ "$want" -ne 0 ] && continue
	[ -s stderr ] || [ ! -s err ] || { cat err >&2; fail "$name: unexpected stderr"; }
	mt-dump out.mt | cut -d' ' -f2- | grep -v -e '^STRING ' -e '^HEADER ' \
		-e '^META ' -e '^END ' >got || fail "$name: mt-dump failed"
	diff -u expect got >&2 || fail "$name: records differ"
done
[ "$n" -gt 0 ] || fail "no cases found"
echo "$n cases"
