#!/bin/sh
# The patch runtime on the ptsynth corpus programs that are not Go (C
# recursion, tail calls, function pointers, longjmp, threads, signals,
# C++ exceptions through destructors, templates, Rust), every function of
# the executable patched that can be (-f .: also the C++ and Rust runtime
# linked into them, and _start, which is left alone: it is not called):
# each exits and prints as untraced, and each thread's records nest (a
# return or a cut ends the innermost open call). A C++ exception caught
# two frames up cuts the frames it unwound, at the catch, and the
# unwinder, the walkers wrapped, finds its handler (exit 0, not
# std::terminate); the unwinder's own functions are left alone.
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
rt=$MT_BIN/../lib/libmt-patch.so
progs="basic cos recursion tailcall jumps threads signal exceptions exceptions-recursive templates rust loop"
for p in $progs; do
	[ -x "$CORPUS/$p" ] || { echo "skipped: $CORPUS/$p was not built"; exit 0; }
done

# nested FILE: as t1200's, with cuts
nested() {
	awk '$1 == "#" || NF != 4 || $2 !~ /^(call|return|cut)$/ { next }
	{
		t = $1
		if ($2 == "call") { st[t, ++d[t]] = $3; n++; next }
		if (d[t] == 0 || st[t, d[t]] != $3) { print "unmatched: " $0; exit 1 }
		d[t]--
	}
	END { print n + 0 }' "$1"
}

for p in $progs; do
	st=0; "$CORPUS/$p" >"$p.plain" 2>&1 || st=$?
	tst=0; patch-run -v -f . "$rt" -- "$CORPUS/$p" >"$p.rec" 2>"$p.err" || tst=$?
	[ "$st" -eq "$tst" ] || fail "$p: exit $tst traced, $st untraced: $(tail -3 "$p.err")"
	grep -v '^[0-9]* \(call\|return\|cut\) \|^# patched ' "$p.rec" >"$p.out" || :
	cmp -s "$p.plain" "$p.out" || fail "$p: output differs traced"
	nested "$p.rec" >"$p.n" || fail "$p: $(cat "$p.n")"
	# (Rust's main exits in the runtime it calls, without returning)
	r=1; [ "$p" != rust ] || r=0
	[ "$(grep -c '^[0-9]* call main ' "$p.rec")" -eq 1 ] && [ "$(grep -c '^[0-9]* return main ' "$p.rec")" -eq $r ] ||
		fail "$p: main not called once, returned $r times"
	grep -q '^_start not called' "$p.err" || fail "$p: _start was not left alone"
done
[ "$(cut -d' ' -f1 threads.rec | grep -v '#' | sort -u | wc -l)" -eq 3 ] || fail "threads: not 3 threads"

# the exception: thrown in inner, caught in catcher
grep -q '^__cxa_begin_catch patched' exceptions.err || fail "__cxa_begin_catch not wrapped"
grep -q '^_Unwind_RaiseException patched' exceptions.err || fail "_Unwind_RaiseException not wrapped"
grep -q '^uw_init_context_1 unwinder' exceptions.err || fail "the unwinder's functions were patched"
awk '$3 ~ /^_ZL(5inner|6middle|5outer|7catcher)v$/ { printf "%s %s\n", $2, $3 }' exceptions.rec >ex.seq
printf '%s\n' "call _ZL7catcherv" "call _ZL5outerv" "call _ZL6middlev" "call _ZL5innerv" \
	"cut _ZL5innerv" "cut _ZL6middlev" "cut _ZL5outerv" "return _ZL7catcherv" >ex.want
same_file ex.want ex.seq
