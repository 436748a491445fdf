#!/bin/sh
# make bench's coverage table (tests/bench/85-coverage.sh) reads
# mt-record --backend patch --functions . -v: every line of it, over a C++
# program with libstdc++ (tests/progs/throwy-O2), must have a reason
# tests/bench/coverage.awk knows, and its counts must agree with
# mt-record's own "patched N functions; M left alone" line. A reason
# added to patch-rec.c's status_text or reworded fails here until the
# table knows it.
. "$MT_TOP/tests/lib.sh"
prog=$MT_TESTBIN/progs/throwy-O2
walkers=$(sed -n 's/^[[:space:]]*X("\([^"]*\)", MTP_FK_[A-Z_]*).*$/\1/p' \
	"$MT_TOP/plugins/patch-runtime/shm.h" | tr '\n' ' ')
[ -n "$walkers" ] || fail "no walker names in shm.h"
mt-record --backend patch --functions . -v -o rec.mt -- "$prog" 100 >out 2>err ||
	{ tail -n 3 err >&2; fail "mt-record -- throwy-O2"; }
grep -q '^mt-record: patched [0-9]* functions' err || fail "no count line"
awk -v prog=cxx -v label=throwy-O2 -v walkers="$walkers" -v tw=1 -v uw=0 \
	-v verbose=1 -v left=left -v summary=summary \
	-f "$MT_TOP/tests/bench/coverage.awk" err >table 2>complaints ||
	fail "coverage.awk failed"
[ ! -s complaints ] || { cat complaints >&2; fail "the table does not read -v's list"; }
grep -q '^patched  *[1-9][0-9]*$' table || fail "no patched count: $(cat table)"
grep -q '^coverage  *[0-9.]*%$' table || fail "no coverage: $(cat table)"
# the parts of main and of the functions that catch, and setjmp, set aside
grep -q '^cxx	part (.cold)	' left || fail "no part set aside"
grep -q '^cxx	returns twice	_setjmp	' left || fail "_setjmp not set aside"
read -r p considered patched entered _ <summary || fail "no summary line"
if [ "$p" != cxx ] || [ "$patched" -gt "$entered" ] || [ "$entered" -gt "$considered" ]; then
	fail "summary: $(cat summary)"
fi
