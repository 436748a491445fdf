#!/bin/sh
# mt-slice --match and --max-depth on FXT of 100,000-deep recursion, as
# begin/end pairs laid out as magic-trace lays them out (fxt-mtrace) and as
# mt-fxt's complete events: the nesting visits a bounded number of stack
# frames per event (-v says how many; Perfetto's own walk of the whole stack
# would visit billions), a match at the bottom keeps every frame (the file
# comes back byte for byte) and --max-depth 300 keeps the 300 outermost.
. "$MT_TOP/tests/lib.sh"

n=100000
awk -v n=$n 'BEGIN { for (d = 0; d < n; d++)
	printf "1 1 %d %d %d %s\n", 1000 + d, 1000 + 2 * n - d, d,
		d == n - 1 ? "leaf" : "rec" d % 100 }' >sl
fxt-mtrace <sl >be.fxt
awk -v n=$n 'BEGIN { for (d = n - 1; d >= 0; d--)
	printf "SPAN start=0.%09d end=0.%09d pid=1 tid=1 depth=%d kind=function name=\"%s\"\n",
		1000 + d, 1000 + 2 * n - d, d, d == n - 1 ? "leaf" : "rec" d % 100 }' |
	mt-asm | mt-fxt >c.fxt 2>/dev/null
awk '$5 < 300' sl >want
for f in be c; do
	timeout 300 mt-slice -v --match '^leaf$' $f.fxt >m.fxt 2>err ||
		fail "$f: --match on deep recursion failed or took 300 s"
	cmp $f.fxt m.fxt || fail "$f: --match at the bottom lost frames"
	sed -n 's/.*: \([0-9]*\) slice events nested, \([0-9]*\) stack frames visited$/\1 \2/p' err >steps
	[ -s steps ] || { cat err >&2; fail "$f: no count of stack frames visited"; }
	read -r ev st <steps
	[ "$st" -le $((3 * ev)) ] || fail "$f: $st stack frames visited for $ev events"
	timeout 300 mt-slice --max-depth 300 $f.fxt >d.fxt ||
		fail "$f: --max-depth on deep recursion failed or took 300 s"
	fxt-check --slices d.fxt 2>/dev/null | sort -n -k5,5 >got
	same_file want got
done
