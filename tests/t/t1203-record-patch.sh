#!/bin/sh
# mt-record --backend patch -- COMMAND: an mt stream on stdout that
# mt-stacks and mt-fxt take as they are (outer: main, 300 outer, 600 work,
# nested; the FXT read back by fxt-check); -v says what was patched and
# what was left alone and why (patchme's 4-byte function); --snapshot-size
# keeps each thread's newest records only; a SIGINT while the command runs
# on takes the snapshot then (the rings read while it writes); functions of
# shared libraries (libc's wait4 under sh) are patched, and the command's
# children get the environment without the runtime; refused with one line:
# Go, a static executable, -p with two processes; --trigger ends the
# snapshot at the function's first call; --full keeps more than a ring.
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

# spans STREAM: "name depth" of mt-stacks' spans
spans() {
	mt-stacks --no-spread "$1" | mt-dump - |
		sed -n 's/^.* SPAN .* depth=\(-*[0-9]*\) .* name="\([^"]*\)".*$/\2 \1/p'
}

"$P/outer" >plain.out
mt-record --backend patch --command-stdout 3 -- "$P/outer" 3>cmd.out >rec.mt 2>err ||
	{ cat err >&2; fail "mt-record --backend patch -- outer"; }
same_file plain.out cmd.out
grep -q "^mt-record: patched [0-9]* functions$" err || fail "no patched count: $(cat err)"
contains err "recording "
spans rec.mt >spans
[ "$(grep -c '^outer ' spans)" -eq 300 ] || fail "not 300 outer spans: $(grep -c '^outer ' spans)"
[ "$(grep -c '^work ' spans)" -eq 600 ] || fail "not 600 work spans"
[ "$(grep -c '^main ' spans)" -eq 1 ] || fail "not one main span"
# nested: main, loop, outer, work
d=$(awk '$1 == "main" { print $2 }' spans)
[ "$(awk -v d="$d" '$1 == "loop" && $2 == d + 1' spans | wc -l)" -eq 1 ] || fail "loop not under main"
[ "$(awk -v d="$d" '$1 == "outer" && $2 != d + 2' spans | wc -l)" -eq 0 ] || fail "outer not under loop"
[ "$(awk -v d="$d" '$1 == "work" && $2 != d + 3' spans | wc -l)" -eq 0 ] || fail "work not under outer"
mt-dump rec.mt | grep -q 'META key="source" value="mt-record patch"' || fail "no source META"
mt-stacks rec.mt | mt-fxt >rec.fxt || fail "mt-fxt"
fxt-check rec.fxt >check.txt || { cat check.txt >&2; fail "fxt-check"; }

# -v: every function and what was done; too short is said
mt-record -v --backend patch -- "$P/patchme" >pm.mt 2>pm.err ||
	{ cat pm.err >&2; fail "patchme"; }
contains pm.err "four ("
grep -q '^mt-record: four (.*): too short (fewer than 5 bytes, and no padding after it)$' pm.err || fail "four not said too short"
grep -q '^mt-record: five (.*): patched$' pm.err || fail "five (5 bytes) not said patched"
grep -q '^mt-record: loopback (.*): a branch into the bytes' pm.err || fail "loopback not said why"
grep -q '^mt-record: _Unwind_\|^mt-record: __libc_siglongjmp (.*): wrapped' pm.err ||
	fail "no walker said wrapped"

# --snapshot-size: 16K is 1024 records a thread, the newest
mt-record --backend patch --snapshot-size 16K -- "$P/outer" >small.mt 2>err ||
	{ cat err >&2; fail "--snapshot-size 16K"; }
spans small.mt >small
n=$(grep -c . small)
[ "$n" -ge 500 ] && [ "$n" -le 520 ] || fail "--snapshot-size 16K: $n spans, expected 1024 records' worth"
[ "$(grep -c '^main ' small)" -eq 1 ] || fail "main not there (its return is the newest record)"

# SIGINT to mt-record alone: the snapshot of the command still running
mt-record --backend patch -- "$P/outer" -l >int.mt 2>int.err &
rec=$!
for i in $(seq 100); do grep -q '^mt-record: recording' int.err && break; sleep 0.1; done
sleep 0.3
kill -INT $rec
wait $rec || fail "mt-record exited $? on SIGINT"
spans int.mt >int
[ "$(grep -c '^work ' int)" -gt 100 ] || fail "SIGINT: few work spans: $(grep -c '^work ' int)"
! grep -q 'being written' int.err || echo "(records being written were left out: $(cat int.err))"

# a shared library's function; the command's children run untraced
mt-record --backend patch --functions '^wait4$' --command-stdout 3 -- \
	/bin/sh -c 'env; exit 0' 3>env.out >env.mt 2>env.err || { cat env.err >&2; fail "sh"; }
! grep -q 'MT_PATCH_FD\|libmt-patch' env.out || fail "the runtime is in the child's environment"
spans env.mt | grep -q '^[_A-Za-z]*wait4 ' || fail "wait4 not traced in sh"
contains env.err "patched 1 function"
# bash brings its own setenv and unsetenv: what it passes on is clean too
mt-record --backend patch --command-stdout 3 -- bash -c 'exec cat /proc/self/environ' \
	3>benv.out >benv.mt 2>benv.err || { cat benv.err >&2; fail "bash"; }
! tr '\0' '\n' <benv.out | grep -q 'MT_PATCH_FD\|libmt-patch' ||
	fail "bash passed the runtime on to its child"

