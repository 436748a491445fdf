#!/bin/sh
# mt-slice --match and --max-depth on FXT files: on mt-fxt's complete
# events and on fxt-be's begin/end pairs, --match keeps exactly the slices
# related to a match by Perfetto's nesting (fxt-check --slices: the
# importer's sort and SliceTracker), zero-length ones included, at the
# depth Perfetto gave them in the input; on the complete events, the slices
# of non-zero length are those --match keeps on the mt stream, but for the
# ancestors of zero-length matches Perfetto puts beside them; --max-depth N
# leaves every slice shallower than N by Perfetto's depth and none deeper;
# fxt-check finds no problem in any of them.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 7 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
mt-fxt spans.mt >t.fxt
fxt-check --slices t.fxt 2>/dev/null | fxt-be >be.fxt
fxt-check --slices t.fxt 2>/dev/null | sort >all.t

nodepth() {
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' "$1" | sort
}

# the slices of fxt-check --slices output (in its order: by thread, then
# as Perfetto met them) related to a match of RE in Perfetto's tree: a
# slice's parent is the last slice before it one level up on its thread
related() {
	awk -v re="$1" '
	{
		n++; line[n] = $0; th = $1 " " $2; d = $5
		if (th != cur) { cur = th; delete last }
		par[n] = d > 0 ? last[d - 1] : 0; last[d] = n
		nm = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* /, "", nm)
		m[n] = (nm ~ re); inm[n] = par[n] && (m[par[n]] || inm[par[n]])
		if (m[n]) for (p = par[n]; p && !holds[p]; p = par[p]) holds[p] = 1 }
	END {
		for (i = 1; i <= n; i++)
			if (m[i] || inm[i] || holds[i]) print line[i]
	}' "$2"
}

for re in '^__memmove' 'Feed_parser' 'drop'; do
	for f in t be; do
		fxt-check --slices $f.fxt 2>/dev/null >all
		related "$re" all | sort >want
		[ -s want ] || fail "--match $re: no match (pick another name)"
		mt-slice --match "$re" $f.fxt >m.fxt
		fxt_slices m.fxt >got
		same_file want got
	done
	# the mt stream agrees on the spans of non-zero length but for those
	# whose only related match is a zero-length one Perfetto put beside
	# them (at their start or end)
	mt-slice --match "$re" spans.mt >m.mt
	dump_spans m.mt | awk '$3 != $4' >stream
	mt-slice --match "$re" t.fxt >m.fxt
	fxt_slices m.fxt >got.d
	nodepth got.d | awk '$3 != $4' >got
	comm -13 stream got >extra
	[ ! -s extra ] || { cat extra >&2; fail "--match $re: FXT kept spans the stream did not"; }
	# each span lost holds a zero-length match at its start or end
	nodepth all.t | awk -v re="$re" '$3 == $4 {
		nm = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* /, "", nm)
		if (nm ~ re) print $1, $2, $3 }' | sort -u >zero.at
	comm -23 stream got >lost
	awk 'NR == FNR { z[$0] = 1; next }
		!(($1 " " $2 " " $3) in z) && !(($1 " " $2 " " $4) in z)' zero.at lost >odd
	[ ! -s odd ] || { cat odd >&2; fail "--match $re: spans lost with no zero-length match at their edge"; }
done

# --max-depth: the slices shallower than N by Perfetto's depth, all of them
for f in t be; do
	fxt_slices $f.fxt >all
	for n in 0 2 5; do
		mt-slice --max-depth $n $f.fxt >d.fxt
		awk -v n=$n '$5 < n' all >want
		fxt_slices d.fxt >got.d
		awk -v n=$n '$5 >= n' got.d >deep
		[ ! -s deep ] || fail "$f: --max-depth $n: deeper slices left"
		same_file want got.d
	done
done

# with a window, a minimum length and --match together: what --match keeps
# of the window's slices, the same as on the mt stream
base=$(sort -n -k4,4 truth.txt | head -1 | cut -f4)
lo=$(($base + 200000)); hi=$(($base + 700000))
for f in t be; do
	mt-slice --abs --from "${lo}ns" --to "${hi}ns" --min-duration 20ns \
		--match Feed_parser spans.mt >m.mt
	dump_spans m.mt | awk '$3 != $4' >want
	[ -s want ] || fail "window: no match"
	mt-slice --abs --from "${lo}ns" --to "${hi}ns" --min-duration 20ns \
		--match Feed_parser $f.fxt >m.fxt
	fxt_slices m.fxt >got.d
	nodepth got.d | awk '$3 != $4' >got
	same_file want got
	# gzip input: the same output
	gzip -c $f.fxt | mt-slice --abs --from "${lo}ns" --to "${hi}ns" \
		--min-duration 20ns --match Feed_parser >gz.fxt
	cmp m.fxt gz.fxt || fail "$f: gzip input differs"
done

# a match nowhere: no slice, the file still good
mt-slice --match 'no such name at all' t.fxt >none.fxt
fxt_slices none.fxt >got
[ ! -s got ] || fail "--match of nothing kept slices"

# bad input still fails naming the byte offset
head -c 1000 t.fxt >trunc.fxt
expect_exit 1 mt-slice --match x trunc.fxt >out 2>err
contains err "trunc.fxt: byte offset 0x"
