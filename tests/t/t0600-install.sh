#!/bin/sh
# make install puts every tool and its man page under DESTDIR/PREFIX, the
# documents in PREFIX/share/doc/mt (DOCDIR), where the installed pages say
# they are, magic_trace.h in PREFIX/include (a program builds with it),
# and the installed tools run the README's pipeline: perf script
# text to a Perfetto trace that fxt-check accepts.
. "$MT_TOP/tests/lib.sh"

dest=$PWD/dest
# from the tests' own build (plain, or the ASan pass's: nothing to rebuild)
build=$(dirname "$MT_BIN")
san=
case $build in */asan) san=1 ;; esac
make -s -j2 -C "$MT_TOP" BUILD="$build" SAN=$san install DESTDIR="$dest" PREFIX=/opt/mt >make.log 2>&1 ||
	{ cat make.log >&2; fail "make install"; }
# every tool the Makefile builds
tools=$(make -s --no-print-directory -C "$MT_TOP" print-tools)
[ -n "$tools" ] || fail "no TOOLS in the Makefile"
for t in $tools; do
	[ -x "$dest/opt/mt/bin/$t" ] || fail "$t not installed"
	[ -f "$dest/opt/mt/share/man/man1/$t.1" ] || fail "$t.1 not installed"
	"$dest/opt/mt/bin/$t" --help | grep -q "^usage: $t " || fail "$t --help"
done
# the dlfilter, where mt-record looks for it
[ -f "$dest/opt/mt/lib/mt/mt-dlfilter.so" ] || fail "lib/mt/mt-dlfilter.so not installed"
# the documents the man pages refer to
for d in format.md fxt.md perf.md README.md; do
	[ -f "$dest/opt/mt/share/doc/mt/$d" ] || fail "share/doc/mt/$d not installed"
done
grep -q '/opt/mt/share/doc/mt' "$dest/opt/mt/share/man/man1/mt-dump.1" || fail "mt-dump.1 does not say where format.md is"
# the stop indicator's header: a C program builds against it
[ -f "$dest/opt/mt/include/magic_trace.h" ] || fail "include/magic_trace.h not installed"
printf '#include <magic_trace.h>\nint main(void) { magic_trace_mark_start(); magic_trace_take_snapshot(); return 0; }\n' >mt.c
cc -Wall -Wextra -Werror -I"$dest/opt/mt/include" -o mtc mt.c || fail "a program with magic_trace.h"
./mtc || fail "a program with magic_trace.h exited $?"
bin=$dest/opt/mt/bin
gen-perf-script --lines 20000 --seed 4 --threads 2 |
	"$bin/mt-script-parse" | "$bin/mt-stacks" |
	"$bin/mt-slice" --min-duration 100ns 2>/dev/null | "$bin/mt-fxt" -o trace.fxt
fxt-check trace.fxt >check || { cat check >&2; fail "pipeline output"; }
