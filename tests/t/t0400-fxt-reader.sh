#!/bin/sh
# fxt-check on FXT files written here word by word: a good file passes
# and --slices / --names print exactly what it holds; each forged file fails
# (exit 1) naming its problem and the byte offset; usage and system errors.
. "$MT_TOP/tests/lib.sh"

# w HEX: one 64-bit word, little-endian
w() {
	h=$(printf '%16s' "$1" | tr ' ' 0)
	out=
	for b in $(echo "$h" | sed 's/../& /g'); do
		out="\\$(printf %03o "0x$b")$out"
	done
	# shellcheck disable=SC2059 # out holds octal escapes only
	printf "$out"
}

# s TEXT: a string stream, zero-padded to 8 bytes
s() {
	printf '%s' "$1"
	n=$(((8 - ${#1} % 8) % 8))
	while [ "$n" -gt 0 ]; do
		printf '\000'
		n=$((n - 1))
	done
}

# hex of a number, for the words below
x() {
	printf '%x' "$1"
}

magic() { w 0016547846040010; }
# provider info id 1, name "t"
provider() { w 0010000000110020; s t; }
init() { w 21; w 3b9aca00; }
# str INDEX TEXT (TEXT of at most 8 bytes)
str() { w "0000000$(x ${#2})$(printf %04x "$1")0022"; s "$2"; }
# thread INDEX PID TID
thread() { w "$(printf %02x "$1")0033"; w "$(x "$2")"; w "$(x "$3")"; }
# complete NAME START END, begin NAME TS, end TS, instant NAME TS: on thread
# 1 with category 1
complete() { w "$(printf %04x "$1")000101040034"; w "$(x "$2")"; w "$(x "$3")"; }
begin() { w "$(printf %04x "$1")000101020024"; w "$(x "$2")"; }
end() { w 0002000101030024; w "$(x "$1")"; }
instant() { w "$(printf %04x "$1")000101000024"; w "$(x "$2")"; }

head_records() {
	magic; provider; init
	thread 1 100 101
	str 1 cat; str 2 main; str 3 child; str 4 process; str 5 prog
	str 6 worker
}

# a good file: names, nested complete events (parent first), begin/end, an
# instant
{
	head_records
	w 0000000005010027; w 64                    # process 100 "prog"
	w 0000010006020047; w 65; w 0000000000040028; w 64 # thread 101
	complete 2 1000 5000
	complete 3 1000 2000
	begin 3 3000
	end 4000
	instant 3 4500
} >good.fxt
[ "$(wc -c <good.fxt)" -eq 304 ] || fail "good.fxt: $(wc -c <good.fxt) bytes"

fxt-check good.fxt >out 2>err
[ ! -s err ] || fail "stderr: $(cat err)"
echo "fxt-check: 17 records, 4 slices, 1 threads; problems: none" >want
same_file want out

fxt-check --slices good.fxt >out 2>err
cat >want <<EOF
100 101 1000 5000 0 main
100 101 1000 2000 1 child
100 101 3000 4000 1 child
100 101 4500 4500 1 child
EOF
same_file want out
echo "fxt-check: 17 records, 4 slices, 1 threads; problems: none" >want
same_file want err

fxt-check --names good.fxt >out 2>err
printf 'process 100 prog\nthread 100 101 worker\n' >want
same_file want out

fxt-check --names --slices - <good.fxt >out 2>err
[ "$(wc -l <out)" -eq 6 ] || fail "--names --slices: $(cat out)"

# fxt.md 1.11, the minimal file
{
	magic
	w 0040000000010020; s demo
	init
	thread 1 1234 1235
	w 8004800301020044; w 3e8; s cat; s main
	w 8004800301030044; w 1388; s cat; s main
} >minimal.fxt
fxt-check --slices minimal.fxt >out 2>err
echo "1234 1235 1000 5000 0 main" >want
same_file want out
contains err "6 records, 1 slices, 1 threads; problems: none"

# bad FILE PROBLEM COUNT OFFSET: fxt-check FILE fails with COUNT of PROBLEM,
# its first example at byte OFFSET
bad() {
	expect_exit 1 fxt-check "$1" >out 2>err
	[ ! -s err ] || fail "$1: stderr: $(cat err)"
	contains out "problems: $2 $3"
	contains out "fxt-check: $1: byte offset $(printf 0x%x "$4"): $2: "
}

# the child first, then its parent with the same start: the parent is
# dropped, its later child moves up
{
	head_records
	complete 3 1000 2000
	complete 2 1000 5000
	complete 3 3000 4000
} >child-first.fxt
bad child-first.fxt slice_drop_overlapping 1 184
fxt-check --slices child-first.fxt >out 2>/dev/null || :
printf '100 101 1000 2000 0 child\n100 101 3000 4000 0 child\n' >want
same_file want out

# partial overlap
{ head_records; complete 2 0 10; complete 3 5 20; } >overlap.fxt
bad overlap.fxt slice_drop_overlapping 1 184

# an undefined string index: the event is dropped
{ head_records; complete 2 0 10; complete 9 20 30; } >undef.fxt
bad undef.fxt undefined_string 1 184
fxt-check --slices undef.fxt >out 2>/dev/null || :
echo "100 101 0 10 0 main" >want
same_file want out

# an undefined thread index
{ head_records; w 0002000102040034; w 1; w 2; } >undef-thread.fxt
bad undef-thread.fxt undefined_thread 1 160

# a begin never ended: end "-"
{ head_records; begin 2 100; begin 3 200; end 300; } >open.fxt
bad open.fxt did_not_end 1 160
fxt-check --slices open.fxt >out 2>/dev/null || :
printf '100 101 100 - 0 main\n100 101 200 300 1 child\n' >want
same_file want out

# an end with nothing open
{ head_records; end 5; complete 2 10 20; } >lone-end.fxt
bad lone-end.fxt end_without_begin 1 160

# a record of size 0 stops the import
{ head_records; complete 2 0 10; w 0002000101040004; complete 3 20 30; } \
	>size0.fxt
bad size0.fxt size_zero 1 184
contains out "11 records"   # the last one is not read

# not the magic
{ head_records; complete 2 0 10; } >magic.fxt
printf '\107' | dd of=magic.fxt bs=1 seek=3 conv=notrunc 2>/dev/null
bad magic.fxt bad_magic 1 0

# truncated inside the last record
head -c $(($(wc -c <good.fxt) - 3)) good.fxt >cut.fxt
bad cut.fxt truncated 1 288

# the ticks are not ns
{ magic; provider; w 21; w f4240; thread 1 1 2; str 1 c; str 2 n; } >us.fxt
bad us.fxt bad_ticks 1 24

# no initialization record
{ magic; provider; thread 1 1 2; str 1 c; str 2 n; complete 2 1 2; } >noinit.fxt
bad noinit.fxt init_missing 1 80

# a thread object whose "process" is not a koid
{ head_records; w 0000010006020047; w 65; w 0000000000040024; w 64; } \
	>procarg.fxt
bad procarg.fxt thread_process_arg 1 160

# a record type the project never writes (a log record)
{ head_records; w 0000000100030039; w 5; s abc; } >log.fxt
bad log.fxt bad_record_type 1 160

# several problems: all counted, the summary lists them in a fixed order
{ head_records; end 1; complete 9 2 3; begin 2 5; } >many.fxt
expect_exit 1 fxt-check many.fxt >out 2>err
contains out "problems: undefined_string 1, end_without_begin 1, did_not_end 1"

# usage and system errors
expect_exit 2 fxt-check >out 2>err
contains err "usage: fxt-check [--slices] [--names] [--counters] FILE"
expect_exit 2 fxt-check --bogus good.fxt >out 2>err
expect_exit 2 fxt-check good.fxt good.fxt >out 2>err
fxt-check --help >out
contains out "usage: fxt-check [--slices] [--names] [--counters] FILE"
expect_exit 3 fxt-check no-such.fxt >out 2>err
contains err "fxt-check: no-such.fxt: No such file or directory"
