#!/bin/sh
# A hostile process traced by root mt-record -p cannot harm it, nor make
# it harm anything (docs/patch.md, "What a traced process can do"):
# tests/progs/hostile, each attack of issue 27 as a mode or a command.
#  - its runtime's memfd_create answered with an O_PATH descriptor of a
#    root-only file (the process exports syscall()), or a thread dup2ing
#    one over every descriptor meanwhile: the file is never written, its
#    size never changed; mt-record refuses (1) or fails (3), never dies of
#    a signal;
#  - every field of the shared memory mt-record reads written with values
#    that would send its reads, loops and allocations astray (the bounds,
#    counts, covers of 4 KiB, strings without a NUL, depths of 2^32, rings
#    of garbage): the snapshot is written, mt-record exits 0 within its
#    memory bound, every entry is put back as it was, the program's
#    results stay right;
#  - a session left by a killed mt-record, then forged: a table offset
#    that wraps a size is refused (1, "makes no sense"); covers of 4 KiB
#    are not followed, and what could not be put back is said (3: not
#    attached, the session left in place); the process runs on with right
#    results.
#  - a session whose undo a SIGKILL cut short (an entry back already) is
#    undone whole by the next attach, which records;
#  - mt-record dying of its own error while attached (a write to a full
#    disk, a pipe whose reader went away) puts the patches back first
#    (before: left in place).
# Under ASan and UBSan (make check's second pass) any stray read or write
# of mt-record's fails the test (its stderr is checked).
. "$MT_TOP/tests/lib.sh"
P=$MT_TESTBIN/progs

no_sanitizer_report() { # FILE
	! grep -q 'AddressSanitizer\|runtime error:\|LeakSanitizer' "$1" ||
		fail "$1: $(grep -m3 'Sanitizer\|runtime error' "$1")"
}

# start [ARGS]: hostile on a fifo of commands (fd 7), its output in h.out
start() {
	rm -f h.in h.out
	mkfifo h.in
	$AS "$P/hostile" "$@" <h.in >h.out &
	hp=$!
	exec 7>h.in
	wait_for grep -q ready h.out || fail "hostile $*: did not start ($(cat h.out))"
}
# finish: q, hostile's results right
finish() {
	echo q >&7
	exec 7>&-
	wait $hp || fail "hostile exited $?"
	grep -q '^bad 0 calls [1-9]' h.out || fail "hostile: $(tail -1 h.out)"
}
say() { # CMD: hostile's answer to CMD (its last line)
	n=$(wc -l <h.out)
	echo "$1" >&7
	wait_for sh -c "[ \$(wc -l <h.out) -gt $n ]" || fail "no answer to $1"
	tail -1 h.out
}

# ---- the memfd: a root-only file offered instead ----
# (as nobody where the runtime is readable to it: O_PATH needs no right on
# the file, only to search its directory)
sec=$(mktemp -d /tmp/mt-t1215.XXXXXX) || fail mktemp
trap 'rm -rf "$sec"' EXIT
chmod 711 "$sec"
printf 'root only\n' >"$sec/secret"
chmod 600 "$sec/secret"
sum0=$(cksum <"$sec/secret")
AS=
if command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "test -r '$MT_BIN/../lib/mt/libmt-patch.so' -o -r '$MT_BIN/../lib/libmt-patch.so'" \
		2>/dev/null; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
echo "hostile runs as: ${AS:-root}"
for mode in -m -r; do
	start $mode "$sec/secret"
	rc=0
	timeout 120 mt-record --backend patch -p $hp --functions '^step$' -o m.mt \
		2>m$mode.err &
	r=$!
	# it refuses or fails at once, or records (the race lost): then ^C
	wait_secs 30 grep -q '^mt-record: recording\|refused\|could not\|nothing' m$mode.err || :
	kill -INT $r 2>/dev/null || :
	wait $r || rc=$?
	echo "$mode: mt-record exited $rc: $(head -2 m$mode.err)"
	no_sanitizer_report m$mode.err
	[ $rc -lt 128 ] || fail "$mode: mt-record died of a signal ($rc)"
	[ "$(cksum <"$sec/secret")" = "$sum0" ] || fail "$mode: the root-only file was written"
	[ "$(stat -c %s "$sec/secret")" = 10 ] || fail "$mode: its size changed"
	if [ $mode = -m ]; then
		[ $rc -eq 1 ] || fail "-m: mt-record exited $rc: $(cat m-m.err)"
		contains m-m.err "the runtime's memory is not the new memfd"
	fi
	finish
done
AS=

