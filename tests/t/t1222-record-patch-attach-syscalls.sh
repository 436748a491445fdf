#!/bin/sh
# mt-record -p gives a process back what the kernel would have given it
# untraced (tests/progs/sysloop checks every round and says the first
# thing that was not):
# - a system call the borrowed thread was stopped in returns what it
#   would: with -s the borrowed thread sleeps in poll(empty pipe, 1 ms),
#   nanosleep and a timed futex wait, which the kernel restarts through
#   the thread's restart block (boot.S's own timed futex wait used to
#   take that block's place: the program's nanosleep then failed with
#   ETIMEDOUT, at the first attach);
# - errno is what the program left around a traced call, a signal sent
#   while it attaches is taken once, with its own siginfo, and a
#   setresuid() in another thread (glibc has every thread take SIGSETXID
#   and waits for all) never waits forever (-x: it used to, at the first
#   attach: the borrowed thread's SIGSETXID was held back and lost);
# - no hook touches the memory mt-record unmaps at the detach, even one a
#   signal handler interrupted (-x: sender's now() is traced and
#   SIGSETXID interrupts it; the process died at one detach in 70).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# rounds MODE N: sysloop MODE attached to N times, each recording
# 0.2-0.5 s; it must then stop right
rounds() {
	rm -f s.in s.out
	mkfifo s.in
	"$P/sysloop" $1 <s.in >s.out &
	sp=$!
	exec 7>s.in
	wait_for grep -q ready s.out || fail "sysloop $1 did not start"
	i=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		attach a $sp
		sleep "0.$((i % 4 + 2))"
		kill -INT $rec
		wait $rec || { cat a.err >&2; fail "sysloop $1, attach $i: mt-record exited $?"; }
		! grep -q 'could not' a.err || fail "sysloop $1, attach $i: $(cat a.err)"
		kill -0 $sp 2>/dev/null || fail "sysloop $1 ended at attach $i: $(cat s.out)"
		grep -q '^bad' s.out && fail "sysloop $1, attach $i: $(cat s.out)"
		c=$(mt-stacks --no-spread a.mt | mt-dump - | grep -c ' SPAN .* name="work"')
		[ "$c" -gt 0 ] || fail "sysloop $1, attach $i: no work spans"
	done
	echo stop >&7
	exec 7>&-
	wait_secs 30 grep -q '^ok\|^bad' s.out ||
		{ kill $sp; fail "sysloop $1 did not stop in 30 s (a thread waits forever?)"; }
	wait $sp || fail "sysloop $1: $(cat s.out)"
	grep -q '^ok' s.out || fail "sysloop $1: $(cat s.out)"
}

n=6
[ "${MT_LONG:-0}" = 0 ] || n=30
rounds -s $n
rounds '' $n
rounds -x $n
grep -q '^ok .* setxid [1-9]' s.out || fail "sysloop -x made no setresuid call: $(cat s.out)"
