#!/bin/sh
# The uprobe backend's stream (mt-record/uprobe/sinks.h) is what
# mt-script-parse makes of the engine's text for the same snapshot:
# uprobe-rec --stream writes both from one recording, and every record
# but the strings' and the source META is the same, before and after
# mt-stacks: with threads named and unnamed, C++ names demangled as perf
# prints them, and events the kernel lost (their ERROR records).
. "$MT_TOP/tests/lib.sh"
need_uprobes
command -v g++ >/dev/null 2>&1 || fail "g++ not installed (make deps installs it)"

# records FILE: mt-dump's records without the offsets, the strings, the
# source and the END (whose byte count follows the strings)
records() {
	mt-dump "$1" | sed 's/^0x[0-9a-f]* //' |
		grep -v -e '^STRING ' -e '^META key="source"' -e '^END '
}

# same NAME: NAME.txt through mt-script-parse and NAME.mt, alike
same() {
	mt-dump "$1.mt" | grep -q 'META key="source" value="mt-record uprobe"' ||
		fail "$1: no source META of mt-record's"
	mt-script-parse "$1.txt" >"$1.parsed" || fail "$1: mt-script-parse"
	records "$1.parsed" >"$1.want"
	records "$1.mt" >"$1.got"
	[ "$(grep -c '^BRANCH .* kind=call flags=PROBE' "$1.got")" -gt 0 ] || fail "$1: no call"
	diff "$1.want" "$1.got" >"$1.diff" || { head -20 "$1.diff" >&2; fail "$1: records differ"; }
	mt-stacks "$1.parsed" >"$1.sp" && mt-stacks "$1.mt" >"$1.sm" || fail "$1: mt-stacks"
	records "$1.sp" >"$1.spw"
	records "$1.sm" >"$1.spg"
	[ "$(grep -c '^SPAN ' "$1.spg")" -gt 0 ] || fail "$1: no span"
	diff "$1.spw" "$1.spg" >"$1.sdiff" || { head -20 "$1.sdiff" >&2; fail "$1: spans differ"; }
}

# threads: three named, every function of outer
cp "$MT_TESTBIN/progs/outer" ./outer
uprobe-rec --stream threads.mt -- ./outer -t 3 >threads.txt 2>err ||
	{ cat err >&2; fail "uprobe-rec (threads) failed"; }
same threads
[ "$(grep -c '^THREAD ' threads.got)" -ge 4 ] || fail "threads: $(grep '^THREAD ' threads.got)"

# C++: names demangled as perf prints them
g++ -O1 -fno-inline -fno-omit-frame-pointer -g -o names "$MT_TOP/tests/progs/names.cc" ||
	fail "g++ failed"
uprobe-rec --stream cxx.mt --functions 'app::' -- ./names 3 >cxx.txt 2>err ||
	{ cat err >&2; fail "uprobe-rec (C++) failed"; }
same cxx
grep -q '"app::Server::lookup"' cxx.got || fail "C++: no app::Server::lookup"

# lost events: a one-page ring left unread while the program runs
uprobe-rec --stream lost.mt --mmap 4096 --stall 300 --functions '^(work|outer)$' \
	-- ./outer -n 2000 >lost.txt 2>err || { cat err >&2; fail "uprobe-rec (lost) failed"; }
grep -q PERF_RECORD_LOST lost.txt || fail "lost: no PERF_RECORD_LOST line"
same lost
grep -q '^ERROR .* class=lost ' lost.got || fail "lost: no ERROR record"
