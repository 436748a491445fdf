#!/bin/sh
# mt-script-parse on bad input and at its edges: garbage and cut lines stop
# it with the line number (exit 1) unless --keep-going, which counts them;
# unknown events are warned about once and counted; an mt stream passes
# through unchanged; empty input is an empty stream; a closed pipe ends it
# quietly; --help agrees with the man page.
. "$MT_TOP/tests/lib.sh"
F=$MT_FIXTURES/perf-script

grep 'branches' "$F/magic-trace-tests.txt" | head -20 >good.txt

# binary garbage at line 3
{ head -2 good.txt; printf '\177ELF\002\001\001\000\000\000 junk\n'; tail -n +3 good.txt; } >garbage.txt
expect_exit 1 mt-script-parse garbage.txt >out.mt 2>err
contains err "mt-script-parse: garbage.txt:3: not perf script output"

# a branch line cut in half at line 5
{ head -4 good.txt; sed -n 5p good.txt | cut -c1-90; } >cut.txt
expect_exit 1 mt-script-parse <cut.txt >out.mt 2>err
contains err "mt-script-parse: <stdin>:5: not perf script output: a branch line needs 'FROM => TO'"

# a NUL byte inside a symbol
{ head -1 good.txt; sed -n 2p good.txt | sed 's/(foo.so)/(foo\x00.so)/'; } >nul.txt
expect_exit 1 mt-script-parse nul.txt >out.mt 2>err
contains err "nul.txt:2: not perf script output: a NUL byte in a name"

# --keep-going: the bad lines are skipped and counted, the rest kept
cat garbage.txt nul.txt >both.txt
mt-script-parse -k both.txt >out.mt 2>err
contains err "both.txt:3: skipping malformed line"
contains err "both.txt:23: skipping malformed line: a NUL byte in a name"
contains err "23 lines read"
contains err "2 lines skipped:"
contains err "2 malformed lines (--keep-going)"
n=$(mt-dump out.mt | grep -c ' BRANCH ')
[ "$n" -eq 21 ] || fail "--keep-going kept $n of 21 branches"

# a frame line with no sample before it
printf '\t    7f5c0c875c60 _dl_open+0x0 (/usr/lib64/ld-2.28.so)\n' >frame.txt
expect_exit 1 mt-script-parse frame.txt >out.mt 2>err
contains err "frame.txt:1: call-chain frame line outside a sample"

# unknown events: one warning per name, all counted, the rest goes on
{
	echo '  1234/1234  100.000000100:          1 sched:sched_switch: prev_comm=a prev_pid=1'
	echo '  1234/1234  100.000000200:          1 sched:sched_switch: prev_comm=b prev_pid=2'
	echo '  1234/1234  100.000000300:          1 sched:sched_wakeup: comm=c pid=3'
	head -3 good.txt
	echo '  1234/1234  100.000000400:          1 sched:sched_switch: prev_comm=d prev_pid=4'
} >unknown.txt
mt-script-parse unknown.txt >out.mt 2>err
[ "$(grep -c "unknown event 'sched:sched_switch'" err)" -eq 2 ] || fail "warned $(grep -c "sched_switch" err) times"
contains err "skipping samples of unknown event 'sched:sched_switch'"
contains err "3 samples of unknown event 'sched:sched_switch'"
contains err "1 samples of unknown event 'sched:sched_wakeup'"
contains err "4 lines skipped:"
[ "$(mt-dump out.mt | grep -c ' BRANCH ')" -eq 3 ] || fail "branches lost around unknown events"

# -v always reports; a clean run without it says nothing
mt-script-parse good.txt >a.mt 2>err
[ ! -s err ] || fail "clean run wrote to stderr: $(cat err)"
mt-script-parse -v <good.txt >b.mt 2>err
contains err "mt-script-parse: <stdin>: 20 lines read, "
cmp a.mt b.mt || fail "stdin and file input differ"

# -o writes the same stream
mt-script-parse -o c.mt good.txt
cmp a.mt c.mt || fail "-o output differs"

# an mt stream passes through unchanged, even a large one
for i in 1 2 3 4 5 6 7 8; do cat good.txt good.txt good.txt good.txt; done >big.txt
mt-script-parse big.txt >big.mt
mt-script-parse <big.mt >again.mt
cmp big.mt again.mt || fail "an mt stream did not pass through unchanged"

# empty input: an empty, complete stream
mt-script-parse </dev/null >empty.mt
mt-dump empty.mt >dump || fail "empty stream unreadable"
contains dump "END records=3 bytes=69"

# a reader that goes away: no message
# (several MiB of stream, past what the grown 1 MiB pipe holds, so the
# reader is gone before the last write however fast either side runs)
i=0; while [ $i -lt 200 ]; do cat good.txt; i=$((i + 1)); done >h200.txt
i=0; while [ $i -lt 20 ]; do cat h200.txt; i=$((i + 1)); done >huge.txt
{ st=0; mt-script-parse huge.txt 2>err || st=$?; echo $st >status; } | head -c 10 >/dev/null
[ ! -s err ] || fail "closed pipe gave a message: $(cat err)"
[ "$(cat status)" -eq 141 ] || fail "closed pipe: exit $(cat status), expected 141 (SIGPIPE)"

# files that cannot be opened: exit 3, named
expect_exit 3 mt-script-parse no-such.txt >out.mt 2>err
echo "mt-script-parse: no-such.txt: No such file or directory" >want
same_file want err

# usage
synopsis "$MT_TOP/docs/mt-script-parse.1" >syn
grep -q '^mt-script-parse ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-script-parse | sed 's/^usage: //' >usage
same_file syn usage
expect_exit 2 mt-script-parse --bogus >out 2>err
contains err "usage: $(cat syn)"
expect_exit 2 mt-script-parse a b >out 2>err
mt-script-parse --version | grep -q '^mt-script-parse (mt) ' || fail "--version"