# ---- the live session's memory, all of it spoilt ----
start
measure -n 1 -o /dev/null -- mt-record --backend patch -p $hp --functions '^step$' \
	-o s.mt 2>s.err >s.measure &
m=$!
wait_secs 30 grep -q "^mt-record: recording $hp with patch" s.err ||
	{ cat s.err >&2; kill $m; fail "not recording"; }
[ "$(say s)" = scribbled ] || fail "not scribbled: $(tail -1 h.out)"
kill -INT $(pgrep -P $m)
wait $m || fail "mt-record: $(cat s.measure) $(cat s.err)"
cat s.measure
no_sanitizer_report s.err
grep -q 'status=0$' s.measure || fail "mt-record: $(cat s.measure): $(cat s.err)"
kb=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' s.measure)
# (9 MB as it is, 40 under ASan; ~300 when it followed the process's counts)
[ "$kb" -lt 131072 ] || fail "mt-record grew to $kb KiB"
mt-dump s.mt >s.dump || fail "the snapshot: $(head -3 s.dump)"
! grep -q 'could not' s.err || fail "$(cat s.err)"
[ "$(say c)" = "entry same" ] || fail "step's entry was not put back"
echo g >&7
finish

# ---- a session left by a killed mt-record, forged ----
for forge in S C; do
	start
	attach k $hp --functions '^step$'
	kill -KILL $rec
	wait $rec || :
	[ "$(say $forge)" = forged ] || fail "$forge: not forged"
	rc=0
	timeout 120 mt-record --backend patch -p $hp --functions '^step$' -o f.mt 2>f$forge.err &
	r=$!
	wait_secs 30 grep -q '^mt-record: recording\|makes no sense\|not attached' f$forge.err || :
	kill -INT $r 2>/dev/null || :
	wait $r || rc=$?
	echo "$forge: mt-record exited $rc: $(head -3 f$forge.err)"
	no_sanitizer_report f$forge.err
	case $forge in
	S)	[ $rc -eq 1 ] || fail "S: mt-record exited $rc: $(cat fS.err)"
		contains fS.err "makes no sense (the process wrote it?): it cannot be undone" ;;
	C)	[ $rc -eq 3 ] || fail "C: mt-record exited $rc: $(cat fC.err)"
		contains fC.err "the patches of an earlier mt-record, killed, could not all be put back: it runs on with those left" ;;
	esac
	echo g >&7
	finish
done

# ---- a session whose undo was cut short (its first entry back already):
# the next attach undoes the rest and records ----
start
attach k $hp --functions '^step$'
kill -KILL $rec
wait $rec || :
[ "$(say R)" = "restored 1" ] || fail "R: $(tail -1 h.out)"
attach r $hp --functions '^step$'
kill -INT $rec
wait $rec || { cat r.err >&2; fail "after an undo cut short: mt-record exited $?"; }
contains r.err "undid the patches of an earlier mt-record, killed"
[ "$(say c)" = "entry same" ] || fail "after an undo cut short: step's entry not put back"
finish

# ---- mt-record dying on its own error (a write to a full disk) while
# attached: the patches are put back first ----
start
rc=0
timeout 120 mt-record --backend patch -p $hp --functions '^step$' --full >/dev/full 2>w.err ||
	rc=$?
echo "a full disk: mt-record exited $rc: $(cat w.err)"
no_sanitizer_report w.err
[ $rc -eq 3 ] || fail "a full disk: mt-record exited $rc"
contains w.err "No space left on device"
contains w.err "its patches put back"
[ "$(say c)" = "entry same" ] || fail "a full disk: step's entry was not put back"
finish

# ... or at the end of a pipe whose reader went away (it ends as killed by
# SIGPIPE, as every tool does: no atexit handler runs then); the reader
# takes the first pass's bytes and goes: mt-record sees it gone then
# (POLLERR), whether or not a later pass brings records (a thread that
# laps its ring in less than the millisecond --full leaves may give none)
start
{ rc=0; timeout 120 mt-record --backend patch -p $hp --functions '^step$' --full 2>p.err ||
	rc=$?; echo $rc >p.rc; } | head -c 1 >/dev/null
wait_for test -s p.rc || fail "mt-record did not end"
echo "a closed pipe: mt-record exited $(cat p.rc): $(cat p.err)"
no_sanitizer_report p.err
[ "$(cat p.rc)" -eq 141 ] || fail "a closed pipe: mt-record exited $(cat p.rc)"
contains p.err "its patches put back"
[ "$(say c)" = "entry same" ] || fail "a closed pipe: step's entry was not put back"
finish
