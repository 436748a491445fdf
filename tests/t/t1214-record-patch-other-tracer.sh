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

# record NAME: mt-record -p into NAME.mt until recording; sets r
record() {
	mt-record --backend patch -p $bp --functions '^work$' -o $1.mt 2>$1.err &
	r=$!
	j=0
	until grep -q "^mt-record: recording $bp with patch" $1.err 2>/dev/null; do
		j=$((j + 1))
		[ $j -lt 300 ] || { cat $1.err >&2; kill $r; fail "$1: not recording"; }
		sleep 0.1
	done
}

record a
strace -f -p $bp -o /dev/null 2>strace.err &
sp=$!
wait_for grep -q 'attached' strace.err || fail "strace did not attach"
kill -INT $r
wait $r || { cat a.err >&2; fail "mt-record exited $? with another tracer there"; }
contains a.err "cannot stop it to undo the patches"
contains a.err "traced by $sp (strace)"
n=$(mt-stacks --no-spread a.mt | mt-dump - | grep -c ' SPAN .* name="work"')
[ "$n" -gt 0 ] || fail "no snapshot with another tracer there"
! grep -q 'being written' a.err || fail "records torn: the recording was not stopped"
kill $sp
wait $sp || :
echo p >&7
wait_for grep -q '^alive' b.out || fail "busy does not answer"

record b
kill -INT $r
wait $r || { cat b.err >&2; fail "the next mt-record exited $?"; }
contains b.err "undid the patches of an earlier mt-record"
n=$(mt-stacks --no-spread b.mt | mt-dump - | grep -c ' SPAN .* name="work"')
[ "$n" -gt 0 ] || fail "the next attach recorded nothing"
echo q >&7
exec 7>&-
wait $bp || fail "busy exited $?"
grep -q '^bad 0 ' b.out || fail "$(tail -1 b.out)"
