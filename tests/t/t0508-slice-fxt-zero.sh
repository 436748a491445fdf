#!/bin/sh
# Zero-length slices on FXT input nest as Perfetto nests them
# (SliceTracker::MaybeCloseStack, importers/common/slice_tracker.cc): one
# at its parent's very end is beside the parent, not in it; one right after
# another at the same time stacks on it; a slice of non-zero length at that
# time pops both. --max-depth and --match follow that nesting: the depths
# fxt-check gives, and the tree they make.
. "$MT_TOP/tests/lib.sh"

cat >z.txt <<'EOT'
SPAN start=0.000000100 end=0.000000200 pid=1 tid=1 depth=0 kind=function name="parent"
SPAN start=0.000000200 end=0.000000200 pid=1 tid=1 depth=1 kind=function name="zend"
SPAN start=0.000000300 end=0.000000300 pid=1 tid=1 depth=0 kind=function name="zfirst"
SPAN start=0.000000300 end=0.000000300 pid=1 tid=1 depth=0 kind=function name="zsecond"
SPAN start=0.000000300 end=0.000000400 pid=1 tid=1 depth=0 kind=function name="q"
EOT
mt-asm z.txt | mt-fxt >z.fxt
fxt-check --slices z.fxt >all 2>/dev/null
cat >want <<'EOT'
1 1 100 200 0 parent
1 1 200 200 0 zend
1 1 300 300 0 zfirst
1 1 300 300 1 zsecond
1 1 300 400 0 q
EOT
same_file want all

# $1: options; then the names of the slices they keep
keeps() {
	o=$1
	shift
	# shellcheck disable=SC2086
	mt-slice $o z.fxt >o.fxt
	fxt-check --slices o.fxt >got.d 2>check || { cat check >&2; fail "$o: fxt-check"; }
	awk '{ print $6 }' got.d | sort >got
	for n in "$@"; do echo "$n"; done | sort >want
	same_file want got
	# each at the depth it had
	grep -F -x -f got.d all >same
	same_file got.d same
}
keeps "--max-depth 1" parent zend zfirst q
keeps "--max-depth 2" parent zend zfirst zsecond q
keeps "--match ^zend$" zend
keeps "--match ^zsecond$" zfirst zsecond
keeps "--match ^zfirst$" zfirst zsecond
keeps "--match ^q$" q
keeps "--match ^parent$" parent

# the same with begin/end pairs laid out as magic-trace lays them out
mt-asm z.txt | mt-fxt | fxt-check --slices /dev/stdin 2>/dev/null |
	awk '{ $1 = 2; $2 = 2; print }' >sl
printf '2 2 50 500 0 root\n' | cat - sl | sort -n -s -k3,3 | fxt-mtrace >be.fxt
fxt-check --slices be.fxt 2>/dev/null | sort >all
for n in 1 2 3; do
	mt-slice --max-depth $n be.fxt >o.fxt
	fxt-check --slices o.fxt 2>/dev/null | sort >got
	awk -v n=$n '$5 < n' all >want
	same_file want got
done
