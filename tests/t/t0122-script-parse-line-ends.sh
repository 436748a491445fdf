#!/bin/sh
# mt-script-parse's line ends: CRLF input gives the very stream LF input
# gives (perf lines, '# mt:' lines, samples with frames and blank lines),
# also when a CR and its LF come in different reads; a carriage return
# anywhere else (CR-only line ends, a CR inside a line) is refused with
# the file, line and byte offset (exit 1), or skipped with --keep-going;
# a CR as the very last byte ends the last line.
. "$MT_TOP/tests/lib.sh"
F=$MT_FIXTURES/perf-script
export TZ=UTC

# crlf FILE: FILE with CRLF line ends
crlf() { sed 's/$/\r/' "$1"; }
# input CASE: the input section of a script-parse case
input() { awk '/^--- [a-z]+$/ { f = $2; next } f == "input" { print }' \
	"$CASES/script-parse/$1.t"; }

# CRLF: the same stream and the same messages
{ cat "$F"/magic-trace-tests.txt; input mt-lines; input samples-probes; } >lf.txt
crlf lf.txt >crlf.txt
mt-script-parse -v lf.txt >lf.mt 2>lf.err
mt-script-parse -v crlf.txt >crlf.mt 2>crlf.err
cmp lf.mt crlf.mt || fail "CRLF input gave another stream"
sed 's/crlf\.txt/lf.txt/' crlf.err >crlf.err2
same_file lf.err crlf.err2
n=$(mt-dump crlf.mt | grep -c -e ' MARK .*kind=trigger' -e ' SAMPLE ' -e ' BRANCH ')
[ "$n" -gt 100 ] || fail "only $n records from the CRLF input"

grep 'branches' "$F/magic-trace-tests.txt" | head -5 >good.txt
mt-script-parse good.txt >good.mt

# CR-only line ends: refused at the first CR, with its byte offset
tr '\n' '\r' <good.txt >cr.txt
off=$(head -1 good.txt | wc -c); off=$((off - 1))
expect_exit 1 mt-script-parse cr.txt >out.mt 2>err
contains err "mt-script-parse: cr.txt:1: not perf script output: a carriage return not followed by a newline, at byte offset $off (CR-only line ends?"
# ... and --keep-going skips the one line it is
expect_exit 0 mt-script-parse -k cr.txt >out.mt 2>err
contains err "cr.txt:1: skipping malformed line: a carriage return not followed by a newline, at byte offset $off"
contains err "1 lines read"
[ "$(mt-dump out.mt | grep -c ' BRANCH ')" -eq 0 ] || fail "records from a CR-only line"

# a CR inside line 3 of an LF file
{ head -2 good.txt; sed -n 3p good.txt | sed 's/ => /\r => /'; tail -n +4 good.txt; } >mid.txt
off=$(head -2 good.txt | wc -c)
off=$((off + $(sed -n 3p good.txt | sed 's/ => .*//' | wc -c) - 1))
expect_exit 1 mt-script-parse mid.txt >out.mt 2>err
contains err "mid.txt:3: not perf script output: a carriage return not followed by a newline, at byte offset $off"
mt-script-parse -k mid.txt >out.mt 2>err
contains err "mid.txt:3: skipping malformed line: a carriage return"
contains err "5 lines read"
[ "$(mt-dump out.mt | grep -c ' BRANCH ')" -eq 4 ] || fail "--keep-going lost the lines around the CR"

# a CR as the last byte of the input ends the last line
{ head -4 good.txt; sed -n 5p good.txt | tr '\n' '\r'; } >last.txt
mt-script-parse last.txt >last.mt
cmp good.mt last.mt || fail "a final CR changed the stream"

# a CRLF whose CR ends one read and whose LF starts the next: the read
# buffer holds 1 MiB + 2 bytes, so a CR at byte offset 1048577 is its last
# byte (a perf line's trailing blanks are not part of it)
head -1 good.txt >pad.txt
l1=$(wc -c <pad.txt)
{ sed -n 2p good.txt | tr -d '\n'; head -c $((1048577 - l1 - $(sed -n 2p good.txt | wc -c) + 1)) /dev/zero | tr '\0' ' '; } >>pad.txt
printf '\r\n' >>pad.txt
tail -n +3 good.txt | sed 's/$/\r/' >>pad.txt
[ "$(head -c 1048578 pad.txt | tail -c 1 | od -An -c | tr -d ' ')" = '\r' ] || fail "pad.txt: no CR at 1048577"
mt-script-parse pad.txt >pad.mt
cmp good.mt pad.mt || fail "a CRLF across two reads changed the stream"
# ... and a bare CR there is refused, at that offset
{ head -c 1048578 pad.txt; printf 'x\n'; } >padcr.txt
expect_exit 1 mt-script-parse padcr.txt >out.mt 2>err
contains err "padcr.txt:2: not perf script output: a carriage return not followed by a newline, at byte offset 1048577"
