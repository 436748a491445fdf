#!/bin/sh
# The patch runtime (plugins/patch-runtime/, libmt-patch.so) through mt-record
# --backend patch: the patched functions' calls and returns are all
# recorded, exactly nested, in time order, in each thread (outer: 300
# iterations calling work twice, work starting with a rip-relative load;
# in three threads; recursion 101 deep); the programs print what they
# print untraced; functions whose first bytes need relocating (a 5-byte
# lea; ret, a jcc rel8, rip-relative operands, a call rel32) are patched
# and run right, those that cannot be (4 bytes; a loop back into the
# bytes replaced) are left alone; the runtime leaves the environment of
# the commands it starts as it was (the user's LD_PRELOAD kept); stack
# walks and thread ends inside patched frames work.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# nested FILE (patch_records'): each thread's returns end its innermost
# open call, times never go back; prints "N" (returns) or fails; open
# calls at the end are allowed with -o
nested() {
	awk -v open_ok="${2:-}" '{
		t = $1
		if ($4 < last[t]) { print "time goes back: " $0; exit 1 }
		last[t] = $4
		if ($2 == "call") { st[t, ++d[t]] = $3; next }
		if (d[t] == 0 || st[t, d[t]] != $3) { print "unmatched: " $0; exit 1 }
		d[t]--
		n++
	}
	END { if (!open_ok) for (t in d) if (d[t]) { print "open at the end in " t; exit 1 }
	      print n + 0 }' "$1"
}
# count FILE KIND NAME
count() { awk -v k="$2" -v f="$3" '$2 == k && $3 == f { n++ } END { print n + 0 }' "$1"; }
# rec NAME FUNCTIONS CMD...: the command traced, its output in NAME.out,
# mt-record's messages in NAME.err, the records in NAME.rec
rec() {
	n=$1 f=$2
	shift 2
	mt-record -v --backend patch --functions "$f" -o $n.mt -- "$@" >$n.out 2>$n.err ||
		{ cat $n.err >&2; fail "mt-record -- $*"; }
	grep -q 'threads ran untraced' $n.err && fail "$n: threads untraced"
	patch_records $n.mt >$n.rec
}

# outer, one thread
"$P/outer" >plain.out
rec outer '^(main|outer|work)$' "$P/outer"
same_file plain.out outer.out
contains outer.err "work ($P/outer): patched"
contains outer.err "outer ($P/outer): patched"
nested outer.rec >n || { cat n >&2; fail "outer: not nested"; }
[ "$(count outer.rec call outer)" -eq 300 ] && [ "$(count outer.rec return outer)" -eq 300 ] &&
	[ "$(count outer.rec call work)" -eq 600 ] && [ "$(count outer.rec return work)" -eq 600 ] &&
	[ "$(count outer.rec call main)" -eq 1 ] ||
	fail "outer: wrong counts: $(cut -d' ' -f2,3 outer.rec | sort | uniq -c)"
# work within outer, twice each
awk '$3 == "outer" && $2 == "call" { w = 0; in_o = 1 } $3 == "work" && $2 == "call" { if (!in_o) exit 1; w++ }
	$3 == "outer" && $2 == "return" { if (w != 2) exit 1; in_o = 0 }' outer.rec ||
	fail "work is not called twice in each outer"

# three threads
rec thr '^(loop|outer|work)$' "$P/outer" -t 3
nested thr.rec >n || { cat n >&2; fail "threads: not nested"; }
[ "$(awk '$2 == "call" { print $1 }' thr.rec | sort -u | wc -l)" -eq 3 ] || fail "threads: not 3 threads"
[ "$(count thr.rec call outer)" -eq 900 ] && [ "$(count thr.rec return work)" -eq 1800 ] ||
	fail "threads: wrong counts"

# recursion
rec deep '^deep$' "$P/outer" -d 100
nested deep.rec >n || { cat n >&2; fail "deep: not nested"; }
[ "$(count deep.rec call deep)" -eq 101 ] && [ "$(count deep.rec return deep)" -eq 101 ] ||
	fail "deep: counts"
