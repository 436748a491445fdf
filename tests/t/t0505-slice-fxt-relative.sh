#!/bin/sh
# A window relative to the start of the trace means the same on an FXT file
# as on the mt stream it was written from, although mt-fxt writes spans when
# they end (so the first event in the file is not the earliest): cutting
# before or after mt-fxt gives the same slices.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 20000 --seed 9 --threads 3 --start-depth 3 | mt-script-parse |
	mt-stacks >spans.mt
for w in "--from 1us --to 4us" "--from 3us --duration 2us" "--to 2500ns"; do
	# shellcheck disable=SC2086
	mt-slice $w spans.mt | mt-fxt >a.fxt
	mt-fxt spans.mt >t.fxt
	# shellcheck disable=SC2086
	mt-slice $w t.fxt >b.fxt
	fxt-check --slices a.fxt 2>/dev/null | awk '{ print $1, $2, $3, $4, $6 }' | sort >a.txt
	fxt-check --slices b.fxt 2>/dev/null | awk '{ print $1, $2, $3, $4, $6 }' | sort >b.txt
	[ -s a.txt ] || fail "$w: empty window"
	same_file a.txt b.txt
	fxt-check b.fxt >check || { cat check >&2; fail "$w: fxt-check"; }
done
