#!/bin/sh
# mt-slice --match and --max-depth on FXT files: on mt-fxt's complete
# events, --match keeps the same slices as --match on the mt stream
# (zero-length ones not compared: see t0503); on fxt-be's begin/end pairs,
# those related to a match by Perfetto's nesting; --max-depth N leaves every
# slice shallower than N by Perfetto's depth and none deeper; fxt-check
# finds no problem in any of them.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 7 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
mt-fxt spans.mt >t.fxt
fxt-check --slices t.fxt 2>/dev/null | fxt-be >be.fxt

spans() {
	mt-dump "$1" | awk '/ SPAN / && !/kind=gap/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		name = $0; sub(/.* name="/, "", name); sub(/" dso=.*/, "", name)
		s = f["start"]; e = f["end"]; sub(/\./, "", s); sub(/\./, "", e)
		printf "%s %s %.0f %.0f %s\n", f["pid"], f["tid"], s, e, name }' | sort
}
# the slices of an FXT file after checking it, with their depth:
# pid tid start end depth name
slices() {
	fxt-check --slices "$1" >sl 2>check || { cat check >&2; fail "$1: fxt-check"; }
	sort sl
}
nodepth() {
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' "$1" | sort
}

# the slices of fxt-check --slices output related to a match of RE, by
# Perfetto's depth: fxt-be's file says no more (a zero-length slice where
# one ends and the next starts is beside both there, whatever the mt
# stream said)
related() {
	awk -v re="$1" '
	function within(a, b) {
		return s[b] <= s[a] && e[a] <= e[b] && !(s[a] == e[b] && s[b] < e[b])
	}
	{
		n++; line[n] = $0; pid[n] = $1; tid[n] = $2; s[n] = $3 + 0
		e[n] = $4 + 0; d[n] = $5; nm = $0
		sub(/^[^ ]* [^ ]* [^ ]* [^ ]* [^ ]* /, "", nm); m[n] = (nm ~ re) }
	END {
		for (i = 1; i <= n; i++) {
			keep = m[i]
			for (j = 1; j <= n && !keep; j++) {
				if (!m[j] || tid[j] != tid[i] || pid[j] != pid[i]) continue
				if (d[i] < d[j] && within(j, i)) keep = 1
				if (d[i] > d[j] && within(i, j)) keep = 1
			}
			if (keep) print line[i]
		}
	}' "$2"
}

for re in '^__memmove' 'Feed_parser' 'drop'; do
	mt-slice --match "$re" spans.mt >m.mt
	spans m.mt | awk '$3 != $4' >want
	[ -s want ] || fail "--match $re: no match (pick another name)"
	mt-slice --match "$re" t.fxt >m.fxt
	slices m.fxt >got.d
	nodepth got.d | awk '$3 != $4' >got
	same_file want got
	slices be.fxt >all
	related "$re" all >want.d
	nodepth want.d | awk '$3 != $4' >want
	mt-slice --match "$re" be.fxt >m.fxt
	slices m.fxt >got.d
	nodepth got.d | awk '$3 != $4' >got
	same_file want got
done

# --max-depth: the slices shallower than N by Perfetto's depth, all of them
for f in t be; do
	slices $f.fxt >all
	for n in 0 2 5; do
		mt-slice --max-depth $n $f.fxt >d.fxt
		awk -v n=$n '$5 < n && $3 != $4' all >want
		slices d.fxt >got.d
		awk -v n=$n '$5 >= n' got.d >deep
		[ ! -s deep ] || fail "$f: --max-depth $n: deeper slices left"
		awk '$3 != $4' got.d >got
		same_file want got
	done
done

# with a window, a minimum length and --match together: what --match keeps
# of the window's slices, the same as on the mt stream
base=$(sort -n -k4,4 truth.txt | head -1 | cut -f4)
lo=$(($base + 200000)); hi=$(($base + 700000))
for f in t be; do
	mt-slice --abs --from "${lo}ns" --to "${hi}ns" --min-duration 20ns \
		--match Feed_parser spans.mt >m.mt
	spans m.mt | awk '$3 != $4' >want
	[ -s want ] || fail "window: no match"
	mt-slice --abs --from "${lo}ns" --to "${hi}ns" --min-duration 20ns \
		--match Feed_parser $f.fxt >m.fxt
	slices m.fxt >got.d
	nodepth got.d | awk '$3 != $4' >got
	same_file want got
	# gzip input: the same output
	gzip -c $f.fxt | mt-slice --abs --from "${lo}ns" --to "${hi}ns" \
		--min-duration 20ns --match Feed_parser >gz.fxt
	cmp m.fxt gz.fxt || fail "$f: gzip input differs"
done

# a match nowhere: no slice, the file still good
mt-slice --match 'no such name at all' t.fxt >none.fxt
slices none.fxt >got
[ ! -s got ] || fail "--match of nothing kept slices"

# bad input still fails naming the byte offset
head -c 1000 t.fxt >trunc.fxt
expect_exit 1 mt-slice --match x trunc.fxt >out 2>err
contains err "trunc.fxt: byte offset 0x"
