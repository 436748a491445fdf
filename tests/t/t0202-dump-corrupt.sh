#!/bin/sh
# Malformed streams: mt-dump prints the records before the bad one, then
# fails (exit 1) with the reader's message, the file and the byte offset.
. "$MT_TOP/tests/lib.sh"

expect=$CASES/dump/basic.expect
n=$(wc -l <"$expect")
head -n $((n - 1)) "$expect" >before	# every record but END
end=$(tail -n 1 "$expect" | cut -d' ' -f1)
end=$((end))

# bad KIND MESSAGE: mt-mkstream --bad KIND puts its bad record where END
# was, so the dump stops after the lines of "before"
bad() {
	mt-mkstream --bad "$1" >t.mt
	expect_exit 1 mt-dump t.mt >out 2>err
	same_file before out
	echo "mt-dump: t.mt: byte offset $(printf 0x%x $end): $2" >want
	same_file want err
}
bad short "corrupt record"
bad undef "string id used before its definition"
bad critical "unknown critical record type"

# bytes after END: everything but END is dumped, and the offset is the
# first byte after it
mt-mkstream >s.mt
size=$(wc -c <s.mt)
{ cat s.mt; printf x; } >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
same_file before out
echo "mt-dump: t.mt: byte offset $(printf 0x%x "$size"): data after the END record" >want
same_file want err

# two streams pasted together
cat s.mt s.mt >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
same_file before out
contains err "data after the END record"

# END's record count off (a record lost or duplicated)
mt-mkstream --flip $((end + 4)) >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
same_file before out
echo "mt-dump: t.mt: byte offset $(printf 0x%x $end): END record counts do not match the stream" >want
same_file want err

# a major version this reader does not know
mt-mkstream --flip 8 >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
[ ! -s out ] || fail "bad version: output: $(cat out)"
echo "mt-dump: t.mt: byte offset 0x0: unsupported stream version" >want
same_file want err

# not a stream at all: perf script text, a corrupted magic
printf '  bp  1234/1235  [003]  1234.567891660:  1  branches:u:\n' >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
[ ! -s out ] || fail "text: output: $(cat out)"
echo "mt-dump: t.mt: byte offset 0x0: not an mt stream (bad magic): it is text; perf script output goes through mt-script-parse first" >want
same_file want err
echo "mt-dump: t.mt: byte offset 0x0: not an mt stream (bad magic)" >want
mt-mkstream --flip 4 >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
[ ! -s out ] || fail "bad magic: output: $(cat out)"
same_file want err

# from standard input, the file is named <stdin>
expect_exit 1 mt-dump <t.mt >out 2>err
echo "mt-dump: <stdin>: byte offset 0x0: not an mt stream (bad magic)" >want
same_file want err

# the first record bad (its type 0x01 turned into 0xfe): the header alone
mt-mkstream --flip 16 >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
head -n 1 "$expect" >want
same_file want out
echo "mt-dump: t.mt: byte offset 0x10: unknown critical record type" >want
same_file want err
