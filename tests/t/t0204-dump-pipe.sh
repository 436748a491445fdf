#!/bin/sh
# mt-dump | head: when the reader of its output goes away, mt-dump ends
# quietly by SIGPIPE, with nothing on stderr, whether SIGPIPE is left to
# kill it or ignored (then the write fails with EPIPE).
. "$MT_TOP/tests/lib.sh"

# about 13 MB of text, far more than a pipe holds
mt-mkstream --repeat 100000 >big.mt

{ set +e; mt-dump big.mt 2>err; echo $? >status; } | head -n 1 >out
echo "0x00000000 HEADER version=1.2" >want
same_file want out
[ ! -s err ] || fail "stderr: $(cat err)"
[ "$(cat status)" -eq 141 ] || fail "exit status $(cat status), expected 141 (SIGPIPE)"

# SIGPIPE ignored, as some parents leave it
{ set +e; trap "" PIPE; mt-dump big.mt 2>err; echo $? >status; } | head -n 1 >out
same_file want out
[ ! -s err ] || fail "SIGPIPE ignored: stderr: $(cat err)"
[ "$(cat status)" -eq 141 ] || fail "SIGPIPE ignored: exit status $(cat status)"

# a write error other than EPIPE is a system error
if [ -w /dev/full ]; then
	expect_exit 3 mt-dump big.mt >/dev/full 2>err
	contains err "mt-dump: standard output: write error: No space left on device"
	mt-mkstream >s.mt
	expect_exit 3 mt-dump s.mt >/dev/full 2>err
	contains err "No space left on device"
fi
