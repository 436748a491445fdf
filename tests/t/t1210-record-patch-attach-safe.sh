#!/bin/sh
# mt-record -p with the patch backend never harms the process it attaches
# to (tests/progs/busy: 8 threads checking work()'s results, one
# allocating in a loop, the main thread in read() counting EINTRs):
# mt-record killed (SIGKILL) at many moments of the attach leaves it
# running and right each time (the borrowed thread comes back by itself);
# attached again and again it never deadlocks (the runtime is loaded by a
# thread of its own, holding no lock of the program's) and each recording
# has work's calls; a SIGUSR1 sent while it attaches (no SA_RESTART, the
# main thread's) ends the main thread's read() with EINTR every time, as
# it would untraced; at the end no result was wrong.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

mkfifo b.in
"$P/busy" <b.in >b.out &
bp=$!
exec 7>b.in
wait_for grep -q ready b.out || fail "busy did not start"

# answered N: busy has answered N "p"s
answered() {
	[ "$(grep -c '^alive' b.out)" -ge "$1" ]
}

# alive N: busy answers its Nth "p"
alive() {
	echo p >&7
	wait_secs 30 answered "$1" ||
		fail "busy does not answer after $2 ($(tail -1 b.out))"
}

n=0
for d in 0 0.02 0.05 0.1 0.2 0.3 0.45 0.6 0.8 1.1 1.5 2; do
	mt-record --backend patch -p $bp -o k.mt 2>k.err &
	r=$!
	sleep $d
	kill -9 $r
	wait $r 2>/dev/null || :
	kill -0 $bp 2>/dev/null || fail "busy died when mt-record was killed after $d s"
	n=$((n + 1))
	alive $n "a SIGKILL of mt-record after $d s"
done

# attach again and again, a signal sent while it attaches
sent=0
for i in 1 2 3 4 5 6 7 8; do
	mt-record --backend patch -p $bp -o a$i.mt 2>a$i.err &
	r=$!
	sleep "0.$i"
	kill -USR1 $bp
	sent=$((sent + 1))
	wait_secs 30 grep -q "^mt-record: recording $bp with patch" a$i.err ||
		{ cat a$i.err >&2; kill $r; fail "attach $i: not recording (deadlocked?)"; }
	sleep 0.2
	kill -INT $r
	wait $r || { cat a$i.err >&2; fail "attach $i: mt-record exited $?"; }
	c=$(mt-stacks --no-spread a$i.mt | mt-dump - | grep -c ' SPAN .* name="work"')
	[ "$c" -gt 0 ] || fail "attach $i: no work spans"
	wait_secs 30 grep -q "^eintr $sent\$" b.out ||
		fail "attach $i: the signal sent while attaching ended no read() with EINTR ($(grep eintr b.out | tail -1))"
	n=$((n + 1))
	alive $n "attach $i"
done
echo q >&7
exec 7>&-
wait $bp || fail "busy exited $?"
tail -1 b.out >end
echo "bad 0 eintr $sent signals $sent" >want
same_file want end
