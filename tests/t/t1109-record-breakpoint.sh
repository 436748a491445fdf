#!/bin/sh
# mt-record's trigger through hardware breakpoints, magic-trace's way.
# Whether they fire here is asked of perf first (perf stat counting an
# execute breakpoint in a non-PIE program), independently of mt-record:
# --trigger-via auto must then pick breakpoints exactly where they fire.
# Where they fire: the trace stops at the trigger (exact call counts
# through the uprobe backend), at the address mt-symbols gives for the
# running process, in a thread started after arming, in a command started
# by mt-record (armed after its execve), and without privilege (as nobody,
# with the sample backend). Where they do not: auto says so and uses a
# uprobe, and a forced breakpoint warns, and Ctrl+C still ends cleanly.
. "$MT_TOP/tests/lib.sh"
prog=$MT_TESTBIN/progs/stopper
mkdir tmp
export TMPDIR="$PWD/tmp"

expect_exit 2 mt-record --trigger-via bogus --trigger . -- "$prog" >out 2>err
contains err "--trigger-via bogus: expected breakpoint, uprobe or auto"
expect_exit 2 mt-record --trigger-via uprobe -- "$prog" >out 2>err
contains err "--trigger-via needs --trigger"

# does perf count an execute breakpoint here? (all 1000 hits: they fire;
# a count of 0: they do not; no count, "<not supported>": none can be made)
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
cat >bp.c <<'C'
__attribute__((noinline)) void f(int i) { __asm__ volatile("" :: "r"(i) : "memory"); }
int main(void) { for (int i = 0; i < 1000; i++) f(i); return 0; }
C
gcc -O1 -no-pie -fno-pie -o bp bp.c
addr=$(nm bp | awk '$3 == "f" { print $1 }')
count=$(perf stat -x, -e "mem:0x$addr:x" ./bp 2>&1 | awk -F, '/mem:/ { print $1 }')
case $count in
1000) fires=1 ;;
0) fires=0 ;;
*[!0-9]* | '') fires=none ;;
*) fail "perf counted $count of 1000 breakpoint hits: neither all nor none" ;;
esac
echo "perf counted '$count' of 1000 breakpoint hits: fires=$fires" >&2

pipeline() { mt-script-parse "$1" | mt-stacks | mt-dump >"$2"; }

if [ $fires != 1 ]; then
	need_uprobes
	mt-record --backend uprobe --functions '^outer$' --trigger . -- "$prog" -s 50 \
		>auto.txt 2>err || { cat err >&2; fail "auto trigger failed"; }
	if [ $fires = 0 ]; then
		contains err "(uprobe; hardware breakpoints do not fire on this machine)"
	else
		contains err "(uprobe; no hardware breakpoint can be made here)"
	fi
	contains err "trigger magic_trace_stop_indicator hit by"
	if [ $fires = none ]; then
		# forced: refused at once, before the command starts
		expect_exit 3 mt-record --backend uprobe --functions '^outer$' --trigger . \
			--trigger-via breakpoint -- "$prog" -s 50 >out 2>err
		contains err "--trigger-via breakpoint: no hardware breakpoint can be made here"
		[ ! -s out ] || fail "a trace without a breakpoint"
		exit 0
	fi
	# forced: a warning, and Ctrl+C ends it without a snapshot
	"$prog" -l -u 1000 >/dev/null &
	pid=$!
	wait_mapped $pid "$prog"
	trap 'kill $pid 2>/dev/null || true' EXIT
	: >err # no "recording" from before: the waits below read it
	mt-record --backend uprobe --functions '^outer$' --trigger . \
		--trigger-via breakpoint -p $pid >int.txt 2>err &
	rec=$!
	wait_for grep -q 'trigger armed' err || fail "not armed: $(cat err)"
	contains err "hardware breakpoints do not fire on this machine"
	kill -INT $rec
	wait $rec || fail "Ctrl+C: exit $?"
	contains err "interrupted before the trigger fired: no snapshot"
	exit 0
fi

# auto picks breakpoints
mt-record --backend sample --trigger . -- "$prog" -s 50 >auto.txt 2>err ||
	{ cat err >&2; fail "auto trigger failed"; }
contains err "(hardware breakpoint at 0x"
contains err "trigger magic_trace_stop_indicator hit by"

