#!/bin/sh
# mt-record -p of a process that has no user code to record says what it
# is, exit 1 (bad input), with every backend and with a trigger, before
# anything runs: a kernel thread ("PID N is a kernel thread"), a zombie
# ("PID N has exited"), a process whose main thread has exited while
# others run on; --dry-run prints its command lines all the same, with the
# same message as a warning.
. "$MT_TOP/tests/lib.sh"
mkdir tmp
export TMPDIR="$PWD/tmp"

# every backend, and a trigger, fail the same way on process $1 with $2
refused() {
	for be in pt sample uprobe; do
		expect_exit 1 mt-record --backend "$be" -p "$1" >out 2>err
		contains err "$2"
		[ "$(wc -l <err)" -eq 1 ] || fail "$be: more than one line: $(cat err)"
		[ ! -s out ] || fail "$be: output written"
	done
	expect_exit 1 mt-record --backend sample --trigger . -p "$1" >out 2>err
	contains err "$2"
	expect_exit 1 mt-record --backend uprobe --functions . -p "$$,$1" >out 2>err
	contains err "$2"
	mt-record --dry-run --backend pt -p "$1" >dry 2>err ||
		fail "--dry-run exited $?"
	contains dry "perf record -o DIR/perf.data"
	contains err "$2"
	contains err "(recording would fail)"
	[ -z "$(ls tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
}

# a zombie: a child that has exited, which its parent (sleep, after the
# exec) never reaps (perl, which reaps nothing by itself: a shell may
# reap its background job before its exec, on a slow machine)
perl -e 'my $p = fork() // die "fork: $!"; exit 0 if !$p;
	open(my $f, ">", "zpid") or die; print $f "$p\n"; close($f);
	exec("sleep", "30") or die "exec: $!"' &
parent=$!
trap 'kill $parent ${lead:-} 2>/dev/null || true' EXIT
wait_for test -s zpid || fail "no zombie pid"
z=$(cat zpid)
zombie() { sed 's/.*) //' "/proc/$z/stat" | grep -q '^Z '; }
wait_for zombie || fail "$z is no zombie: $(cat /proc/$z/stat)"
refused "$z" "PID $z has exited (a zombie that its parent has not reaped)"

# a process whose main thread has exited, its other thread running on
cat >lead.c <<'C'
#include <pthread.h>
#include <unistd.h>
static void *run(void *arg) { (void)arg; sleep(30); return NULL; }
int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, run, NULL);
	pthread_exit(NULL);
}
C
cc -pthread -o lead lead.c
./lead &
lead=$!
leader_gone() { sed 's/.*) //' "/proc/$lead/stat" | grep -q '^Z '; }
wait_for leader_gone || fail "the main thread of $lead has not exited"
refused "$lead" "PID $lead: its main thread has exited (a zombie) while 1 other thread runs on"

# a kernel thread: any process flagged PF_KTHREAD (kthreadd is 2, but a
# pid namespace shows none)
k=
for f in /proc/[0-9]*/stat; do
	flags=$(sed 's/.*) //' "$f" 2>/dev/null | cut -d' ' -f7) || continue
	[ -n "$flags" ] && [ $((flags & 0x200000)) -ne 0 ] || continue
	k=${f#/proc/}; k=${k%/stat}
	break
done
if [ -z "$k" ]; then
	echo "skip: no kernel thread is visible here (a pid namespace?)" >&2
	exit 0
fi
refused "$k" "PID $k is a kernel thread ("
