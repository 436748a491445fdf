#!/bin/sh
# mt-slice on FXT files: a window cut from mt-fxt's output, and from one
# written by a different writer (fxt-be: begin/end pairs, magic-trace's
# 4-word init record, a provider section, re-registered and inline strings,
# inline threads), holds exactly the truth's spans clipped to the window and
# nests by Perfetto's rules; --min-duration leaves no shorter span; gzip
# input works; truncated and size-0 input fail naming the byte offset.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 5 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
base=$(sort -n -k4,4 truth.txt | head -1 | cut -f4)
mt-fxt spans.mt >t.fxt
fxt-check --slices t.fxt 2>/dev/null | fxt-be >be.fxt
fxt-check be.fxt >check || { cat check >&2; fail "fxt-be writes a bad file"; }

# the slices of an FXT file in clip_truth's form (no depth), after checking it
slices() {
	fxt-check --slices "$1" >sl 2>check || { cat check >&2; fail "$1: fxt-check"; }
	sed 's/^\([^ ]* [^ ]* [^ ]* [^ ]*\) [^ ]* /\1 /' sl | sort
}

# no options: the file passes byte for byte
mt-slice t.fxt >all.fxt
cmp t.fxt all.fxt || fail "mt-slice without options changed the file"

for f in t be; do
	clip_truth truth.txt "$base" 0 999999999999 >want
	slices $f.fxt >got
	same_file want got
	for w in "1000 5000" "0 2000" "7000 9000000"; do
		set -- $w
		lo=$(($base + $1)); hi=$(($base + $2))
		mt-slice --abs --from "${lo}ns" --to "${hi}ns" $f.fxt >w.fxt
		clip_truth truth.txt "$base" "$1" "$2" >want
		slices w.fxt >got
		same_file want got
		# gzip input, the same output
		gzip -c $f.fxt | mt-slice --abs --from "${lo}ns" --to "${hi}ns" >gz.fxt
		cmp w.fxt gz.fxt || fail "$f: window $w: gzip input differs"
	done
	# --min-duration 200ns: no shorter span, the rest all there
	mt-slice --min-duration 200ns $f.fxt >long.fxt 2>err
	clip_truth truth.txt "$base" 0 999999999999 200 >want
	slices long.fxt >got
	same_file want got
	lo=$(($base + 1000)); hi=$(($base + 5000))
	mt-slice --min-duration 200ns --abs --from "${lo}ns" --to "${hi}ns" \
		$f.fxt >long.fxt 2>err
	clip_truth truth.txt "$base" 1000 5000 200 >want
	slices long.fxt >got
	same_file want got
done

# names and threads survive
fxt-check --names be.fxt >want 2>/dev/null
fxt-check --names w.fxt >got 2>/dev/null
same_file want got

# bad input: exit 1 naming the byte offset
head -c 1000 t.fxt >trunc.fxt
expect_exit 1 mt-slice trunc.fxt >out 2>err
contains err "trunc.fxt: byte offset 0x"
contains err ": truncated record"
{ head -c 8 t.fxt; printf '\001\000\000\000\000\000\000\000'; } >zero.fxt
expect_exit 1 mt-slice zero.fxt >out 2>err
contains err "zero.fxt: byte offset 0x8: record of size 0"
gzip -c t.fxt | head -c 3000 >trunc.gz
expect_exit 1 mt-slice trunc.gz >out 2>err
contains err "gzip data ends early"
