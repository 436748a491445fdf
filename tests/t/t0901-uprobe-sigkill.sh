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
outer=$MT_TESTBIN/progs/outer
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
[ -r "$tracing/uprobe_events" ] && cp "$tracing/uprobe_events" events.before

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
sleep 0.2
# probes on outer that an earlier recorder is still removing in the
# background would show here: wait for them to go
i=0
until same; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "work is probed before recording: $(peek)"
	sleep 0.05
done

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
if [ -r "$tracing/uprobe_events" ] && grep -q outer "$tracing/uprobe_events"; then
	fail "the probes are tracefs probes"
fi

kill -9 "$rec"
wait "$rec" 2>/dev/null || :
rec=
i=0
until same; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "work is still probed after SIGKILL: $(peek)"
	sleep 0.05
done
kill -0 "$target" || fail "the target died"
sleep 0.1
kill -0 "$target" || fail "the target died"
if [ -r "$tracing/uprobe_events" ]; then
	same_file events.before "$tracing/uprobe_events"
	! grep -q outer "$tracing/uprobe_events" || fail "a probe is left in uprobe_events"
fi
