#!/bin/sh
# mt-record -p never writes an entry that a signal handler will return
# into the middle of (tests/progs/sigmid: a thread's handler interrupted
# victim() after its first instruction, a 2-byte system call, and spins;
# the entry patch would replace victim's first 7 bytes): no stop shows
# that place (the thread is in the handler), the kernel's signal frame on
# the thread's stack does. victim is left alone with the reason, and
# released while mt-record records, the handler returns into victim's
# own bytes and it returns 7 (before: patched, and the process died of
# SIGSEGV as the handler returned into the jump's displacement).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

mkfifo m.in
"$P/sigmid" <m.in >m.out &
mp=$!
exec 7>m.in
wait_for grep -q ready m.out || fail "sigmid did not start"
attach a $mp --functions '^(victim|call_victim)$' -v
grep -q '^mt-record: victim (.*): .*one a signal handler will return into it$' a.err ||
	fail "victim: $(grep ' victim ' a.err)"
grep -q '^mt-record: call_victim (.*): patched$' a.err ||
	fail "call_victim: $(grep ' call_victim ' a.err)"
echo release >&7
exec 7>&-
wait_secs 10 grep -q '^ok' m.out || fail "sigmid: $(cat m.out)"
wait $mp || fail "sigmid exited $?: $(cat m.out)"
# mt-record ends with the process it records: it may be gone already
kill -INT $rec 2>/dev/null || :
wait $rec || { cat a.err >&2; fail "mt-record exited $?"; }
grep -qx 'ok 7' m.out || fail "sigmid: $(cat m.out)"
