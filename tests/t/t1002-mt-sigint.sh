#!/bin/sh
# Ctrl+C in a terminal: SIGINT to mt's whole process group. mt and the
# filters live on; a stand-in mt-record that takes SIGINT as the moment to
# snapshot prints its trace, which mt writes. One that does not handle it
# dies: mt says so, exits 130 and writes nothing.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1002.d && mkdir t1002.d && cd t1002.d

fixture=$MT_FIXTURES/perf-script/magic-trace-tests.txt
MT_RECORD=$PWD/rec
export MT_RECORD
mt-script-parse "$fixture" | mt-stacks 2>/dev/null | mt-fxt >want.fxt

# ctrl_c: start mt run as the leader of a new process group, with SIGINT
# at its default (a background job of a script starts with it ignored),
# wait for the stand-in to be ready, send SIGINT to the group; leaves mt's
# status in $status
ctrl_c() {
	rm -f ready
	perl -e '$SIG{INT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV or die "$ARGV[0]: $!\n"' \
		mt run -- ./prog >out 2>err &
	pid=$!
	n=0
	while [ ! -e ready ]; do
		n=$((n + 1))
		[ "$n" -lt 200 ] || { kill -s KILL -- -"$pid"; fail "the stand-in never started"; }
		sleep 0.05
	done
	kill -s INT -- -"$pid"
	set +e
	wait "$pid"
	status=$?
	set -e
}

# snapshots on SIGINT
cat >rec <<EOF
#!/bin/sh
trap 'cat "$fixture"; exit 0' INT
: >"$PWD/ready"
while :; do sleep 0.05; done
EOF
chmod +x rec
ctrl_c
[ "$status" -eq 0 ] || { cat err >&2; fail "mt exited $status after Ctrl+C"; }
cmp want.fxt trace.fxt || fail "the trace after Ctrl+C is not the pipeline's"
contains err "mt: wrote trace.fxt"

# does not handle SIGINT
cat >rec <<EOF
#!/bin/sh
: >"$PWD/ready"
exec sleep 30
EOF
rm -f trace.fxt
ctrl_c
[ "$status" -eq 130 ] || { cat err >&2; fail "mt exited $status, not 130"; }
contains err "mt: mt-record was killed by signal 2 (Interrupt); no trace written"
for f in trace.fxt .trace.fxt.*; do [ ! -e "$f" ] || fail "a trace after an interrupted mt-record: $f"; done
