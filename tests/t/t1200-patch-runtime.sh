#!/bin/sh
# The patch runtime (mt-patch/, libmt-patch.so) on its own, driven by
# patch-run: the patched functions' calls and returns are all recorded,
# exactly nested, in time order, in each thread (outer: 300 iterations
# calling work twice, work starting with a rip-relative load; in three
# threads; recursion 101 deep); the programs print what they print
# untraced; functions whose first bytes need relocating (a 5-byte lea;
# ret, a jcc rel8, rip-relative operands, a call rel32) are patched and
# run right, those that cannot be (4 bytes; a loop back into the bytes
# replaced) are left alone and said why; the runtime leaves the
# environment of the commands it starts as it was.
. "$MT_TOP/tests/lib.sh"
rt=$MT_BIN/../lib/libmt-patch.so
[ -f "$rt" ] || fail "no $rt"
P=$MT_TESTBIN/progs

# nested FILE: each thread's returns end its innermost open call, times
# never go back; prints "N" (records) or fails
nested() {
	awk '$1 == "#" || NF != 4 || $2 !~ /^(call|return|cut)$/ { next }
	{
		t = $1
		if ($4 < last[t]) { print "time goes back: " $0; exit 1 }
		last[t] = $4
		if ($2 == "call") { st[t, ++d[t]] = $3; next }
		if (d[t] == 0 || st[t, d[t]] != $3) { print "unmatched: " $0; exit 1 }
		d[t]--
		n++
	}
	END { for (t in d) if (d[t]) { print "open at the end in " t; exit 1 }; print n }' "$1"
}
# count FILE KIND NAME
count() { awk -v k="$2" -v f="$3" '$2 == k && $3 == f { n++ } END { print n + 0 }' "$1"; }

# outer, one thread
"$P/outer" >plain.out
patch-run -v -f '^(main|outer|work)$' "$rt" -- "$P/outer" >rec.txt 2>err ||
	{ cat err >&2; fail "patch-run outer"; }
grep -v '^[0-9]* \(call\|return\|cut\) ' rec.txt | grep -v '^# ' >traced.out || :
same_file plain.out traced.out
contains err "work patched"
contains err "outer patched"
contains rec.txt " skipped 0 threads 1 lost 0"
nested rec.txt >n || { cat n >&2; fail "outer: not nested"; }
[ "$(count rec.txt call outer)" -eq 300 ] && [ "$(count rec.txt return outer)" -eq 300 ] &&
	[ "$(count rec.txt call work)" -eq 600 ] && [ "$(count rec.txt return work)" -eq 600 ] &&
	[ "$(count rec.txt call main)" -eq 1 ] || fail "outer: wrong counts: $(cut -d' ' -f2,3 rec.txt | sort | uniq -c)"
# work within outer, twice each
awk '$3 == "outer" && $2 == "call" { w = 0; in_o = 1 } $3 == "work" && $2 == "call" { if (!in_o) exit 1; w++ }
	$3 == "outer" && $2 == "return" { if (w != 2) exit 1; in_o = 0 }' rec.txt || fail "work is not called twice in each outer"

# three threads
patch-run -f '^(loop|outer|work)$' "$rt" -- "$P/outer" -t 3 >thr.txt || fail "patch-run outer -t 3"
nested thr.txt >n || { cat n >&2; fail "threads: not nested"; }
[ "$(awk '$2 == "call" { print $1 }' thr.txt | sort -u | wc -l)" -eq 3 ] || fail "threads: not 3 threads"
[ "$(count thr.txt call outer)" -eq 900 ] && [ "$(count thr.txt return work)" -eq 1800 ] ||
	fail "threads: wrong counts"
contains thr.txt "threads 3 lost 0"

# recursion
patch-run -f '^deep$' "$rt" -- "$P/outer" -d 100 >deep.txt || fail "patch-run outer -d 100"
nested deep.txt >n || { cat n >&2; fail "deep: not nested"; }
[ "$(count deep.txt call deep)" -eq 101 ] && [ "$(count deep.txt return deep)" -eq 101 ] || fail "deep: counts"
grep -qx 100 deep.txt || fail "deep: the program's output changed"

# relocation
"$P/patchme" >plain.out
patch-run -v -f '^(five|four|jccfirst|loopback|ripfirst|callfirst|helper)$' "$rt" -- "$P/patchme" \
	>pm.txt 2>err || { cat err >&2; fail "patch-run patchme"; }
grep '^sum ' pm.txt >traced.out
same_file plain.out traced.out
for f in five jccfirst ripfirst callfirst helper; do
	contains err "$f patched"
	[ "$(count pm.txt call $f)" -eq 10 ] && [ "$(count pm.txt return $f)" -eq 10 ] || fail "$f: counts"
done
contains err "five patched cover 5"
contains err "four too short"
contains err "loopback branch into the entry"
[ "$(count pm.txt call four)" -eq 0 ] && [ "$(count pm.txt call loopback)" -eq 0 ] || fail "skipped ones recorded"
nested pm.txt >n || { cat n >&2; fail "patchme: not nested"; }
awk '$3 == "callfirst" && $2 == "call" { c = 1 } $3 == "helper" && $2 == "call" && !c { exit 1 }
	$3 == "callfirst" && $2 == "return" { c = 0 }' pm.txt || fail "helper not inside callfirst"

# the environment the program passes on: no MT_PATCH_FD, no runtime preloaded
patch-run -f '^main$' "$rt" -- /usr/bin/env >env.txt || fail "patch-run env"
! grep -q '^MT_PATCH_FD=' env.txt || fail "MT_PATCH_FD passed on"
! grep -q 'libmt-patch' env.txt || fail "LD_PRELOAD passed on"
LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6 patch-run -f '^main$' "$rt" -- /usr/bin/env >env2.txt
grep -qx 'LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6' env2.txt || fail "the user's LD_PRELOAD was not kept"

# stack walks and thread ends inside patched frames: backtrace() sees the
# same frames (libgcc_s, which glibc loads for it only when first needed,
# is loaded by the runtime, and its walkers wrapped); pthread_exit and
# cancellation unwind through patched frames and the threads end as
# untraced (their frames stay open: they never return)
"$P/patchwalk" >plain.out
patch-run -v -f '^(walk[123]|exit[12]|cancel1|spinner|main)$' "$rt" -- "$P/patchwalk" >pw.txt 2>err ||
	{ cat err >&2; fail "patch-run patchwalk"; }
grep -v '^[0-9]* \(call\|return\|cut\) \|^# ' pw.txt >traced.out || :
same_file plain.out traced.out
contains traced.out "backtrace: walk3 walk2 walk1 main"
contains err "_Unwind_Backtrace patched"
contains err "_Unwind_ForcedUnwind patched"
for f in walk1 walk2 walk3 exit1 exit2 cancel1; do
	[ "$(count pw.txt call $f)" -eq 1 ] || fail "patchwalk: $f called $(count pw.txt call $f) times"
done
[ "$(count pw.txt return walk3)" -eq 1 ] && [ "$(count pw.txt return exit2)" -eq 0 ] &&
	[ "$(count pw.txt return cancel1)" -eq 0 ] || fail "patchwalk: returns"
contains pw.txt "threads 3 lost 0"