# exact: the uprobe backend records the calls, a breakpoint stops it at
# iteration 200 of a command started by mt-record (a PIE: the breakpoint
# is armed after its execve, at the address it was loaded at)
if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	mt-record --backend uprobe --functions '^(work|outer)$' --trigger . \
		--trigger-via breakpoint -- "$prog" -s 200 >trig.txt 2>err ||
		{ cat err >&2; fail "breakpoint trigger failed"; }
	contains err "(hardware breakpoint at 0x"
	pipeline trig.txt trig.dump
	[ "$(span_count trig.dump outer)" -eq 200 ] ||
		fail "breakpoint: $(span_count trig.dump outer) outer spans"
	[ "$(span_count trig.dump work)" -eq 400 ] ||
		fail "breakpoint: $(span_count trig.dump work) work spans"
	grep -q ' MARK .*kind=trigger .*text="magic_trace_stop_indicator"' trig.dump ||
		fail "no trigger mark"

	# a thread started 300 ms after arming
	mt-record --backend uprobe --functions '^(work|outer)$' --trigger . \
		--trigger-via breakpoint -- "$prog" -t -d 300 -s 100 >thr.txt 2>err ||
		{ cat err >&2; fail "thread trigger failed"; }
	pipeline thr.txt thr.dump
	[ "$(span_count thr.dump outer)" -eq 100 ] ||
		fail "thread: $(span_count thr.dump outer) outer spans"
	hit=$(sed -n 's/^# mt: trigger [0-9.]* \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' thr.txt)
	# shellcheck disable=SC2086 # two words
	set -- $hit
	[ "$1" != "$2" ] || fail "the trigger fired on the main thread: $hit"
fi

# threads started by threads started after arming, 12 deep: each
# inherits its creator's breakpoint, and the deepest one fires it
cat >chain.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void stop_me(long d) { __asm__ volatile("" :: "r"(d) : "memory"); }
static void *run(void *a)
{
	long d = (long)a;
	pthread_t t;

	if (d == 12) {
		stop_me(d);
		return NULL;
	}
	if (pthread_create(&t, NULL, run, (void *)(d + 1))) {
		fprintf(stderr, "pthread_create failed at depth %ld\n", d);
		return NULL;
	}
	pthread_join(t, NULL);
	return NULL;
}
int main(void) { usleep(200000); run(NULL); puts("chain done"); return 0; }
C
gcc -O1 -pthread -o chain chain.c
mt-record --backend sample --trigger stop_me -- ./chain >chain.txt 2>err ||
	{ cat err >&2; fail "chain of threads"; }
contains err "chain done"
grep -q "pthread_create failed" err && fail "$(cat err)"
hit=$(sed -n 's/^# mt: trigger [0-9.]* \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' chain.txt)
# shellcheck disable=SC2086 # two words
set -- $hit
[ -n "$hit" ] && [ "$1" != "$2" ] || fail "chain: the trigger hit: '$hit'"

# a running process: armed where mt-symbols -p says the function is
"$prog" -l -u 1000 >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_mapped $pid "$prog"
# mt-symbols -p prints FILE ADDR SIZE BIND NAME DEMANGLED
want=$(mt-symbols -p $pid --exact magic_trace_stop_indicator | cut -f2)
[ -n "$want" ] || fail "mt-symbols -p found no magic_trace_stop_indicator"
: >err # no "recording" from before: the waits below read it
mt-record --backend sample --trigger . --trigger-via breakpoint -p $pid \
	>int.txt 2>err &
rec=$!
wait_for grep -q 'trigger armed' err || fail "not armed: $(cat err)"
got=$(sed -n 's/.*(hardware breakpoint at 0x\([0-9a-f]*\))$/\1/p' err)
[ "$(printf %x "$want")" = "$got" ] || fail "armed at 0x$got, mt-symbols says $want"
# the loop never calls the indicator: Ctrl+C ends it without a snapshot
kill -INT $rec
wait $rec || fail "Ctrl+C: exit $?"
contains err "interrupted before the trigger fired: no snapshot"
kill $pid

# no privilege needed: as nobody, with the sample backend (where perf is
# open to users at all: Debian's perf_event_paranoid 3 closes it)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -le 2 ]; then
	nb=$(mktemp -d /tmp/mt-t1109.XXXXXX)
	chmod 777 "$nb"
	trap 'rm -rf "$nb"' EXIT
	mkdir "$nb/bin"
	cp "$prog" "$MT_BIN/mt-record" "$nb/bin/"
	chmod 755 "$nb/bin" "$nb/bin/"*
	(cd "$nb" && TMPDIR=$nb setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$nb/bin/mt-record" --backend sample --trigger . -- "$nb/bin/stopper" \
		-s 100 -u 500) >nb.txt 2>err || { cat err >&2; fail "as nobody"; }
	contains err "(hardware breakpoint at 0x"
	contains err "trigger magic_trace_stop_indicator hit by"
	contains nb.txt "# mt: trigger "
	[ "$(ls "$nb")" = bin ] || fail "left in TMPDIR: $(ls "$nb")"
fi
