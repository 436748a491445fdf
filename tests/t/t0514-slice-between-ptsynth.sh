#!/bin/sh
# mt-slice --between on real programs' traces (ptsynth: perf decoding
# synthetic Intel PT of the corpus programs, tests/ptsynth): ld.so's symbol
# lookups in threads, direct and mutual recursion (nested STARTs: the later
# one counts) in recursion. The truth is worked out from mt-dump of the
# un-sliced stream alone (dump_calls, between_truth); the stream, its FXT
# file (plain and gzip-compressed) and the same slices in magic-trace's
# layout (fxt-mtrace) give exactly that, and every result nests.
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need threads recursion

nodepth() {
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' "$1" | sort
}

# check MT START STOP MIN: the regions of START and STOP (MIN of them at
# least) and what mt-slice keeps of MT and its FXT files
check() {
	dump_calls "$1" >calls
	between_truth "$2" "$3" calls >want
	n=$(wc -l <regions)
	[ "$n" -ge "$4" ] || fail "$1: $2 $3: $n regions, expected $4 at least"
	mt-slice --between "$2" "$3" "$1" >b.mt
	spans-check b.mt >sc || { cat sc >&2; fail "$1 $2 $3: spans-check"; }
	dump_spans b.mt >got
	same_file want got
	mt-fxt "$1" >t.fxt
	mt-fxt --gzip "$1" >t.fxt.gz
	fxt-check --slices t.fxt 2>/dev/null | fxt-mtrace >mtr.fxt
	for f in t.fxt t.fxt.gz mtr.fxt; do
		mt-slice --between "$2" "$3" $f >b.fxt
		fxt_slices b.fxt >b.d
		nodepth b.d >got
		same_file want got
	done
	echo "$1: $2 $3: $n regions, $(wc -l <want) spans"
}

pts_run threads fine
check threads-fine.mt '^_dl_lookup_symbol_x$' '^check_match$' 10
check threads-fine.mt '^do_lookup_x$' '^strcmp$' 10
pts_run recursion fine
if ! grep -q '	is_even$' recursion-fine.spans; then
	# (ptsynth built with the sanitizers may lose the program in ld.so)
	echo "skipped: recursion: the recording ends before main: $(tail -n 1 recursion-fine.log)"
	exit 0
fi
# is_even(9) calls is_odd(8) calls is_even(7) ...: five regions, each
# from an is_even call to the is_odd call it makes
check recursion-fine.mt '^is_even$' '^is_odd$' 5
[ "$(wc -l <regions)" -eq 5 ] || fail "recursion: $(wc -l <regions) is_even regions"
# every is_odd call before the first ackermann: the last one counts
check recursion-fine.mt '^is_odd$' '^ackermann$' 1
[ "$(wc -l <regions)" -eq 1 ] || fail "recursion: $(wc -l <regions) is_odd..ackermann regions"
first=$(awk -F'\t' '$6 == "is_odd" { print $3 }' calls | sort -n | head -1)
from=$(cut -d' ' -f1 regions)
[ "$from" -gt "$first" ] || fail "recursion: the region starts at the first is_odd call"
