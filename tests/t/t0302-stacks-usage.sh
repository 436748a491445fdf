#!/bin/sh
# mt-stacks' command line and failure modes: --help agrees with the man
# page, usage errors exit 2, a truncated or foreign input exits 1 naming the
# byte offset, a closed pipe ends it quietly.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-stacks.1" >syn
grep -q '^mt-stacks ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-stacks | sed 's/^usage: //' >usage
same_file syn usage
expect_exit 2 mt-stacks --bogus >out 2>err
contains err "usage: $(cat syn)"
mt-stacks --version | grep -q '^mt-stacks (mt) ' || fail "--version"

mt-script-parse "$MT_FIXTURES/perf-script/magic-trace-tests.txt" >in.mt
size=$(wc -c <in.mt)
head -c $((size - 30)) in.mt >cut.mt
expect_exit 1 mt-stacks cut.mt >out.mt 2>err
contains err "mt-stacks: cut.mt: byte offset 0x"
contains err "truncated"
expect_exit 1 mt-stacks "$MT_FIXTURES/perf-script/magic-trace-tests.txt" >out.mt 2>err
contains err "not an mt stream"
expect_exit 3 mt-stacks no-such.mt >out.mt 2>err
contains err "mt-stacks: no-such.mt: No such file or directory"

# what it does not consume passes through: threads, errors, marks
mt-stacks in.mt >out.mt 2>err
for kind in THREAD ERROR MARK; do
	a=$(mt-dump in.mt | grep -c " $kind " || true)
	b=$(mt-dump out.mt | grep -c " $kind " || true)
	[ "$a" -eq "$b" ] || fail "$kind: $a in, $b out"
done

# a closed pipe
gen-perf-script --lines 200000 | mt-script-parse >big.mt
{ st=0; mt-stacks big.mt 2>err || st=$?; echo $st >status; } | head -c 100 >/dev/null
[ ! -s err ] || fail "closed pipe: $(cat err)"
[ "$(cat status)" -eq 141 ] || fail "closed pipe: exit $(cat status)"
