#!/bin/sh
# mt-slice --between with --match and --max-depth, and on slices that
# never end: the other options pick slices as they do without --between
# (--match: a match counts when it meets a region; its ancestors and
# descendants by Perfetto's nesting, fxt-check --slices) and what they pick
# is cut to the regions, worked out from the un-sliced file alone; the
# mt stream gives the same spans as its FXT files; a begin that never ends
# is re-begun at every later region's start and ended at its end.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 7 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
mt-fxt spans.mt >t.fxt
fxt-check --slices t.fxt 2>/dev/null >all.sl
fxt-be <all.sl >be.fxt
fxt-check --slices be.fxt 2>/dev/null >all.be
dump_calls spans.mt >calls
set -- '^__libc_read$' '^__strlen'
between_regions "$1" "$2" calls
[ "$(wc -l <regions)" -ge 20 ] || fail "few regions (pick other names)"

nodepth() {
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' "$1" | sort
}
# tocalls SLICES: fxt-check --slices lines as between_cut reads them
tocalls() {
	awk -v OFS='\t' '{ nm = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* /, "", nm)
		print $1, $2, $3, $4, 1, nm }' "$1"
}

# --max-depth N: the slices shallower than N by Perfetto's depth, cut
for n in 2 5; do
	for f in be t; do
		awk -v n=$n '$5 < n' all.$( [ $f = t ] && echo sl || echo be) >d.sl
		tocalls d.sl >d.calls
		between_cut regions d.calls >want
		[ -s want ] || fail "--max-depth $n: nothing kept"
		mt-slice --max-depth $n --between "$1" "$2" $f.fxt >d.fxt
		fxt_slices d.fxt >got.d
		nodepth got.d >got
		same_file want got
	done
	# the stream, by the depth of its FXT file (t, last)
	mt-slice --max-depth $n --between "$1" "$2" spans.mt >d.mt
	dump_spans d.mt >got
	same_file want got
done

# --match RE: the slices related to a match that meets a region (a slice's
# parent is the last slice before it one level up on its thread, in
# fxt-check's order), cut to the regions
related() {
	awk -v re="$1" 'NR == FNR { n_r++; rf[n_r] = $1 + 0; rt[n_r] = $2 + 0; next }
	{
		n++; line[n] = $0; th = $1 " " $2; d = $5
		if (th != cur) { cur = th; delete last }
		par[n] = d > 0 ? last[d - 1] : 0; last[d] = n
		nm = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* /, "", nm)
		s = $3 + 0; e = $4 + 0; meets = 0
		for (i = 1; i <= n_r && !meets; i++)
			meets = s < rt[i] && (s >= rf[i] || e > rf[i])
		m[n] = nm ~ re && meets; inm[n] = par[n] && (m[par[n]] || inm[par[n]])
		if (m[n]) for (p = par[n]; p && !holds[p]; p = par[p]) holds[p] = 1 }
	END {
		for (i = 1; i <= n; i++)
			if (m[i] || inm[i] || holds[i]) print line[i]
	}' regions "$2"
}
for re in Feed_parser drop '^__memmove'; do
	for f in t be; do
		related "$re" all.$( [ $f = t ] && echo sl || echo be) >m.sl
		tocalls m.sl >m.calls
		between_cut regions m.calls >want
		[ -s want ] || fail "--match $re: nothing kept (pick another name)"
		mt-slice --match "$re" --between "$1" "$2" $f.fxt >m.fxt
		fxt_slices m.fxt >got.d
		nodepth got.d >got
		same_file want got
	done
	# the stream agrees on the spans of non-zero length
	awk '$3 != $4' want >want.nz
	mt-slice --match "$re" --between "$1" "$2" spans.mt >m.mt
	dump_spans m.mt | awk '$3 != $4' >got
	same_file want.nz got
done

# slices that never end (the last ones of each thread, an end of "-" to
# fxt-be): cut at the end of every region after their start
awk '{ if (!($1 " " $2 in mx) || $4 > mx[$1 " " $2]) mx[$1 " " $2] = $4; l[NR] = $0 }
	END { for (i = 1; i <= NR; i++) { split(l[i], x, " ")
		if (x[4] == mx[x[1] " " x[2]]) sub(/^[^ ]* [^ ]* [^ ]* [^ ]*/,
			x[1] " " x[2] " " x[3] " -", l[i]); print l[i] } }' all.sl >open.sl
grep -q ' - ' open.sl || fail "no slice left open"
fxt-be <open.sl >open.fxt
awk -v OFS='\t' '{ nm = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* /, "", nm)
	print $1, $2, $3, $4 == "-" ? "1e300" : $4, 1, nm }' open.sl >open.calls
between_cut regions open.calls >want
mt-slice --between "$1" "$2" open.fxt >o.fxt
fxt_slices o.fxt >got.d
nodepth got.d >got
same_file want got
# without --between, the open ones stay open
fxt-check --slices open.fxt 2>/dev/null | grep -q ' - ' || fail "fxt-be closed the open slices"
