#!/bin/sh
# Relative windows and --max-depth mean the same on every input kind: on an
# mt stream whose first record is a mark far before the first span, and on
# the FXT file mt-fxt writes from it, the same options keep the same slices
# (name, thread, start, end, depth). A window counts from the first span,
# --duration alone from there too, and --max-depth counts Perfetto's depth.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 20000 --seed 9 --threads 3 --start-depth 3 | mt-script-parse |
	mt-stacks >s.mt
# a trigger mark 1 ms before anything else, on the first thread
mt-dump s.mt >s.txt
awk '/ THREAD / && !done {
	print; t = $0; sub(/.* time=/, "", t); sub(/ .*/, "", t)
	split(t, p, "."); pid = $0; sub(/.* pid=/, "", pid); sub(/ .*/, "", pid)
	tid = $0; sub(/.* tid=/, "", tid); sub(/ .*/, "", tid)
	printf "MARK time=%d.%09d pid=%s tid=%s kind=trigger name=\"trigger\"\n",
		p[1] - 1, p[2], pid, tid
	done = 1; next } { print }' s.txt | mt-asm >spans.mt
mt-dump spans.mt | grep -q ' MARK .*kind=trigger' || fail "no mark added"
mt-fxt spans.mt >t.fxt

for o in "--from 1us --to 4us" "--duration 2us" "--from 0 --duration 2us" \
	"--to 3us" "--from 2us" "--max-depth 2" "--max-depth 4" \
	"--max-depth 1 --from 2us" "--min-duration 100ns --max-depth 3 --from 1us --duration 5us"; do
	# shellcheck disable=SC2086
	mt-slice $o spans.mt | mt-fxt >a.fxt
	# shellcheck disable=SC2086
	mt-slice $o t.fxt >b.fxt
	fxt_slices a.fxt >a.txt
	fxt_slices b.fxt >b.txt
	[ -s a.txt ] || fail "$o: nothing kept"
	same_file a.txt b.txt
done
# --duration alone is --to from the start of the trace (it keeps what
# came before, as --to does); with --from 0, the same less the mark
mt-slice --duration 2us t.fxt >a.fxt
mt-slice --to 2us t.fxt >b.fxt
fxt_slices a.fxt >a.txt
fxt_slices b.fxt >b.txt
same_file a.txt b.txt
mt-slice --from 0 --duration 2us t.fxt >b.fxt
fxt_slices b.fxt >b.txt
grep -v ' trigger$' a.txt >want
same_file want b.txt
# --max-depth N keeps Perfetto's depths below N, on both
fxt_slices t.fxt >all
mt-slice --max-depth 2 spans.mt | mt-fxt >a.fxt
fxt_slices a.fxt >got
awk '$5 < 2' all >want
same_file want got
