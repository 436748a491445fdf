#!/bin/sh
# A stream cut anywhere before the end of its END record: mt-dump prints the
# records before the cut, then fails (exit 1) naming the file and the byte
# offset of the record it could not finish.
. "$MT_TOP/tests/lib.sh"

expect=$CASES/dump/basic.expect
mt-mkstream >s.mt
size=$(wc -c <s.mt)

# cut_at LINE DELTA: keep the bytes before the record of line LINE of $expect
# plus DELTA bytes of it; the dump must be the LINE-1 lines before it.
cut_at() {
	off=$(sed -n "${1}p" "$expect" | cut -d' ' -f1)
	[ -n "$off" ] || fail "no line $1 in $expect"
	off=$((off))
	head -c $((off + $2)) s.mt >t.mt
	expect_exit 1 mt-dump t.mt >out 2>err
	head -n $(($1 - 1)) "$expect" >want
	same_file want out
	msg="mt-dump: t.mt: byte offset $(printf 0x%x "$off"): truncated stream: input ended before the END record"
	echo "$msg" >want
	same_file want err
}

n=$(wc -l <"$expect")
cut_at 2 0		# header alone
cut_at 2 2		# inside the first record's header
cut_at 2 4		# a record header without its body
cut_at 2 10	# inside a STRING body
cut_at 6 1		# inside THREAD's record header
cut_at 11 30	# inside a BRANCH body
cut_at 11 75	# one byte short of the BRANCH
cut_at 34 60	# inside a SAMPLE's frames
cut_at "$n" 0	# the whole END missing
cut_at "$n" 10	# inside END
cut_at "$n" 19	# END one byte short

# inside the stream header: nothing was dumped, offset 0
for k in 1 5 8 10 15; do
	head -c $k s.mt >t.mt
	expect_exit 1 mt-dump t.mt >out 2>err
	[ ! -s out ] || fail "cut at $k: output: $(cat out)"
	contains err "mt-dump: t.mt: byte offset 0x0: truncated stream"
done

# the same from standard input
head -c $((size - 3)) s.mt | { expect_exit 1 mt-dump >out 2>err; }
contains err "mt-dump: <stdin>: byte offset"
contains err "truncated"
[ "$(wc -l <out)" -eq $((n - 1)) ] || fail "stdin: $(wc -l <out) lines"

# an empty input is not a stream
: >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
[ ! -s out ] || fail "empty input: output: $(cat out)"
contains err "mt-dump: t.mt: byte offset 0x0: "

# cut inside a large stream, after several read buffers
mt-mkstream --repeat 20000 >big.mt
head -c 1000000 big.mt >t.mt
expect_exit 1 mt-dump t.mt >out 2>err
contains err "truncated"
last=$(tail -n 1 out | cut -d' ' -f1)
# the next record (76 bytes) would have gone past the cut
[ $((last + 76 + 76)) -gt 1000000 ] || fail "last record dumped at $last"
contains err "byte offset $(printf 0x%x $((last + 76))):"
