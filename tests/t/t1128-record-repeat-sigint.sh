#!/bin/sh
# mt-record --trigger mark --repeat 0, Ctrl+C after some hits (issue 15):
# the program calls mark() 3 times, then works on until killed; SIGINT
# ends the recording and keeps the 3 snapshots taken (exit 0, said on
# stderr), on the standard output and with -o DIR/, for the uprobe and
# the sample backends; the command is ended with the recording.
. "$MT_TOP/tests/lib.sh"
prog=$MT_TESTBIN/progs/marks
rec=
cleanup() { [ -z "$rec" ] || kill -9 $rec 2>/dev/null || true; }
trap cleanup EXIT

hits3() { [ "$(grep -c 'trigger mark hit by' err)" -ge 3 ]; }

# interrupted BACKEND OUT: mt-record -o OUT after the third hit
interrupted() {
	: >err
	case $1 in
	uprobe) set -- "$2" --backend uprobe --text --functions '^step$' ;;
	*) set -- "$2" --backend sample ;;
	esac
	out=$1
	shift
	mt-record "$@" --trigger mark --repeat 0 -o "$out" --command-stdout 3 -- \
		"$prog" -k 3 -c 20 -s 5 -l 3>truth.txt 2>err &
	rec=$!
	# placing the probes may take long on a loaded machine: 30 s
	for try in 1 2 3 4 5 6; do wait_for hits3 && break; done
	hits3 || fail "$*: not 3 hits: $(cat err)"
	kill -INT $rec
	wait $rec || { st=$?; cat err >&2; fail "$*: Ctrl+C after 3 hits: exit $st"; }
	rec=
	contains err "interrupted: the 3 snapshots taken are kept"
	[ "$(grep -c '^mark ' truth.txt)" -eq 3 ] || fail "$*: the program printed $(cat truth.txt)"
}

backends=sample
[ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ] &&
	backends="uprobe sample"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
for be in $backends; do
	interrupted $be s.txt
	[ "$(grep -c '^# mt: snapshot ' s.txt)" -eq 3 ] || fail "$be: $(grep -c '^# mt: snapshot ' s.txt) snapshots"
	[ "$(grep -c '^# mt: trigger ' s.txt)" -eq 3 ] || fail "$be: $(grep -c '^# mt: trigger ' s.txt) trigger lines"
	grep -q "^# mt: snapshot 2 " s.txt || fail "$be: no snapshot 2"
	mt-script-parse s.txt | mt-stacks | mt-dump >s.dump
	[ "$(grep -c 'kind=trigger' s.dump)" -eq 3 ] || fail "$be: the stream's triggers: $(grep -c 'kind=trigger' s.dump)"

	rm -rf snaps
	interrupted $be snaps/
	[ "$(ls snaps | wc -l)" -eq 3 ] || fail "$be: in snaps/: $(ls snaps)"
	for i in 0 1 2; do
		contains snaps/snapshot-00$i.txt "# mt: snapshot $i "
		contains snaps/snapshot-00$i.txt "# mt: trigger "
	done
done
pgrep -f "$prog -k 3" >/dev/null && fail "the program outlived mt-record"
exit 0
