#!/bin/sh
# mt-record: --help agrees with the man page; usage errors exit 2 before
# anything runs; --dry-run prints the perf command lines on any machine: an
# intel_pt snapshot for pt (at exit without a trigger, on demand with one,
# -m from --snapshot-size, timing terms), cpu-clock call graphs for sample.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-record.1" >syn
help_usage mt-record | sed 's/^usage: //' >usage
same_file syn usage
mt-record --version | grep -q '^mt-record (mt) ' || fail "--version"

for args in "" "-p 1 -i x" "-p 1 -- true" "--backend nope -p 1" \
	"--repeat 2 -p 1" "--arm-after 1s -p 1" "--arm-after soon --trigger . -p 1" \
	"--snapshot-size 4Q -p 1" "--timing bogus=1 -p 1" "-p 0" "-p 1,1" \
	"-i x --trigger ." "--call-graph x -p 1" "--frequency 0 -p 1" \
	"--backend uprobe --full -p 1" "-o dir/ -p 1"; do
	# shellcheck disable=SC2086 # the words are meant to split
	expect_exit 2 mt-record $args >out 2>err
	[ ! -s out ] || fail "'$args' wrote output"
done
expect_exit 2 mt-record --functions '(' --backend uprobe -p $$ >out 2>err
contains err "--functions (:"

mt-record --dry-run --backend pt -p 4242 >dry
contains dry "perf record -o DIR/perf.data --timestamp -e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u --per-thread -t 4242 --snapshot=e -D -1 --control=fd:CTL,ACK"
contains dry "perf script -i DIR/perf.data --ns --itrace=bep -F comm,pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period"
mt-record --dry-run --backend pt --trigger . --snapshot-size 3M \
	--timing high --multi-thread -p 4242,4343 >dry 2>err
contains dry "-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1/u -p 4242,4343 --snapshot -m,1024 "
contains err "rounded up to 4096 KiB"
# and how the trigger would be armed: a breakpoint or a uprobe
grep -q '^# trigger \.: a hardware breakpoint on every thread' dry ||
	grep -q '^# trigger \.: a uprobe (perf_event_open, uprobe PMU): ' dry ||
	fail "--dry-run does not say how the trigger is armed: $(cat dry)"
mt-record --dry-run --backend sample --trigger-via uprobe --trigger 'a b' -p 7 >dry
contains dry "# trigger a b: a uprobe (perf_event_open, uprobe PMU)"
mt-record --dry-run --backend pt --timing low --full -p 7 >dry
contains dry "-e intel_pt//u --per-thread -t 7 -D -1"
mt-record --dry-run --backend pt --timing cyc=1,mtc_period=3 -p 7 >dry
contains dry "-e intel_pt/cyc=1,mtc_period=3/u"
mt-record --dry-run --backend sample --frequency 999 --call-graph dwarf -p 7 >dry
contains dry "perf record -o DIR/perf.data -e dummy:u -e cpu-clock/freq=999,overwrite/u -k mono --call-graph dwarf -p 7 -D -1 --control=fd:CTL,ACK"
contains dry "perf script -i DIR/perf.data --ns -F comm,pid,tid,time,event,period,ip,sym,symoff,dso"
mt-record --dry-run -i some.data >dry
contains dry "perf script -i some.data --ns --itrace=bep"
# -i decodes PT through the dlfilter, --text through perf's text
contains dry " --dlfilter $(cd "$MT_BIN/../lib" && pwd -P)/mt-dlfilter.so --dlarg fd=1"
mt-record --dry-run -i some.data --text >dry
contains dry "perf script -i some.data --ns --itrace=bep"
! grep -q -e --dlfilter dry || fail "--text: $(cat dry)"
