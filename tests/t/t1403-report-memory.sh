#!/bin/sh
# mt-report's memory does not grow with the trace: on a generated trace
# and on one 10 times as long (37 thousand and 372 thousand calls, both
# more than one sorted run), from the stream, its FXT file and that
# gzip'd, the peak RSS stays under a fixed bound and grows by less than
# the 32 bytes a call that holding the calls would take; the numbers from
# the stream and its FXT agree; the sort's temporary file (in $TMPDIR)
# is gone at the end. The same for --calls (every call, through a second
# sort) and --folded (memory for the distinct stacks only).
. "$MT_TOP/tests/lib.sh"

mkdir tmp
TMPDIR=$PWD/tmp
export TMPDIR
for n in 200000 2000000; do
	gen-perf-script --lines $n --seed 7 --threads 4 --no-errors |
		mt-script-parse | mt-stacks --no-spread >s$n.mt
	mt-fxt s$n.mt >s$n.fxt
	gzip -1 -c s$n.fxt >s$n.fxt.gz
done
calls=$(mt-dump s2000000.mt | grep -c ' SPAN ')
[ "$calls" -gt 300000 ] || fail "only $calls spans in the long trace"

# glibc's qsort mallocs and frees a run's worth at each run, which
# AddressSanitizer's quarantine would hold on to: measured without it
case ${ASAN_OPTIONS-} in
?*) ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0; export ASAN_OPTIONS ;;
esac
rss() { # FILE [OPTION...]: mt-report's peak RSS on it (--json), in KiB
	_f=$1
	shift
	measure -n 1 -i "$_f" -o "$_f.json" -- mt-report --json "$@" >m
	grep -q 'status=0$' m || fail "mt-report $* $_f: $(cat m)"
	echo "$_f $*: $(cat m)" >&2
	sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' m
}
# the bound: 64 MiB, room for the sanitizers' own memory; the growth: 8
# MiB, where holding the long trace's calls would take 11 (and the FXT
# checker's events far more)
for ext in mt fxt fxt.gz; do
	small=$(rss s200000.$ext)
	big=$(rss s2000000.$ext)
	[ "$big" -lt 65536 ] || fail "$ext: peak RSS $big KiB"
	[ $((big - small)) -lt 8192 ] ||
		fail "$ext: peak RSS grew from $small to $big KiB for 10 times the calls"
done
vrss() { # FILE VIEW: mt-report VIEW's peak RSS on it, in KiB
	measure -n 1 -i "$1" -o /dev/null -- mt-report "$2" >m
	grep -q 'status=0$' m || fail "mt-report $2 $1: $(cat m)"
	echo "$1 $2: $(cat m)" >&2
	sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' m
}
for view in --calls --folded; do
	small=$(vrss s200000.mt $view)
	big=$(vrss s2000000.mt $view)
	[ "$big" -lt 65536 ] || fail "$view: peak RSS $big KiB"
	[ $((big - small)) -lt 8192 ] ||
		fail "$view: peak RSS grew from $small to $big KiB for 10 times the calls"
done
for n in 200000 2000000; do
	cmp s$n.mt.json s$n.fxt.json || fail "s$n: the FXT's report differs"
	cmp s$n.mt.json s$n.fxt.gz.json || fail "s$n: the gzip'd FXT's report differs"
done
[ -z "$(ls tmp)" ] || fail "temporary files left: $(ls tmp)"
