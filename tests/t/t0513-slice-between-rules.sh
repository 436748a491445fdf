#!/bin/sh
# mt-slice --between: magic-trace's pairing rules on a stream written by
# hand, where the regions are known: of two STARTs the later one counts, a
# STOP with no START open is dropped, a STOP and a START at the same time
# on two threads count in that order, regions that touch are one, a frame
# open before the trace (INFERRED) is no call, a name matching both is a
# START; frames open across a region's edge are cut there and flagged; the
# stream and its FXT file agree. When there is no region (START or STOP
# never called, never in that order, or no region in the window): no span,
# a trace that still reads, one line on stderr saying why, exit 0. Usage
# errors exit 2.
. "$MT_TOP/tests/lib.sh"

cat >in.txt <<'EOT'
THREAD pid=1 tid=1 time=1.000000100
THREAD pid=1 tid=2 time=1.000000100
SPAN start=1.000000200 end=1.000000210 pid=1 tid=1 depth=1 kind=function flags=- name="start"
SPAN start=1.000000300 end=1.000000310 pid=1 tid=1 depth=1 kind=function flags=- name="start"
SPAN start=1.000000400 end=1.000000410 pid=1 tid=1 depth=1 kind=function flags=- name="stop"
SPAN start=1.000000500 end=1.000000510 pid=1 tid=1 depth=1 kind=function flags=- name="stop"
SPAN start=1.000000600 end=1.000000650 pid=1 tid=2 depth=0 kind=function flags=- name="start"
SPAN start=1.000000600 end=1.000000610 pid=1 tid=2 depth=1 kind=function flags=- name="stop"
SPAN start=1.000000700 end=1.000000710 pid=1 tid=1 depth=1 kind=function flags=- name="stop"
SPAN start=1.000000700 end=1.000000750 pid=1 tid=2 depth=0 kind=function flags=- name="start"
SPAN start=1.000000800 end=1.000000810 pid=1 tid=2 depth=0 kind=function flags=- name="stop"
SPAN start=1.000000900 end=1.000000950 pid=1 tid=2 depth=0 kind=function flags=INFERRED name="start"
SPAN start=1.000001000 end=1.000001010 pid=1 tid=2 depth=0 kind=function flags=- name="stop"
SPAN start=1.000001100 end=1.000001110 pid=1 tid=1 depth=1 kind=function flags=- name="startstop"
SPAN start=1.000001200 end=1.000001210 pid=1 tid=1 depth=1 kind=function flags=- name="stop"
SPAN start=1.000000100 end=1.000002000 pid=1 tid=1 depth=0 kind=function flags=INFERRED name="main"
EOT
mt-asm in.txt >in.mt
mt-fxt in.mt >in.fxt

# the regions: [300, 400) (the later START), [600, 800) (the STOP at 600
# ends nothing, the START at 600 opens, the STOP at 700 and the START at
# 700 touch), [1100, 1200) (startstop is a START); the inferred "start" at
# 900 opens none
cat >want <<'EOT'
1 1 1000000300 1000000310 start
1 1 1000000300 1000000400 main
1 1 1000000600 1000000800 main
1 1 1000000700 1000000710 stop
1 1 1000001100 1000001110 startstop
1 1 1000001100 1000001200 main
1 2 1000000600 1000000610 stop
1 2 1000000600 1000000650 start
1 2 1000000700 1000000750 start
EOT
mt-slice --between '^start' '^stop' in.mt >out.mt 2>err
[ ! -s err ] || { cat err >&2; fail "stderr not empty"; }
dump_spans out.mt >got
same_file want got
n=$(mt-dump out.mt | grep -c 'flags=INFERRED|CLIPSTART|CLIPEND .*name="main"')
[ "$n" -eq 3 ] || fail "main: $n pieces flagged clipped at both ends, expected 3"
mt-slice --between '^start' '^stop' in.fxt >out.fxt
fxt_slices out.fxt | awk '{ $5 = ""; sub(/  /, " "); print }' >got
same_file want got

# no region: nothing kept, said once, exit 0, the output still a trace
none() {
	why=$1
	shift
	for f in in.mt in.fxt; do
		mt-slice "$@" $f >none.out 2>err ||
			fail "$*: $f: exit $?"
		[ "$(wc -l <err)" -eq 1 ] || { cat err >&2; fail "$*: $f: not one line on stderr"; }
		contains err "mt-slice: $f: --between: $why"
		if [ $f = in.mt ]; then
			mt-dump none.out >d || fail "$*: the stream does not read"
			! grep -q ' SPAN ' d || fail "$*: spans kept"
			grep -q ' THREAD ' d || fail "$*: threads lost"
		else
			fxt_slices none.out >got
			[ ! -s got ] || fail "$*: slices kept"
		fi
	done
}
none 'no span named like nosuch starts: nothing kept' --between nosuch '^stop'
none 'no span named like nosuch (and not like ^start) starts: nothing kept' \
	--between '^start' nosuch
# "main" is there but inferred: never called
none 'no span named like ^main starts' --between '^main' '^stop'
# every call of "start" comes before startstop's
none 'no span named like ^start$ starts after one named like ^startstop' \
	--between '^startstop' '^start$'
none 'no region meets the window: nothing kept' \
	--from 1200ns --between '^start' '^stop'

# usage errors
expect_exit 2 mt-slice --between 2>err
contains err "--between"
expect_exit 2 mt-slice --between start 2>err
contains err "mt-slice: --between start: STOP missing"
expect_exit 2 mt-slice --between a b --between c d in.mt 2>err
contains err "--between: given twice"
expect_exit 2 mt-slice --between '(' stop in.mt 2>err
contains err "--between (: at offset"
expect_exit 2 mt-slice --between start '[' in.mt 2>err
contains err "--between [: at offset"
# the operand may stand before the option
mt-slice in.mt --between '^start' '^stop' >o2.mt
cmp out.mt o2.mt || fail "the file before --between: other output"
mt-slice --between='^start' '^stop' in.mt >o3.mt
cmp out.mt o3.mt || fail "--between=START STOP: other output"
