#!/bin/sh
# mt-slice --between START STOP against ground truth: for a simulated
# program whose every call span is known (gen-perf-script --truth), the
# regions from a START call to the next STOP call (across threads) and the
# spans cut to them are worked out from the truth alone (between_truth);
# the mt stream and its FXT files (mt-fxt's complete events, fxt-be's
# begin/end pairs, fxt-mtrace's magic-trace layout, gzip-compressed) give
# exactly that; --from/--to cut the regions, --tid and --min-duration pick
# spans as without --between; every result nests by Perfetto's rules.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 5 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
mt-fxt spans.mt >t.fxt
fxt-check --slices t.fxt 2>/dev/null | fxt-be >be.fxt
fxt-check --slices t.fxt 2>/dev/null | fxt-mtrace >mtr.fxt
gzip -c be.fxt >be.fxt.gz
# the truth as between_truth reads it: no call of an inferred frame
awk -F'\t' -v OFS='\t' '{ print $1, $2, $4, $5, $6 ~ /inferred/ ? 0 : 1, $7 }' \
	truth.txt >calls

nodepth() {
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' "$1" | sort
}

# check OPTIONS...: mt-slice OPTIONS on the stream and on every FXT file
# gives want
check() {
	mt-slice "$@" spans.mt >b.mt
	spans-check b.mt >sc || { cat sc >&2; fail "$*: spans-check"; }
	dump_spans b.mt >got
	same_file want got
	for f in t.fxt be.fxt mtr.fxt be.fxt.gz; do
		mt-slice "$@" $f >b.fxt
		fxt_slices b.fxt >b.d
		nodepth b.d >got
		same_file want got
	done
}

for pair in '^__poll$ ^__nanosleep$' '_IO_fwrite sysmalloc' \
	'^__memchr memcmp' 'printf_fp_l$ strcmp'; do
	set -- $pair
	between_truth "$1" "$2" calls >want
	n=$(wc -l <regions)
	[ "$n" -ge 20 ] || fail "$1 $2: $n regions (pick other names)"
	[ "$(wc -l <want)" -ge 1000 ] || fail "$1 $2: few spans kept"
	check --between "$1" "$2"
	# spans cut at a region's edge, and only they, are flagged
	c=$(mt-dump b.mt | grep -c 'CLIPSTART\|CLIPEND' || true)
	w=$(awk 'NR == FNR { f[NR] = $1 + 0; t[NR] = $2 + 0; n = NR; next }
		{ s = $3 + 0; e = $4 + 0
		  for (i = 1; i <= n; i++) if (s == f[i] || e == t[i]) { c++; break } }
		END { print c + 0 }' regions want)
	[ "$c" -ge 1 ] && [ "$c" -le "$w" ] || fail "$1 $2: $c spans flagged clipped, $w at an edge"
done

# a window cuts the regions; --tid and --min-duration pick the spans
set -- _IO_fwrite sysmalloc
base=$(sort -n -k4,4 truth.txt | head -1 | cut -f4)
tid=$(cut -f2 truth.txt | sort -u | head -1)
between_regions "$1" "$2" calls $(($base + 300000)) $(($base + 900000))
awk -F'\t' -v t="$tid" '$2 == t && $4 - $3 >= 20' calls >calls.t
between_cut regions calls.t >want
[ "$(wc -l <want)" -ge 50 ] || fail "window: few spans kept"
check --from 300000ns --to 900000ns --tid "$tid" --min-duration 20ns \
	--between "$1" "$2"
# --abs: the same window in perf's times
check --abs --from $(($base + 300000))ns --duration 600000ns --tid "$tid" \
	--min-duration 20ns --between "$1" "$2"
