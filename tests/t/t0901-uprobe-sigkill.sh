#!/bin/sh
# uprobe engine: SIGKILL of a recording uprobe-rec attached with -p to a
# running program removes its probes: the program, which compares on
# SIGUSR1 the first byte of its work() with its file's, sees them equal
# again (not while recording: a breakpoint), keeps running, and tracefs'
# uprobe_events has no new entry (the probes never were tracefs probes).
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
# a copy of its own: another recorder probing the shared build's outer
# (a test run beside this one) must not show in work's first byte
cp "$MT_TESTBIN/progs/outer" ./outer
outer=$PWD/outer
tracing=/sys/kernel/tracing
mounted=
target=
rec=
cleanup() {
	[ -z "$rec" ] || kill -9 "$rec" 2>/dev/null || :
	[ -z "$target" ] || kill -9 "$target" 2>/dev/null || :
	[ -z "$mounted" ] || umount "$tracing" 2>/dev/null || :
}
trap cleanup EXIT
# to compare uprobe_events, tracefs must be mounted: mount it for the test
if [ ! -e "$tracing/uprobe_events" ] && grep -qw tracefs /proc/filesystems &&
	mount -t tracefs nodev "$tracing" 2>/dev/null; then
	mounted=1
fi

# "MEM FILE": the byte the program sees at work's entry and its file's
peek() {
	n=$(wc -l <peeks)
	kill -USR1 "$target"
	i=0
	while [ "$(wc -l <peeks)" -le "$n" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the target does not answer SIGUSR1"
		sleep 0.05
	done
	tail -n 1 peeks
}

same() {
	set -- $(peek)
	[ $# -eq 2 ] || fail "the target printed '$*'"
	[ "$1" = "$2" ]
}

"$outer" -l >peeks &
target=$!
# SIGUSR1 kills it until it has set its handler: wait for that (SigCgt,
# a mask of signals from 1: SIGUSR1 is 10 on x86-64 and arm64)
caught_usr1() {
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$target/status")
	[ -n "$m" ] && [ $(((0x$m >> 9) & 1)) -eq 1 ]
}
wait_for caught_usr1 || fail "the target never set its SIGUSR1 handler"
# probes on outer that an earlier recorder is still removing in the
# background would show here: wait for them to go
wait_for same || fail "work is probed before recording: $(peek)"

: >err
uprobe-rec --functions '^work$' -p "$target" >lines 2>err &
rec=$!
i=0
until grep -q recording err; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat err >&2; fail "uprobe-rec did not start"; }
	kill -0 "$rec" 2>/dev/null || { cat err >&2; fail "uprobe-rec died"; }
	sleep 0.05
done
! same || fail "work's first byte is its file's while probed: $(peek)"
if [ -r "$tracing/uprobe_events" ] && grep -qF "$outer" "$tracing/uprobe_events"; then
	fail "the probes are tracefs probes"
fi

kill -9 "$rec"
wait "$rec" 2>/dev/null || :
rec=
wait_for same || fail "work is still probed after SIGKILL: $(peek)"
kill -0 "$target" || fail "the target died"
sleep 0.1
kill -0 "$target" || fail "the target died"
# (other probes there come and go with what else runs: only ours count)
if [ -r "$tracing/uprobe_events" ]; then
	! grep -qF "$outer" "$tracing/uprobe_events" || fail "a probe is left in uprobe_events"
fi
