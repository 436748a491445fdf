#!/bin/sh
# The dlfilter (mt-dlfilter.so, docs/perf.md 3.1) against the text path:
# for every ptsynth recording the t08NN tests make (replayed from their
# cache under make check), `perf script --dlfilter` and `mt-record -i DATA`
# (which uses it) write the stream that
# `mt-record -i DATA --text | mt-script-parse` makes of perf's text,
# record for record (mt-dump of both, byte offsets and string definitions
# aside: mt-dump prints the strings inline). Then copies of recordings
# with corrupted AUX data: the decoder errors perf prints as text must be
# in the dlfilter's stream at the same place between the branches, also
# where an error and the next branch share a timestamp. mt-record -i runs
# the filter with perf's side band (--dlarg sideband), keeping
# resolutions until perf's maps change: dlswap loads two libraries in
# turn at one address, whose calls must name each its own function.
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
C_FINE="basic cos recursion tailcall jumps threads signal exceptions exceptions-recursive templates dlswap"
C_COARSE="cos jumps threads tailcall"
# shellcheck disable=SC2086
ptsynth_need $C_FINE
DLF="$MT_BIN/../lib/mt-dlfilter.so"
[ -f "$DLF" ] || fail "$DLF was not built"
perf script --dlfilter /dev/null -i /dev/null 2>&1 | grep -q 'unknown option' &&
	{ echo "skipped: this perf has no --dlfilter"; exit 0; }

# mt-record's field set for Intel PT (mt-record/perf/perf.c, script_argv)
FIELDS=comm,pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period

# norm STREAM: mt-dump without offsets and STRING records
norm() {
	mt-dump "$1" | sed '/^0x[0-9a-f]* STRING /d; s/^0x[0-9a-f]* //'
}

# compare NAME DATA: both paths on DATA, which must give equal streams
compare() {
	mt-record -i "$2" --text >"$1.perf" 2>"$1.perr" ||
		{ cat "$1.perr" >&2; fail "mt-record -i --text failed on $1"; }
	mt-script-parse "$1.perf" >"$1.text.mt" || fail "$1: mt-script-parse failed"
	perf script -i "$2" --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
		--dlarg "$1.dl.mt" >"$1.dl.out" 2>"$1.dl.err" ||
		{ cat "$1.dl.err" >&2; fail "$1: perf script --dlfilter failed"; }
	[ ! -s "$1.dl.out" ] || { head -5 "$1.dl.out" >&2; fail "$1: perf printed text with the dlfilter"; }
	norm "$1.text.mt" >"$1.text.txt"
	norm "$1.dl.mt" >"$1.dl.txt"
	grep -q '^BRANCH ' "$1.text.txt" || fail "$1: no branches"
	if ! diff "$1.text.txt" "$1.dl.txt" >"$1.diff"; then
		head -20 "$1.diff" >&2
		fail "$1: the dlfilter's stream differs from the text path's ($(grep -c '^[<>]' "$1.diff") lines)"
	fi
	# mt-record -i decodes through the dlfilter by default
	mt-record -i "$2" >"$1.rec.mt" 2>"$1.rerr" ||
		{ cat "$1.rerr" >&2; fail "mt-record -i failed on $1"; }
	[ ! -s "$1.rerr" ] || { cat "$1.rerr" >&2; fail "mt-record -i $1: messages"; }
	norm "$1.rec.mt" >"$1.rec.txt"
	same_file "$1.dl.txt" "$1.rec.txt"
	echo "$1: $(wc -l <"$1.dl.txt") records equal ($(grep -c '^BRANCH ' "$1.dl.txt") branches, $(grep -c '^MARK ' "$1.dl.txt") marks, $(grep -c '^ERROR ' "$1.dl.txt") errors)${reused:-}"
}

for p in $C_FINE; do
	out=$p-fine
	pts_record "$p" fine
	compare "$out" "$out.data"
done
for p in $C_COARSE; do
	out=$p-coarse
	pts_record "$p" coarse
	compare "$out" "$out.data"
done
out=recursion-fine-aslr
pts_record recursion fine --aslr
compare "$out" "$out.data"
if [ -x "$CORPUS/rust" ]; then
	out=rust-fine
	pts_record rust fine
	compare "$out" "$out.data"
fi
if [ -x "$CORPUS/go" ]; then
	GOMAXPROCS=2
	export GOMAXPROCS
	out=go-fine
	pts_record go fine
	compare "$out" "$out.data"
fi

# dlswap: swap_b is called at swap_a's address, after a's maps were
# replaced; a kept resolution of that address must not outlive them
a=$(sed -n 's/^swap_a //p' dlswap-fine.log)
b=$(sed -n 's/^swap_b //p' dlswap-fine.log)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "dlswap: swap_a at '$a', swap_b at '$b': not one address"
for f in swap_a swap_b; do
	n=$(grep -c "^BRANCH .* kind=call .* to=$a \"$f\"+0x0 " dlswap-fine.rec.txt || :)
	[ "$n" -eq 3 ] || fail "dlswap: $n calls to $a named $f in mt-record -i's stream, not 3"
