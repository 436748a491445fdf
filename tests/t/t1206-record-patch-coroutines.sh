#!/bin/sh
# mt-record --backend patch over coroutines (tests/progs/coro: two
# makecontext stacks taking turns from inside calls of theirs): the calls
# in progress on one stack stay recorded while those of the other return
# (the shadow stack keeps the frames whose return address is still the
# trampoline's), the program prints as untraced, and every call and
# return is there: as many of each as the program counted (body(1) and
# its last yield_to never return). A command that dies is said to.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

"$P/coro" >want
mt-record --backend patch -o coro.mt -- "$P/coro" >out 2>err ||
	{ cat err >&2; fail "mt-record -- coro"; }
same_file want out
grep -q 'aborting\|killed by signal' err && fail "coro died traced: $(cat err)"
# "name kind" counts
mt-dump coro.mt | sed -n 's/^.* BRANCH .* kind=\([a-z]*\) .*"\([a-z_]*\)"+0x0 .*$/\2 \1/p' |
	sort | uniq -c | awk '{ print $2, $3, $1 }' >counts
set -- $(cat want)
n_work=$4 n_inside=$6 n_yield=$8
printf '%s\n' "body call 2" "body return 1" "inside call $n_inside" \
	"inside return $n_inside" "main call 1" "main return 1" "work call $n_work" \
	"work return $n_work" "yield_to call $n_yield" "yield_to return $((n_yield - 1))" >expect
same_file expect counts
mt-stacks coro.mt | mt-fxt >coro.fxt || fail "mt-fxt"

# a command killed by a signal: said (the stream still written)
cat >die.c <<'EOC'
#include <signal.h>
__attribute__((noinline)) void f(void) { raise(SIGABRT); }
int main(void) { f(); return 0; }
EOC
cc -O1 -o die die.c
mt-record --backend patch -o die.mt -- ./die 2>die.err || fail "mt-record -- die: exit $?"
contains die.err "./die was killed by signal 6"
