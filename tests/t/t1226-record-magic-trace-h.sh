#!/bin/sh
# include/magic_trace.h (issue 30): a C program and the same as C++, two
# files each including it, call magic_trace_mark_start() before each of
# 300 calls of work() and magic_trace_take_snapshot_with_arg() after call
# 150: with `--trigger .` the snapshot ends at the stop indicator's call,
# 151 work spans, with the patch backend (the indicator patched, not left
# alone: longer than a jump) and the uprobe backend (as root); the stop
# indicator receives the start time and the value OCaml-tagged (2n + 1),
# as magic-trace's library passes them.
. "$MT_TOP/tests/lib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "skip: the patch backend patches x86-64" >&2; exit 0; }
inc=$MT_TOP/include

cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <magic_trace.h>
long work(long i);
void other(long i);
__attribute__((noinline)) long work(long i)
{
	__asm__ volatile("" ::: "memory");
	return i * 3;
}
int main(int argc, char **argv)
{
	long s = 0, i;
	for (i = 0; i < 300; i++) {
		magic_trace_mark_start();
		s += work(i);
		if (i == 150)
			other(i);
	}
	printf("%ld\n", s);
	return argc > 1 ? atoi(argv[1]) : 0;
}
C
cat >other.c <<'C'
#include <magic_trace.h>
void other(long i);
void other(long i)
{
	magic_trace_take_snapshot_with_arg(i);
}
C
# the arguments as the indicator sees them: one defined here wins over the
# weak one (a program's own), and records them
cat >own.c <<'C'
#include <stdio.h>
#include <stdint.h>
void magic_trace_stop_indicator(long start, long arg);
void magic_trace_stop_indicator(long start, long arg)
{
	printf("indicator %ld %ld\n", start, arg);
}
C
gcc -O2 -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -I"$inc" -o c main.c other.c ||
	fail "the C program"
g++ -O2 -Wall -Wextra -Werror -x c++ -I"$inc" -o cxx main.c other.c || fail "the C++ program"
gcc -O2 -Wall -Wextra -Werror -I"$inc" -o own main.c other.c own.c || fail "the program with its own"

./own >own.out || fail "own exited $?"
awk '$1 == "indicator" {
	if ($2 % 2 != 1 || $2 <= 1) { print "start not tagged: " $2; exit 1 }
	if ($3 != 2 * 150 + 1) { print "arg " $3 ", not 301"; exit 1 }
	n++ }
	END { exit n != 1 }' own.out || fail "the indicator's arguments: $(cat own.out)"

for p in c cxx; do
	./$p >$p.want
	mt-record -v --backend patch --functions '^work$' --trigger . -o $p.mt -- ./$p \
		>$p.out 2>$p.err || { cat $p.err >&2; fail "$p: mt-record --trigger ."; }
	grep -q "^mt-record: magic_trace_stop_indicator ($PWD/$p): patched$" $p.err ||
		fail "$p: the indicator not patched: $(grep stop_indicator $p.err)"
	grep -q '^mt-record: trigger magic_trace_stop_indicator hit by ' $p.err ||
		fail "$p: no hit: $(cat $p.err)"
	mt-stacks $p.mt | mt-dump >$p.dump
	[ "$(span_count $p.dump work)" -eq 151 ] || fail "$p: $(span_count $p.dump work) work spans"
	mt-dump $p.mt | grep BRANCH | tail -1 | grep -q 'kind=call .*"magic_trace_stop_indicator"' ||
		fail "$p: the snapshot does not end at the indicator's call"
done

if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	mt-record --backend uprobe --functions '^work$' --trigger . --trigger-via uprobe -o u.mt -- ./c \
		>u.out 2>u.err || { cat u.err >&2; fail "uprobe: mt-record --trigger ."; }
	grep -q '^mt-record: trigger magic_trace_stop_indicator hit by ' u.err ||
		fail "uprobe: no hit: $(cat u.err)"
	mt-stacks u.mt | mt-dump >u.dump
	[ "$(span_count u.dump work)" -eq 151 ] || fail "uprobe: $(span_count u.dump work) work spans"
else
	echo "skipped: the uprobe backend (needs root and uprobes)" >&2
fi
