#!/bin/sh
# mt-slice against ground truth: for simulated programs whose every call
# span is known (gen-perf-script --truth), a window cut from mt-stacks'
# spans holds exactly the truth's spans clipped to the window (flagged where
# clipped), --min-duration leaves no shorter span, --tid keeps one thread;
# every result still nests by Perfetto's rules.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 5 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
base=$(sort -n -k4,4 truth.txt | head -1 | cut -f4)


# the truth covers the whole trace: mt-stacks reproduces it
clip_truth truth.txt "$base" 0 999999999999 >want
dump_spans spans.mt >got
same_file want got

for w in "1000 5000" "0 2000" "7000 9000000"; do
	set -- $w
	mt-slice --from "${1}ns" --to "${2}ns" spans.mt >slice.mt
	spans-check slice.mt >check || { cat check >&2; fail "window $w: spans-check"; }
	clip_truth truth.txt "$base" "$1" "$2" >want
	dump_spans slice.mt >got
	same_file want got
	# clipped spans, and only they, carry the flags
	c=$(mt-dump slice.mt | grep -c 'CLIPSTART\|CLIPEND' || true)
	w2=$(awk -F'\t' -v lo=$(($base + $1)) -v hi=$(($base + $2)) '
		$4 < hi && !($4 < lo && $5 <= lo) && ($4 < lo || $5 > hi)' truth.txt | wc -l)
	[ "$c" -eq "$w2" ] || fail "window $w: $c spans flagged clipped, $w2 crossed an edge"
done

# --duration is --to relative to --from; --abs takes perf's times
mt-slice --from 1000ns --duration 4000ns spans.mt >a.mt
mt-slice --from 1000ns --to 5000ns spans.mt >b.mt
cmp a.mt b.mt || fail "--duration differs from --to"
lo=$(($base + 1000)); hi=$(($base + 5000))
mt-slice --abs --from "${lo}ns" --to "${hi}ns" spans.mt >c.mt
cmp a.mt c.mt || fail "--abs differs"

# --min-duration 200ns: no shorter span remains, the rest are all there
mt-slice --min-duration 200ns spans.mt >long.mt 2>err
clip_truth truth.txt "$base" 0 999999999999 200 >want
dump_spans long.mt >got
same_file want got
spans-check long.mt >check || { cat check >&2; fail "--min-duration: spans-check"; }
mt-fxt long.mt >long.fxt
fxt-check long.fxt >check || { cat check >&2; fail "--min-duration: fxt-check"; }

# --tid
tid=$(cut -f2 truth.txt | sort -u | head -1)
mt-slice --tid "$tid" spans.mt >one.mt
n=$(dump_spans one.mt | awk -v t="$tid" '$2 != t' | wc -l)
[ "$n" -eq 0 ] || fail "--tid kept $n spans of other threads"
[ "$(dump_spans one.mt | wc -l)" -eq "$(awk -F'\t' -v t="$tid" '$2 == t' truth.txt | wc -l)" ] ||
	fail "--tid lost spans of its thread"
