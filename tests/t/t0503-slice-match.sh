#!/bin/sh
# mt-slice --match against ground truth: the spans whose name matches, with
# all their ancestors and descendants on the same thread, nothing else;
# Perfetto drops none of them. (Zero-length spans are not compared: at the
# very nanosecond where one span ends and another starts, times alone do
# not tell which of them holds a zero-length one.)
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 7 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt

# the truth's spans related to a match of RE: matches, spans containing a
# match (ancestors) and spans a match contains (descendants), per thread
related() {
	awk -F'\t' -v re="$1" '
	# a inside b: intervals are half-open, so a span starting where b
	# ends is not inside it (unless b is zero-length there too)
	function within(a, b) {
		return s[b] <= s[a] && e[a] <= e[b] && !(s[a] == e[b] && s[b] < e[b])
	}
	# only the matches of the same thread can relate a span: they are
	# listed per thread, so each span is compared with those alone
	{
		n++; pid[n] = $1; tid[n] = $2; d[n] = $3; s[n] = $4 + 0; e[n] = $5 + 0
		name[n] = $7; m[n] = ($7 ~ re)
		if (m[n]) { th = $1 SUBSEP $2; nm[th]++; mi[th, nm[th]] = n } }
	END {
		for (i = 1; i <= n; i++) {
			keep = m[i]
			th = pid[i] SUBSEP tid[i]
			for (k = 1; k <= nm[th] && !keep; k++) {
				j = mi[th, k]
				if (d[i] < d[j] && within(j, i)) keep = 1
				if (d[i] > d[j] && within(i, j)) keep = 1
			}
			if (keep) printf "%s %s %.0f %.0f %s\n", pid[i], tid[i], s[i], e[i], name[i]
		}
	}' truth.txt | sort
}

for re in '^__memmove' 'Feed_parser' 'drop'; do
	mt-slice --match "$re" spans.mt >m.mt
	spans-check m.mt >check 2>&1 || true
	grep -q ' 0 dropped' check || { cat check >&2; fail "--match $re: spans-check"; }
	# zero-length spans at the edge of another are left out of the
	# comparison: from times alone, which one holds them is ambiguous
	related "$re" | awk '$3 != $4' >want
	[ -s want ] || fail "--match $re: the truth has no match (pick another name)"
	dump_spans m.mt | awk '$3 != $4' >got
	same_file want got
done

expect_exit 2 mt-slice --match '(' spans.mt >out 2>err
contains err "--match (: at offset 1:"
