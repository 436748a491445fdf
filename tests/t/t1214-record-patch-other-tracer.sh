#!/bin/sh
# A debugger (here strace) attaching to a process while mt-record -p
# records it: at Ctrl+C mt-record cannot stop it to undo the patches; it
# still writes the snapshot (what was recorded, whole: the recording is
# stopped first), says in one line that the process runs on patched and
# who traces it, exits 0; the process runs on right, and the next
# mt-record -p, once the debugger has gone, undoes those patches and
# records.
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
echo q >&7
exec 7>&-
wait $bp || fail "busy exited $?"
grep -q '^bad 0 ' b.out || fail "$(tail -1 b.out)"
