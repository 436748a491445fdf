#!/bin/sh
# mt-record --backend patch --functions . on the ptsynth corpus programs
# that are not Go (C recursion, tail calls, function pointers, longjmp,
# threads, signals, C++ exceptions through destructors, templates, Rust):
# every function of the executable and of each library it maps patched
# that can be (their C++ and Rust runtimes, libstdc++, libc and ld.so
# whole; _start left alone: it is not called): each exits and prints as
# untraced, and each thread's records nest (a return, or a frame an
# unwind cut, ends the innermost open call). A C++ exception caught two
# frames up ends the frames it unwound, and the unwinder, its walkers
# wrapped, finds the handler (exit 0, not std::terminate); the
# unwinder's own functions are left alone.
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
progs="basic cos recursion tailcall jumps threads signal exceptions exceptions-recursive templates rust loop"
for p in $progs; do
	[ -x "$CORPUS/$p" ] || { echo "skipped: $CORPUS/$p was not built"; exit 0; }
done

# nested FILE (patch_records'): prints the calls, or fails
nested() {
	awk '{
		t = $1
		if ($2 == "call") { st[t, ++d[t]] = $3; n++; next }
		if (d[t] == 0 || st[t, d[t]] != $3) { print "unmatched: " $0; exit 1 }
		d[t]--
	}
	END { print n + 0 }' "$1"
}

for p in $progs; do
	st=0; "$CORPUS/$p" >"$p.plain" 2>&1 || st=$?
	tst=0; mt-record -v --backend patch --functions . -o "$p.mt" -- "$CORPUS/$p" \
		>"$p.out" 2>"$p.err" || tst=$?
	[ "$tst" -eq 0 ] || fail "$p: mt-record exited $tst: $(tail -3 "$p.err")"
	grep -v '^mt-record: ' "$p.err" >>"$p.out" || :
	cmp -s "$p.plain" "$p.out" || fail "$p: output differs traced"
	if [ "$st" -ne 0 ]; then
		contains "$p.err" "exited with status $st"
	elif grep -q 'exited with status\|killed by signal' "$p.err"; then
		fail "$p: $(grep 'exited with status\|killed by signal' "$p.err")"
	fi
	patch_records "$p.mt" >"$p.rec"
	nested "$p.rec" >"$p.n" || fail "$p: $(cat "$p.n")"
	# (Rust's main exits in the runtime it calls, without returning)
	r=1; [ "$p" != rust ] || r=0
	[ "$(grep -c '^[0-9]* call main ' "$p.rec")" -eq 1 ] &&
		[ "$(grep -c '^[0-9]* return main ' "$p.rec")" -eq $r ] ||
		fail "$p: main not called once, returned $r times"
	grep -q '^mt-record: _start (.*): not entered by a call' "$p.err" ||
		fail "$p: _start was not left alone"
done
[ "$(cut -d' ' -f1 threads.rec | sort -u | wc -l)" -eq 3 ] || fail "threads: not 3 threads"

# the exception: thrown in inner, caught in catcher
grep -q '^mt-record: __cxa_begin_catch (.*): wrapped' exceptions.err || fail "__cxa_begin_catch not wrapped"
grep -q '^mt-record: _Unwind_RaiseException (.*): wrapped' exceptions.err ||
	fail "_Unwind_RaiseException not wrapped"
grep -q '^mt-record: uw_init_context_1 (.*): libgcc.s unwinder' exceptions.err ||
	fail "the unwinder's functions were patched"
awk '$3 ~ /^(inner|middle|outer|catcher)$/ { printf "%s %s\n", $2, $3 }' exceptions.rec >ex.seq
printf '%s\n' "call catcher" "call outer" "call middle" "call inner" \
	"return inner" "return middle" "return outer" "return catcher" >ex.want
same_file ex.want ex.seq
