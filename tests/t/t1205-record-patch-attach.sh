#!/bin/sh
# mt-record --backend patch -p PID: attached to a running multi-threaded
# loop (tests/progs/attachme), Ctrl+C after a second: every call of step
# and leaf made while patched is in the trace, nested, thread by thread
# (the program counts them: between the calls that began and ended
# patched and those that began or ended so), a thread started while
# attached too; a call in progress at the detach returns as it would
# have (its return address given back); the code is as its file has it
# afterwards, the program runs on and prints as it would. Attaching again
# works; after a SIGKILL of mt-record the program runs on patched, and
# the next attach undoes that session first; an attach while another
# mt-record records is refused with one line; so is a selection of
# nothing, before the process is touched. --trigger ends the snapshot at
# the function's first call and detaches. As a user without privilege.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
FN='^(step|leaf|hold)$'

# start NAME: attachme on a fifo NAME.in (fd 7), its output in NAME.out,
# its counts in NAME.counts; sets apid
start() {
	mkfifo $1.in
	"$P/attachme" <$1.in >$1.out 2>$1.counts &
	apid=$!
	exec 7>$1.in
	wait_for grep -q ready $1.out || fail "attachme did not start"
}

# record NAME SIGNAL [SECONDS]: mt-record -p into NAME.mt, sent SIGNAL
# once it records (after SECONDS); sets rc
record() {
	mt-record --backend patch -p $apid --max-overhead none --functions "$FN" -o $1.mt 2>$1.err &
	r=$!
	wait_for grep -q "^mt-record: recording $apid with patch" $1.err ||
		{ cat $1.err >&2; kill $r; fail "$1: not recording"; }
	[ -z "${3:-}" ] || sleep $3
	[ -z "${4:-}" ] || echo "$4" >&7
	sleep 0.3
	kill -$2 $r
	set +e; wait $r; rc=$?; set -e
}

# spans NAME: "tid depth name" of NAME.mt's spans
spans() {
	mt-stacks --no-spread $1.mt | mt-dump - |
		sed -n 's/^.* SPAN .* tid=\([0-9]*\) depth=\([0-9]*\) .* name="\([^"]*\)".*$/\1 \2 \3/p'
}

# ---- one attach, exact against the program's own count ----
start a
record a INT 1 spawn
[ $rc -eq 0 ] || { cat a.err >&2; fail "mt-record -p exited $rc"; }
grep -q "^mt-record: patched [34] functions" a.err || fail "not patched: $(cat a.err)"
echo peek >&7
echo stop >&7
exec 7>&-
wait $apid || fail "attachme exited $?"
printf 'ready\nclean\n4 threads: ok\n' >want
same_file want a.out
spans a >a.spans
mt-stacks a.mt | mt-fxt >a.fxt || fail "mt-fxt"
fxt-check a.fxt >a.check || { cat a.check >&2; fail "fxt-check"; }
[ "$(wc -l <a.counts)" -eq 4 ] || fail "not 4 threads counted"
while read -r tid _ in _ any; do
	s=$(awk -v t=$tid '$1 == t && $3 == "step"' a.spans | wc -l)
	l=$(awk -v t=$tid '$1 == t && $3 == "leaf"' a.spans | wc -l)
	[ "$s" -ge "$in" ] && [ "$s" -le "$any" ] ||
		fail "thread $tid: $s step spans, made $in to $any patched"
	[ "$s" -gt 100 ] || fail "thread $tid: only $s step spans in a second"
	[ "$l" -ge $((2 * s - 2)) ] && [ "$l" -le $((2 * s + 2)) ] ||
		fail "thread $tid: $l leaf spans for $s steps"
	# leaf under step, but for a call cut in two by the attach or detach
	d=$(awk -v t=$tid '$1 == t && $3 == "step" { print $2; exit }' a.spans)
	[ "$(awk -v t=$tid -v d=$d '$1 == t && $3 == "leaf" && $2 != d + 1' a.spans |
		wc -l)" -le 2 ] || fail "thread $tid: leaf not under step"
done <a.counts
# the thread spawned while attached: all its calls patched, all traced
tail -1 a.counts | { read -r tid _ in _ any
	[ "$in" -eq "$any" ] || fail "the spawned thread ran unpatched"; }

