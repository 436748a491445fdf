#!/bin/sh
# A debugger (here strace) attaching to a process while mt-record -p
# records it: at Ctrl+C mt-record cannot stop it to undo the patches; it
# still writes the snapshot (what was recorded, whole: the recording is
# stopped first), says in one line that the process runs on patched and
# who traces it, exits 0; the process runs on right, and the next
# mt-record -p, once the debugger has gone, undoes those patches and
# records. Another tracer's breakpoint in an entry (a uprobe): that
# function is left alone, with the reason.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
command -v strace >/dev/null 2>&1 || { echo "skip: no strace" >&2; exit 0; }

mkfifo b.in
"$P/busy" -t 2 <b.in >b.out &
bp=$!
exec 7>b.in
wait_for grep -q ready b.out || fail "busy did not start"

attach a $bp --functions '^work$'
strace -f -p $bp -o /dev/null 2>strace.err &
sp=$!
wait_for grep -q 'attached' strace.err || fail "strace did not attach"
kill -INT $rec
wait $rec || { cat a.err >&2; fail "mt-record exited $? with another tracer there"; }
contains a.err "cannot stop it to undo the patches"
contains a.err "traced by $sp (strace)"
n=$(mt-stacks --no-spread a.mt | mt-dump - | grep -c ' SPAN .* name="work"')
[ "$n" -gt 0 ] || fail "no snapshot with another tracer there"
! grep -q 'being written' a.err || fail "records torn: the recording was not stopped"
kill $sp
wait $sp || :
echo p >&7
wait_for grep -q '^alive' b.out || fail "busy does not answer"

attach b $bp --functions '^work$'
kill -INT $rec
wait $rec || { cat b.err >&2; fail "the next mt-record exited $?"; }
contains b.err "undid the patches of an earlier mt-record"
n=$(mt-stacks --no-spread b.mt | mt-dump - | grep -c ' SPAN .* name="work"')
[ "$n" -gt 0 ] || fail "the next attach recorded nothing"

# another tracer's breakpoint in an entry (a uprobe mt-record recording
# it): that function is left alone, said with -v, the rest works (moved
# into a stub, the int3 would trap where no probe is)
if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	mt-record --backend uprobe -p $bp --functions '^work$' -o u.mt 2>u.err &
	up=$!
	wait_secs 30 grep -q "^mt-record: recording $bp" u.err ||
		{ cat u.err >&2; kill $up; fail "the uprobe backend is not recording"; }
	attach c $bp --functions '^work$' -v
	kill -INT $rec
	wait $rec || { cat c.err >&2; fail "mt-record beside a uprobe exited $?"; }
	contains c.err "work ($P/busy): another tracer's breakpoint is in its entry"
	contains c.err "patched 0 functions"
	kill -INT $up
	wait $up || { cat u.err >&2; fail "the uprobe mt-record exited $?"; }
	echo p >&7
	wait_for grep -q '^alive' b.out || fail "busy does not answer"
fi
echo q >&7
exec 7>&-
wait $bp || fail "busy exited $?"
grep -q '^bad 0 ' b.out || fail "$(tail -1 b.out)"