grep -qx 100 deep.out || fail "deep: the program's output changed"

# relocation
"$P/patchme" >plain.out
rec pm '^(five|four|jccfirst|loopback|ripfirst|callfirst|ssefirst|callind|helper)$' "$P/patchme"
same_file plain.out pm.out
for f in five jccfirst ripfirst callfirst ssefirst callind; do
	contains pm.err "$f ($P/patchme): patched"
	[ "$(count pm.rec call $f)" -eq 10 ] && [ "$(count pm.rec return $f)" -eq 10 ] || fail "$f: counts"
done
contains pm.err "four ($P/patchme): too short"
contains pm.err "loopback ($P/patchme): a branch into the bytes its patch replaces"
[ "$(count pm.rec call four)" -eq 0 ] && [ "$(count pm.rec call loopback)" -eq 0 ] ||
	fail "skipped ones recorded"
nested pm.rec >n || { cat n >&2; fail "patchme: not nested"; }
awk '($3 == "callfirst" || $3 == "callind") && $2 == "call" { c = 1 }
	$3 == "helper" && $2 == "call" && !c { exit 1 }
	($3 == "callfirst" || $3 == "callind") && $2 == "return" { c = 0 }' pm.rec ||
	fail "helper not inside callfirst or callind"
contains pm.err "helper ($P/patchme): patched"
[ "$(count pm.rec call helper)" -eq 20 ] || fail "helper: $(count pm.rec call helper) calls, not 20"

# the environment the program passes on: no MT_PATCH_FD, no runtime
# preloaded; the user's LD_PRELOAD kept
mt-record --backend patch --functions '^setlocale$' -o env.mt -- /usr/bin/env >env.txt 2>env.err ||
	{ cat env.err >&2; fail "mt-record -- env"; }
! grep -q '^MT_PATCH_FD=' env.txt || fail "MT_PATCH_FD passed on"
! grep -q 'libmt-patch' env.txt || fail "LD_PRELOAD passed on"
LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6 mt-record --backend patch --functions '^setlocale$' \
	-o env2.mt -- /usr/bin/env >env2.txt 2>env2.err || { cat env2.err >&2; fail "env2"; }
grep -qx 'LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6' env2.txt ||
	fail "the user's LD_PRELOAD was not kept"

# stack walks and thread ends inside patched frames: backtrace() sees the
# same frames (libgcc_s, which glibc loads for it only when first needed,
# is loaded by the runtime, and its walkers wrapped); pthread_exit and
# cancellation unwind through patched frames and the threads end as
# untraced, their frames ended by the unwind
"$P/patchwalk" >plain.out
rec pw '^(walk[123]|exit[12]|cancel1|spinner|main)$' "$P/patchwalk"
same_file plain.out pw.out
contains pw.out "backtrace: walk3 walk2 walk1 main"
grep -q '^mt-record: _Unwind_Backtrace (.*): wrapped (a stack walker)$' pw.err ||
	fail "_Unwind_Backtrace not wrapped"
grep -q '^mt-record: _Unwind_ForcedUnwind (.*): wrapped (a stack walker)$' pw.err ||
	fail "_Unwind_ForcedUnwind not wrapped"
for f in walk1 walk2 walk3 exit1 exit2 cancel1; do
	[ "$(count pw.rec call $f)" -eq 1 ] || fail "patchwalk: $f called $(count pw.rec call $f) times"
done
# (a frame the unwind ends is a return in the stream: its span ends there)
for f in walk3 exit2 exit1 cancel1 main; do
	[ "$(count pw.rec return $f)" -eq 1 ] || fail "patchwalk: $f ended $(count pw.rec return $f) times"
done
[ "$(awk '$2 == "call" { print $1 }' pw.rec | sort -u | wc -l)" -eq 3 ] || fail "patchwalk: not 3 threads"
