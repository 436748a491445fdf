#!/bin/sh
# mt-fxt's command line and outputs: --help agrees with the man page; .gz
# output is the same trace gzip-compressed; --json is Chrome's trace event
# format with one X event per span at exact nanoseconds and M events naming
# threads; bad input exits 1 with the byte offset; a stream of branches that
# skipped mt-stacks gets a warning.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-fxt.1" >syn
grep -q '^mt-fxt ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-fxt | sed 's/^usage: //' >usage
same_file syn usage
expect_exit 2 mt-fxt --bogus >out 2>err
contains err "usage: $(cat syn)"

mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" >in.mt
mt-stacks in.mt >spans.mt 2>/dev/null
mt-fxt spans.mt >plain.fxt
mt-fxt -o packed.fxt.gz spans.mt
gunzip -c packed.fxt.gz >unpacked.fxt
cmp plain.fxt unpacked.fxt || fail ".gz output is not the same trace"
printf '\020\000\004\106\170\124\026\000' >magic
head -c 8 plain.fxt | cmp - magic || fail "the file does not start with the FXT magic"

# JSON: every span an X event, times in microseconds with 3 decimals
# (its recordings come from machines up to 52 days up: 35 times would be
# off by a few ns in Perfetto, and mt-fxt says so)
mt-fxt --json spans.mt >t.json 2>err
contains err "35 times or durations lie more than 13 days from the first time"
n=$(mt-dump spans.mt | grep -c ' SPAN ')
x=$(grep -c '"ph":"X"' t.json)
[ "$n" -eq "$x" ] || fail "$n spans, $x X events"
head -n 1 t.json | grep -q '^{"displayTimeUnit":"ns","metadata":{"perf_time_ns_at_ts_0":0},"traceEvents":\[$' ||
	fail "JSON head: $(head -n 1 t.json)"
tail -c 4 t.json | grep -q ']}' || fail "JSON tail"
# the first span's start, exactly
first=$(mt-dump spans.mt | grep -m1 ' SPAN ' | sed 's/.* start=\([0-9]*\)\.\([0-9]*\) .*/\1\2/')
us=$(echo "$first" | sed 's/\(...\)$/.\1/')
grep -q "\"ts\":$us," t.json || fail "no X event at ts $us (from $first ns)"
cat >named.txt <<'END'
THREAD pid=7 tid=7 comm="server" time=-
THREAD pid=7 tid=8 comm="worker \"1\"" time=-
SPAN start=1.000000000 end=1.000000500 pid=7 tid=8 depth=0 kind=function flags=- address=0x401000 name="handle" dso="/bin/server"
END
mt-asm named.txt | mt-fxt --json >named.json
grep -q '"ph":"M","pid":7,"tid":7,"name":"process_name","args":{"name":"server"}' named.json ||
	fail "no process_name: $(cat named.json)"
grep -q '"ph":"M","pid":7,"tid":8,"name":"thread_name","args":{"name":"worker \\"1\\""}' named.json ||
	fail "no thread_name: $(cat named.json)"
grep -q '"ph":"X","pid":7,"tid":8,"name":"handle","ts":1000000.000,"dur":0.500' named.json ||
	fail "X event: $(cat named.json)"

# bad input
head -c 100 spans.mt >cut.mt
expect_exit 1 mt-fxt cut.mt >out 2>err
contains err "mt-fxt: cut.mt: byte offset 0x"
mt-fxt in.mt >out 2>err
contains err "but no spans: run mt-stacks first"

# recursion deeper than Perfetto shows: mt-fxt warns, the reader agrees
awk 'BEGIN { for (d = 599; d >= 0; d--)
	printf "SPAN start=1.%09d end=1.%09d pid=9 tid=9 depth=%d kind=function flags=- address=0x401000 name=\"rec\" dso=-\n", 1000 + d, 100000 - d, d }' >deep.txt
mt-asm deep.txt | mt-fxt >deep.fxt 2>err
contains err "thread 9 nests 600 deep: Perfetto drops slices deeper than 512"
expect_exit 1 fxt-check deep.fxt >check 2>&1
grep -q 'depth' check || { cat check >&2; fail "fxt-check does not report the depth"; }