# refused
expect_exit 1 mt-record --backend patch -- "$P/outer-go" 2>err
contains err "a Go program"
printf 'int main(void){return 3;}\n' >s.c
if cc -static -o static s.c 2>/dev/null; then
	expect_exit 1 mt-record --backend patch -- ./static 2>err
	contains err "statically linked"
fi
sleep 30 & s1=$!
sleep 30 & s2=$!
expect_exit 2 mt-record --backend patch -p $s1,$s2 2>err
contains err "-p: the patch backend attaches to one process at a time"
kill $s1 $s2
# --trigger: the snapshot ends at the function's first call (iteration
# 150's stop_here): 151 outer spans, the last record that call, a MARK
mt-record --backend patch --trigger stop_here -o trig.mt -- "$P/outer" -s 150 2>trig.err ||
	{ cat trig.err >&2; fail "--trigger stop_here"; }
contains trig.err "with patch; Ctrl+C ends without a snapshot"
grep -q '^mt-record: trigger stop_here hit by [0-9]*/[0-9]* at ' trig.err ||
	fail "the hit not said: $(cat trig.err)"
[ "$(spans trig.mt | grep -c '^outer ')" -eq 151 ] || fail "not 151 outer spans"
mt-dump trig.mt | grep BRANCH | tail -1 | grep -q 'kind=call .*"stop_here"' ||
	fail "the snapshot does not end at the trigger's call"
mt-dump trig.mt | grep -q 'MARK .* kind=trigger .* text="stop_here"' || fail "no trigger MARK"
# a trigger that cannot be patched (4 bytes, no padding): a hardware
# breakpoint or a uprobe fires instead, said in one line, the snapshot
# cut at the hit; where neither can, refused before the command runs on
if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	# a uprobe, not whatever fires here: a VM's debug traps come and go
	# with the host's load (t1126)
	mt-record --backend patch --trigger four --trigger-via uprobe -o four.mt -- "$P/patchme" \
		>four.out 2>err ||
		{ cat err >&2; fail "--trigger four: mt-record failed"; }
	grep -q "^mt-record: --trigger four: left alone by the patch backend (too short.*): a uprobe fires instead$" err ||
		fail "the fallback not said: $(cat err)"
	grep -q '^mt-record: trigger four hit by ' err || fail "four's hit not said: $(cat err)"
	mt-dump four.mt >four.dump
	hit=$(sed -n 's/.* MARK time=\([0-9.]*\) .* kind=trigger .* text="four"$/\1/p' four.dump)
	[ -n "$hit" ] || fail "no trigger MARK for four"
	last=$(grep ' BRANCH ' four.dump | tail -1 | sed 's/.* time=\([0-9.]*\) .*/\1/')
	awk -v h="$hit" -v l="$last" 'BEGIN { exit !(l + 0 <= h + 0) }' ||
		fail "a record at $last after the hit at $hit"
	[ "$(grep -c ' BRANCH ' four.dump)" -gt 0 ] || fail "nothing recorded before four's hit"
	# -p: the same, armed once the patches are written
	"$P/patchme" -L >pl.out &
	pl=$!
	wait_for grep -q ready pl.out || fail "patchme -L did not start"
	mt-record --backend patch -p $pl --trigger four --trigger-via uprobe -o fourp.mt 2>errp ||
		{ kill $pl; cat errp >&2; fail "-p --trigger four: mt-record failed"; }
	kill $pl
	contains errp "left alone by the patch backend (too short"
	grep -q '^mt-record: trigger four hit by ' errp || fail "-p: four's hit not said: $(cat errp)"
	mt-dump fourp.mt | grep -q ' MARK .* kind=trigger .* text="four"' || fail "-p: no trigger MARK"
else
	expect_exit 1 mt-record --backend patch --trigger four -- "$P/patchme" 2>err
	contains err "--trigger four: left alone: too short"
fi
expect_exit 1 mt-record --backend patch --trigger four --slower-than 1ms -- "$P/patchme" 2>err
contains err "--trigger four: left alone: too short"
# --full: the rings drained while the command runs, everything kept:
# outer -l -n 30 until the stream holds some 16 MB (about 35000 outer
# calls: each drain is written out at once) is far more than a 1 MiB ring
# holds (65536 records, 10922 outer calls), every outer call with its two
# of work; a machine too loaded to make them in 30 s fails below
mt-record --backend patch --full --snapshot-size 1M -- "$P/outer" -l -n 30 >full.mt 2>full.err &
r=$!
wait_for grep -q "recording .* with patch (full); Ctrl+C ends the recording" full.err ||
	{ cat full.err >&2; kill $r; fail "--full: not recording"; }
i=0
while [ "$(stat -c %s full.mt)" -lt 16000000 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $r
wait $r || { cat full.err >&2; fail "--full: mt-record exited $?"; }
grep -q overwritten full.err && fail "--full lost records: $(cat full.err)"
spans full.mt >full.spans
o=$(grep -c '^outer ' full.spans)
w=$(grep -c '^work ' full.spans)
[ "$o" -gt 21844 ] || fail "--full: only $o outer calls (two rings' worth: 21844)"
[ "$w" -ge $((2 * o - 1)) ] && [ "$w" -le $((2 * o)) ] || fail "--full: $w work for $o outer"
mt-stacks full.mt | mt-fxt >full.fxt || fail "--full: mt-fxt"
fxt-check full.fxt >full.check || { cat full.check >&2; fail "--full: fxt-check"; }
