#!/bin/sh
# A thread mt-record borrows (mt-record/patch/inject.h) goes on exactly as it
# was when mt-record is killed (SIGKILL) with it borrowed: tests/abandon
# borrows a thread of tests/progs/regkeep and kills itself after noting
# its state (stage 0), after having it make a system call (1: the thread
# returns through the signal frame, rt_sigreturn), or after putting it
# back (2). The spinning thread's rbx, rbp, r12-r15, xmm8/9 and, with
# AVX2, the upper halves of ymm8/9 are checked every turn (regkeep exits
# 3 on a change: the AVX halves were zeroed before the frame carried
# magic1/magic2); the main thread, borrowed in read(), reads its input
# after as before (the system call restarted).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

for stage in 0 1 2; do
	rm -f r.in
	mkfifo r.in
	"$P/regkeep" <r.in >r.out &
	rp=$!
	exec 8>r.in
	wait_for grep -q '^spin ' r.out || fail "regkeep did not start"
	st=$(sed -n 's/^spin //p' r.out)
	for t in $st $rp $st $rp $st; do
		set +e
		abandon $rp $t $stage 2>ab.err
		rc=$?
		set -e
		[ $rc -eq 137 ] || { cat ab.err >&2; fail "stage $stage: abandon exited $rc"; }
		kill -0 $rp 2>/dev/null || fail "stage $stage: regkeep died (thread $t)"
	done
	echo x >&8
	wait_for grep -q '^read x' r.out || fail "stage $stage: the read was not restarted"
	exec 8>&-
	wait $rp || fail "stage $stage: regkeep exited $? ($(cat r.out))"
	grep -q '^kept 1$' r.out || fail "stage $stage: $(cat r.out)"
done
