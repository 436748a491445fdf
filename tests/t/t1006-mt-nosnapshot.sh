#!/bin/sh
# A recording that holds nothing replaces nothing: Ctrl+C before the
# trigger fires (mt-record: "no snapshot", exit 0, nothing on its output)
# leaves trace.fxt and trace.fxt.old as they were, says so in one line and
# exits 1, twice in a row, on a real terminal (script(1), a ^C typed into
# the pty) and without one (SIGINT to the process group). mt decides by
# reading back the trace it wrote: one with no span is never "wrote". The
# real mt-record too, where it can record (sample backend) here.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1006.d && mkdir t1006.d && cd t1006.d

MT_RECORD=$PWD/rec
export MT_RECORD
# the stand-in does what mt-record does with a trigger that never fires
cat >rec <<EOF
#!/bin/sh
trap 'echo "mt-record: interrupted before the trigger fired: no snapshot" >&2; exit 0' INT
: >"$PWD/ready"
while kill -0 \$PPID 2>/dev/null; do sleep 0.05; done
exit 9
EOF
chmod +x rec
echo mine >trace.fxt
echo older >trace.fxt.old
touch -d '2001-02-03 04:05:06' trace.fxt trace.fxt.old
ls -l --time-style=+%s trace.fxt trace.fxt.old >before

# untouched: trace.fxt and trace.fxt.old as they were, no temporary
untouched() {
	ls -l --time-style=+%s trace.fxt trace.fxt.old >after
	same_file before after
	[ "$(cat trace.fxt)" = mine ] && [ "$(cat trace.fxt.old)" = older ] ||
		fail "$1: the traces changed"
	for f in .trace.fxt.*; do [ ! -e "$f" ] || fail "$1: $f left"; done
}

# said: the one line, and no "wrote"
said() {
	contains "$1" "mt: no snapshot was taken (the trigger never fired); trace.fxt left as it was"
	grep -q -e wrote -e moved "$1" && fail "$2: $(cat "$1")"
	[ "$(grep -c '^mt: ' "$1")" -eq 1 ] || fail "$2: not one line of mt: $(cat "$1")"
}

# ready_or_fail: wait for the stand-in
ready_or_fail() {
	wait_for test -e ready || fail "the stand-in never started"
}

# without a terminal: SIGINT to the process group, as a terminal sends
# it; SIGINT at its default (a background job starts with it ignored)
for i in 1 2; do
	rm -f ready
	perl -e '$SIG{INT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV or die "$ARGV[0]: $!\n"' \
		mt run --trigger never_called -- ./prog >out 2>err &
	pid=$!
	ready_or_fail
	kill -s INT -- -"$pid"
	set +e
	wait "$pid"
	status=$?
	set -e
	[ "$status" -eq 1 ] || { cat err >&2; fail "group SIGINT $i: exit $status, not 1"; }
	said err "group SIGINT $i"
	contains err "mt-record: interrupted before the trigger fired: no snapshot"
	untouched "group SIGINT $i"
done

# on a terminal: script(1) runs mt on a pty; a ^C written to the pty is
# turned into SIGINT to the foreground process group by its line discipline.
# script runs its command with $SHELL -c, and the ^C reaches that shell
# too: dash dies of it while bash waits for mt. So the command is ./onpty,
# which ignores SIGINT only in itself while mt runs (perl's system) and
# reports how mt ended, whatever the user's shell.
command -v script >/dev/null || fail "script(1) is needed (util-linux, scripts/deps.sh)"
cat >onpty <<'EOF'
#!/usr/bin/perl
# onpty ERR CMD...: run CMD with its stderr in ERR; print status=N or signal=N
open STDERR, ">", shift or die "onpty: $!\n";
system @ARGV;
print $? == -1 ? "exec failed: $!\n" : $? & 127 ? "signal=" . ($? & 127) . "\n" : "status=" . ($? >> 8) . "\n";
EOF
chmod +x onpty
for i in 1 2; do
	rm -f ready in
	mkfifo in
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' \
		script -qec "./onpty err mt run --trigger never_called -- ./prog" \
		/dev/null <in >log 2>&1 &
	spid=$!
	exec 8>in
	ready_or_fail
	printf '\003' >&8
	wait_for grep -q -e status= -e signal= -e 'exec failed' log || { exec 8>&-; kill "$spid" 2>/dev/null; fail "pty $i: mt did not end: $(cat log)"; }
	exec 8>&-
	wait "$spid" || :
	tr -d '\r' <log >log.txt
	grep -q 'status=1$' log.txt || fail "pty $i: $(cat log.txt)"
	said err "pty $i"
	untouched "pty $i"
done

# nothing recorded without a trigger either; a recording with no span
# (here a trigger mark alone) is no trace
printf '#!/bin/sh\n:\n' >rec
expect_exit 1 mt run -- ./prog >out 2>err
contains err "mt: no snapshot was taken (the recording holds nothing); trace.fxt left as it was"
untouched "empty recording"
printf '#!/bin/sh\necho "# mt: trigger 100.500000000 12/13 0x401136 f"\n' >rec
expect_exit 1 mt run --trigger f -- ./prog >out 2>err
contains err "mt: the recording holds no spans; trace.fxt left as it was"
untouched "no spans"
expect_exit 1 mt run -o new.fxt.gz -- ./prog >out 2>err
contains err "mt: the recording holds no spans; no trace written"
for f in new.fxt.gz .new.fxt.gz.*; do [ ! -e "$f" ] || fail "$f written"; done

# the real mt-record, where it can record here (sample backend, a trigger
# on a function the program never calls), on a pty: the same
prog=$MT_TESTBIN/progs/stopper
unset MT_RECORD
rm -f err
mkfifo in2
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' \
	script -qec "./onpty err mt run --backend sample --trigger . -- '$prog' -l -u 1000" \
	/dev/null <in2 >log 2>&1 &
spid=$!
exec 8>in2
if wait_for grep -qs "recording .* Ctrl+C ends without a snapshot" err; then
	printf '\003' >&8
	wait_for grep -q -e status= -e signal= -e 'exec failed' log || { exec 8>&-; kill "$spid" 2>/dev/null; fail "real: mt did not end: $(cat log)"; }
	exec 8>&-
	wait "$spid" || :
	tr -d '\r' <log >log.txt
	grep -q 'status=1$' log.txt || { cat err >&2; fail "real: $(cat log.txt)"; }
	said err "real mt-record"
	untouched "real mt-record"
else
	exec 8>&-
	wait "$spid" || :
	echo "skip: mt-record cannot record here: $(cat err 2>/dev/null)" >&2
fi
