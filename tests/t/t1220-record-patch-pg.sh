#!/bin/sh
# A program built with -pg (every function calls mcount after its
# prologue, push %rbp; mov %rsp,%rbp; pushes: gcc through the GOT, which
# make check's first pass builds it with; clang through the PLT, lazily
# bound, with copies of the arguments before, its sanitizer pass): the patch
# backend patches each function after that call, so that mcount still
# sees the real return address (gprof's caller) and its own: the program
# prints what it prints untraced, gmon.out's call graph (gprof -q: every
# arc and count) is the untraced one, and the trace has every call, as
# many as the program made.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs
command -v gprof >/dev/null || fail "no gprof (binutils)"
# arcs: "COUNT NAME" of every line of gprof's call graph (the times and
# index numbers left out: the histogram is sampled)
arcs() { gprof -b -q "$P/pgme" "$1" | awk '/\[[0-9]+\]$/ { print $(NF - 2), $(NF - 1) }'; }
mkdir u t
(cd u && "$P/pgme" -n 1000 >out) || fail "pgme failed"
(cd t && mt-record -v --backend patch --functions '^(leaf|mid|top|main)$' -o ../pg.mt -- \
	"$P/pgme" -n 1000 >out 2>../err) || { cat err >&2; fail "mt-record failed"; }
same_file u/out t/out
for f in leaf mid top main; do
	grep -q "^mt-record: $f (.*): patched$" err || fail "$f not patched: $(grep " $f " err)"
done
arcs u/gmon.out >arcs.u
arcs t/gmon.out >arcs.t
grep -qx '3000/4000 mid' arcs.u || fail "gprof: no arc mid -> leaf untraced: $(cat arcs.u)"
same_file arcs.u arcs.t
patch_records pg.mt >rec
for fc in leaf:4000 mid:1000 top:1000 main:1; do
	f=${fc%:*} want=${fc#*:}
	c=$(awk -v f=$f '$2 == "call" && $3 == f' rec | wc -l)
	r=$(awk -v f=$f '$2 == "return" && $3 == f' rec | wc -l)
	[ "$c" -eq "$want" ] && [ "$r" -eq "$want" ] || fail "$f: $c calls, $r returns, not $want"
done
# nested: leaf within mid or top, mid within top
mt-stacks pg.mt | mt-dump - >dump
[ "$(grep -c ' SPAN .* name="leaf"' dump)" -eq 4000 ] || fail "leaf: not 4000 spans"
