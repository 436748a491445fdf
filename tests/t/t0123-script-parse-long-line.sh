#!/bin/sh
# mt-script-parse holds a line of at most 1 MiB: a longer one (input with
# no newline) is refused as soon as 1 MiB of it is read, naming the file,
# the line and the byte offset where it starts (exit 1), and its memory
# stays that of the 1 MiB buffer however long the line goes on; with
# --keep-going the line is skipped and the lines after it are kept. A line
# of exactly 1 MiB, with LF or CRLF, is still read.
. "$MT_TOP/tests/lib.sh"
F=$MT_FIXTURES/perf-script
grep 'branches' "$F/magic-trace-tests.txt" | head -3 >good.txt
mt-script-parse good.txt >good.mt
size=$(wc -c <good.txt)

# xs N: N bytes of 'x', no newline
xs() { head -c "$1" /dev/zero | tr '\0' x; }

# 2 MiB without a newline
xs 2097152 >big.txt
expect_exit 1 mt-script-parse big.txt >out.mt 2>err
contains err "mt-script-parse: big.txt:1: not perf script output: a line longer than 1 MiB, from byte offset 0"
[ "$(wc -l <err)" -eq 1 ] || fail "more than one message"

# after three good lines: line 4, at the byte after them
{ cat good.txt; cat big.txt; echo; cat good.txt; } >big2.txt
expect_exit 1 mt-script-parse big2.txt >out.mt 2>err
contains err "big2.txt:4: not perf script output: a line longer than 1 MiB, from byte offset $size"
# --keep-going: skipped, counted, and the lines after it kept
mt-script-parse -k big2.txt >out.mt 2>err
contains err "big2.txt:4: skipping malformed line: a line longer than 1 MiB, from byte offset $size"
contains err "7 lines read"
contains err "1 malformed lines"
[ "$(mt-dump out.mt | grep -c ' BRANCH ')" -eq 6 ] || fail "--keep-going lost the lines after a long one"

# the limit: a branch line padded with blanks (which perf lines may end
# with) to 1048576 bytes is read, with LF or CRLF; 1048577 are too many
# pad N: good.txt with its second line padded to N bytes
pad() {
	head -1 good.txt
	l=$(sed -n 2p good.txt | wc -c)
	{ sed -n 2p good.txt | tr -d '\n'; head -c $(($1 - l + 1)) /dev/zero | tr '\0' ' '; }
	printf "$2\n"
	tail -n +3 good.txt
}
pad 1048576 '' >max.txt
mt-script-parse max.txt >max.mt
cmp good.mt max.mt || fail "a line of 1 MiB was not read as itself"
pad 1048576 '\r' >maxcr.txt
mt-script-parse maxcr.txt >maxcr.mt
cmp good.mt maxcr.mt || fail "a line of 1 MiB and CRLF was not read as itself"
pad 1048577 '' >over.txt
expect_exit 1 mt-script-parse over.txt >out.mt 2>err
contains err "over.txt:2: not perf script output: a line longer than 1 MiB, from byte offset $(head -1 good.txt | wc -c)"

# memory: 256 MiB without a newline from a pipe; the buffer never grows
# (the peak RSS stays far below the 256 MiB it would take to hold it)
xs 268435456 | measure -n 1 -i /dev/stdin -- mt-script-parse >m 2>err || :
contains err "<stdin>:1: not perf script output: a line longer than 1 MiB, from byte offset 0"
grep -q 'status=1$' m || fail "exit: $(cat m)"
rss=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' m)
echo "peak RSS $rss KiB" >&2
[ "$rss" -lt 65536 ] || fail "peak RSS $rss KiB for a line cut at 1 MiB"
