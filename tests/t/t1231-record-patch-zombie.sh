#!/bin/sh
# mt-record --backend patch -p PID of a process that ends while recorded
# and stays a zombie (its parent never reaps it): the recording ends as
# the process does (its pidfd says so; kill(pid, 0) would see a zombie
# there for as long as its parent lives, and the recording went on until
# the parent ended), with the snapshot of what it did, exit 0.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

mkfifo z.in
# the parent: forks attachme, then sleeps without waiting for it
perl -e 'my $p = fork(); die unless defined $p; if (!$p) { exec @ARGV; exit 127 } sleep 120' \
	"$P/attachme" <z.in >z.out 2>z.counts &
parent=$!
exec 7>z.in
wait_for grep -q ready z.out || fail "attachme did not start"
child=$(pgrep -P $parent attachme) || fail "no attachme under $parent"
attach z $child --functions '^(step|leaf)$'
sleep 0.3
echo stop >&7
wait_secs 10 grep -q '^Z' /proc/$child/stat 2>/dev/null ||
	wait_secs 10 sh -c "awk '{print \$3}' /proc/$child/stat | grep -q Z" ||
	fail "attachme did not become a zombie: $(cat /proc/$child/stat 2>&1)"
# the recording ends by itself, well before the parent does (120 s)
wait_secs 15 sh -c "! kill -0 $rec 2>/dev/null" ||
	{ cat z.err >&2; kill $rec; fail "mt-record -p of a zombie still records"; }
set +e; wait $rec; rc=$?; set -e
[ $rc -eq 0 ] || { cat z.err >&2; fail "mt-record exited $rc"; }
n=$(mt-dump z.mt | grep -c 'kind=call.*"step"') || true
[ "$n" -gt 0 ] || { cat z.err >&2; fail "no call of step in the snapshot"; }
grep -q 'threads: ok' z.out || fail "attachme: $(cat z.out)"
kill $parent 2>/dev/null || true
wait $parent 2>/dev/null || true
