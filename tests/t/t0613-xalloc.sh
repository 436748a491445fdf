#!/bin/sh
# The tools' allocation family (common/xalloc.h) never returns NULL: sizes
# of 0 give memory of their own, xcalloc zeroes, xrealloc keeps the
# contents; a count times a size that overflows (xmallocarray, xcalloc,
# xrealloc), or memory that cannot be had, ends the tool with exit 3 and
# the one line "PROG: out of memory", nothing on standard output.
. "$MT_TOP/tests/lib.sh"

xalloc-check basics >out 2>err || fail "basics: $(cat err)"
[ "$(cat out)" = ok ] || fail "basics: $(cat out)"
[ ! -s err ] || fail "basics wrote: $(cat err)"

# dies WHAT ARGS...: xalloc-check WHAT ARGS... dies out of memory (an
# ASan build's own warning, "==PID==WARNING: AddressSanitizer failed to
# allocate ...", aside)
dies() {
	expect_exit 3 xalloc-check "$@" >out 2>err
	[ ! -s out ] || fail "$*: wrote to standard output: $(cat out)"
	[ "$(grep -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate' err)" = \
		"xalloc-check: out of memory" ] || fail "$*: $(cat err)"
}
half=0x8000000000000000
dies mallocarray $half 2
dies mallocarray 0xffffffffffffffff 0xffffffffffffffff
dies calloc $half 2
dies calloc 3 0x5555555555555556
dies realloc $half 2
dies realloc 2 $half
# memory that is not there: 2^62 bytes is more than the address space (an
# ASan build returns NULL only when told to)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
export ASAN_OPTIONS
dies malloc 0x4000000000000000
dies calloc 0x2000000000000000 2
dies realloc 0x2000000000000000 2
# a product that fits is allocated
xalloc-check mallocarray 0x1000 0x1000 >out 2>err || fail "mallocarray 16 MiB: $(cat err)"
[ "$(cat out)" = ok ] || fail "mallocarray 16 MiB: $(cat out)"