# ---- attach again, a call in progress at the detach, SIGKILL ----
start b
echo hold >&7
record b1 INT
[ $rc -eq 0 ] || fail "first attach exited $rc"
record b2 INT 0 hold
[ $rc -eq 0 ] || { cat b2.err >&2; fail "attaching again exited $rc"; }
grep -q "^mt-record: patched [34] functions" b2.err || fail "b2: $(cat b2.err)"
[ "$(spans b2 | awk '$3 == "step"' | wc -l)" -gt 100 ] || fail "b2: few steps"
spans b2 | grep -q ' hold$' || fail "b2: the call of hold not traced"
echo peek >&7
record b3 KILL
[ $rc -eq 137 ] || fail "SIGKILL: $rc"
echo peek >&7
# the next attach undoes what the killed one left, and records
record b4 INT
[ $rc -eq 0 ] || { cat b4.err >&2; fail "attaching after a SIGKILL exited $rc"; }
contains b4.err "undid the patches of an earlier mt-record, killed"
[ "$(spans b4 | awk '$3 == "step"' | wc -l)" -gt 100 ] || fail "b4: few steps"
echo peek >&7
# while one records, another is refused
mt-record --backend patch -p $apid --functions "$FN" -o b6.mt 2>b6.err &
r=$!
wait_for grep -q "^mt-record: recording $apid with patch" b6.err || { kill $r; fail "b6"; }
expect_exit 3 mt-record --backend patch -p $apid --functions "$FN" -o b7.mt 2>b7.err
contains b7.err "is being recorded by another mt-record (pid $r)"
[ ! -e b7.mt ] || fail "a refused recording wrote b7.mt"
kill -INT $r
wait $r || fail "b6: mt-record exited $?"
echo peek >&7
# a selection of nothing is refused before the process is touched
expect_exit 1 mt-record --backend patch -p $apid --functions '^no_such_fn$' -o b5.mt 2>b5.err
contains b5.err "no function matches"
echo release >&7
echo stop >&7
exec 7>&-
wait $apid || fail "attachme exited $? after the attaches"
printf 'ready\nclean\npatched\nclean\nclean\nreleased\n3 threads: ok\n' >want
same_file want b.out

# ---- --trigger: the snapshot ends at hold's first call, then detached ----
start c
expect_exit 1 mt-record --backend patch -p $apid --functions '^no_such_fn$' -o c0.mt 2>c0.err
grep -q libmt-patch /proc/$apid/maps && fail "a refused attach loaded the runtime"
mt-record --backend patch -p $apid --functions "$FN" --trigger hold -o c.mt 2>c.err &
r=$!
wait_for grep -q "^mt-record: recording $apid with patch" c.err ||
	{ cat c.err >&2; kill $r; fail "c: not recording"; }
sleep 0.3
echo hold >&7
wait $r || { cat c.err >&2; fail "--trigger hold: mt-record exited $?"; }
grep -q "^mt-record: trigger hold hit by $apid/" c.err || fail "c: the hit not said"
mt-dump c.mt | grep BRANCH | tail -1 | grep -q 'kind=call .*"hold"' ||
	fail "c: the snapshot does not end at hold's call"
[ "$(spans c | awk '$3 == "step"' | wc -l)" -gt 100 ] || fail "c: few steps"
echo peek >&7
echo release >&7
echo stop >&7
exec 7>&-
wait $apid || fail "attachme exited $? after the trigger"
printf 'ready\nclean\nreleased\n3 threads: ok\n' >want
same_file want c.out

# ---- no privilege beyond ptrace: a user attaches to its own process,
# not to root's ----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mkdir nb
	chmod 777 nb
	mkfifo d.in
	$AS "$P/attachme" <d.in >d.out 2>d.counts &
	apid=$!
	exec 7>d.in
	wait_for grep -q ready d.out || fail "attachme as nobody did not start"
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	$AS mt-record --backend patch -p $apid --functions "$FN" -o nb/d.mt 2>d.err &
	r=$!
	if [ "$scope" -eq 0 ]; then
		wait_for grep -q "^mt-record: recording $apid with patch" d.err ||
			{ cat d.err >&2; kill $r; fail "nobody: not recording"; }
		sleep 0.3
		kill -INT $r
		wait $r || { cat d.err >&2; fail "nobody: mt-record exited $?"; }
		[ "$(spans nb/d | awk '$3 == "step"' | wc -l)" -gt 10 ] || fail "nobody: few steps"
	else
		set +e; wait $r; rc=$?; set -e
		[ $rc -eq 3 ] || fail "nobody under ptrace_scope $scope: exit $rc"
		contains d.err "kernel.yama.ptrace_scope is $scope"
	fi
	echo stop >&7
	exec 7>&-
	wait $apid || fail "attachme as nobody exited $?"
	sleep 30 &
	s=$!
	expect_exit 3 $AS mt-record --backend patch -p $s -o nb/e.mt 2>e.err
	contains e.err "cannot ptrace process $s"
	kill $s
fi
