#!/bin/sh
# The patch backend never patches a part of a function (GCC's f.cold,
# f() [clone .cold]: entered by a jump, the word at the stack pointer the
# enclosing frame's local, not a return address): tests/progs/cold (-O2,
# hot.cold starts with a call, t[0] at the stack pointer) computes the
# same sums traced, as a command (the default selection and --functions .)
# and attached (-p); -v says why hot.cold is left alone. C++ exceptions
# thrown through a C frame, rethrown and caught (tests/progs/throwy, at
# -O0, -O2, -O3 and -O2 -fno-omit-frame-pointer): every function's spans
# equal the calls the program counted itself, main once.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

nm "$P/cold" | grep -q ' hot\.cold$' || fail "cold has no hot.cold part (GCC did not split it)"
"$P/cold" >plain.out
for sel in default .; do
	if [ $sel = default ]; then set --; else set -- --functions "$sel"; fi
	mt-record -v --backend patch "$@" --command-stdout 3 -- "$P/cold" 3>cmd.out \
		>rec.mt 2>err || { cat err >&2; fail "mt-record ($sel) -- cold"; }
	same_file plain.out cmd.out
	grep -q "^mt-record: hot.cold (.*): a part of another function" err ||
		fail "$sel: hot.cold not said a part: $(grep hot err)"
	grep -q "^mt-record: hot (.*): patched$" err || fail "$sel: hot not patched"
	n=$(mt-stacks --no-spread rec.mt | mt-dump - | grep -c ' SPAN .* name="hot"')
	[ "$n" -eq 20 ] || fail "$sel: $n hot spans, not 20"
done

# attached: every round's sum the same while patched
"$P/cold" 10000 3000 1000 >att.out &
cpid=$!
sleep 0.2
mt-record --backend patch -p $cpid --max-overhead none -o att.mt 2>att.err &
r=$!
wait_for grep -q "^mt-record: recording $cpid with patch" att.err ||
	{ cat att.err >&2; kill $r; fail "-p: not recording"; }
sleep 0.5
kill -INT $r
wait $r || { cat att.err >&2; fail "mt-record -p exited $?"; }
wait $cpid || fail "cold exited $?"
[ "$(cut -d' ' -f2 att.out)" = 0 ] || fail "-p: rounds differed while attached: $(cat att.out)"
n=$(mt-stacks --no-spread att.mt | mt-dump - | grep -c ' SPAN .* name="hot"')
[ "$n" -gt 10 ] || fail "-p: only $n hot spans"

# exceptions: the program's own counts
for lv in O0 O2 O3 O2fp; do
	prog=$P/throwy-$lv
	"$prog" 3000 >plain.out
	mt-record --backend patch --snapshot-size 4M --command-stdout 3 -- "$prog" 3000 3>cmd.out \
		>rec.mt 2>err || { cat err >&2; fail "$lv: mt-record -- throwy"; }
	same_file plain.out cmd.out
	mt-stacks --no-spread rec.mt | mt-dump - |
		sed -n 's/^.* SPAN .* name="\([^"]*\)".*$/\1/p' | sort | uniq -c |
		awk '{ print $2, $1 }' >got
	sed 1d plain.out | sort >want
	echo "main 1" >>want
	sort -o want want
	same_file want got
done