done
echo "dlswap: 3 calls each to swap_a and swap_b at $a, each named right"

# corrupt DATA OUT FRACTION: a copy of DATA with 64 bytes of its first
# AUX buffer overwritten at FRACTION percent of it
corrupt() {
	# "0 0x398 [0x30]: PERF_RECORD_AUXTRACE size: 0x7538 ...": the data
	# follows the record
	rec=$(perf report -D -i "$1" 2>/dev/null |
		awk '$4 == "PERF_RECORD_AUXTRACE" { print $2, $3, $6; exit }' | tr -d '[]:')
	[ -n "$rec" ] || fail "$1: no PERF_RECORD_AUXTRACE in perf report -D"
	set -- "$@" $rec
	cp "$1" "$2"
	awk 'BEGIN { for (i = 0; i < 16; i++) printf "\125\252\023\067" }' |
		dd of="$2" bs=1 seek=$(($4 + $5 + $6 * $3 / 100)) conv=notrunc 2>/dev/null ||
		fail "cannot write into $2"
}

errors=0 same_time=0
reused=
for p in cos threads; do
	for f in 20 40 60 80; do
		corrupt "$p-coarse.data" "bad-$p-$f.data" "$f"
		compare "bad-$p-$f" "bad-$p-$f.data"
		n=$(grep -c '^ERROR ' "bad-$p-$f.dl.txt" || :)
		errors=$((errors + n))
		# an error followed by a branch of the same time
		s=$(awk '/^ERROR / { t = $2; next } /^BRANCH / && t != "" { if ($2 == t) c++; t = "" } END { print c + 0 }' \
			"bad-$p-$f.dl.txt")
		same_time=$((same_time + s))
	done
done
[ "$errors" -ge 8 ] || fail "only $errors decoder errors in the corrupted copies"
[ "$same_time" -ge 1 ] || fail "no decoder error shares its time with the next branch"
echo "corrupted copies: $errors decoder errors in place, $same_time at the time of the next branch"

# what the filter does not write, it refuses (perf exits 255): samples of
# other events (instructions), and no --dlarg
set +e
perf script -i cos-coarse.data --ns --itrace=bei -F "$FIELDS" --dlfilter "$DLF" \
	--dlarg insn.mt >insn.out 2>insn.err
rc=$?
perf script -i cos-coarse.data --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
	>noarg.out 2>noarg.err
rc2=$?
set -e
[ "$rc" -ne 0 ] || fail "samples of instructions were dropped silently"
contains insn.err "mt-dlfilter: samples of event 'instructions:u' are not handled"
[ "$rc2" -ne 0 ] || fail "no --dlarg accepted"
contains noarg.err "mt-dlfilter: usage: perf script --dlfilter mt-dlfilter.so --dlarg PATH|fd=N [--dlarg sideband]"

# --dlarg fd=1: the stream on perf's stdout, which the filter's own text
# handling does not touch
perf script -i bad-cos-80.data --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
	--dlarg fd=1 2>fd1.err >fd1.mt || { cat fd1.err >&2; fail "--dlarg fd=1 failed"; }
norm fd1.mt >fd1.txt
same_file bad-cos-80.text.txt fd1.txt
# more text between two samples than stdout's buffer holds (text-buffer=
# makes it small): perf flushes it to fd 1, the filter's memfd, where the
# filter finds it in its place; with the side band too (hundreds of lines
# before the first sample)
for p in bad-cos-80 bad-threads-40; do
	perf script -i $p.data --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
		--dlarg $p.small.mt --dlarg text-buffer=100 >$p.small.out 2>$p.small.err ||
		{ cat $p.small.err >&2; fail "$p: text past stdout's buffer: perf script failed"; }
	[ ! -s $p.small.out ] || fail "$p: text past stdout's buffer reached perf's stdout"
	norm $p.small.mt >$p.small.txt
	same_file $p.text.txt $p.small.txt
	perf script -i $p.data --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
		--dlarg $p.sb.mt --dlarg text-buffer=100 --dlarg sideband \
		--show-mmap-events --show-task-events >$p.sb.out 2>$p.sb.err ||
		{ cat $p.sb.err >&2; fail "$p: side band past stdout's buffer: perf script failed"; }
	norm $p.sb.mt >$p.sb.txt
	same_file $p.text.txt $p.sb.txt
done
echo "text past a 100-byte buffer: in place"
# without --dlarg sideband, side-band lines are not the filter's to drop
set +e
perf script -i cos-coarse.data --ns --itrace=bep -F "$FIELDS" --dlfilter "$DLF" \
	--dlarg nosb.mt --show-mmap-events >nosb.out 2>nosb.err
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "side-band lines without --dlarg sideband were dropped"
contains nosb.err "mt-dlfilter: perf printed a line the dlfilter cannot place in the stream"
expect_exit 1 mt-dump nosb.mt >/dev/null 2>&1
