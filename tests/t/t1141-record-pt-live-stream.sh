#!/bin/sh
# mt-record's pt backend, recording (not -i): the snapshots it decodes go
# through the dlfilter and come out as one mt stream (issue 16), the same
# records the text path gives through mt-script-parse, "# mt:" lines as
# their MARKs. This machine has no Intel PT: in a mount namespace of its
# own, an overlay on /sys/bus/event_source/devices adds an intel_pt
# directory, and perf record is played by tests/fake-perf-record (the
# control protocol, SIGUSR2 switches), which writes ptsynth's recordings
# as its snapshots; perf script is the real one.
#  - one snapshot at the command's exit: the stream is, record for record,
#    `mt-record -i` of the same perf.data; with --text, its text;
#  - --trigger --repeat 0, three hits, then the exit: three snapshots (the
#    files A A B), one stream equal to the text path's through
#    mt-script-parse (a snapshot's records at or before the last one's
#    end left out, as in the text; threads named once); it runs through
#    mt-stacks and mt-fxt;
#  - -o DIR/: each snapshot a whole stream of its own, snapshot-NNN.mt,
#    numbered after the .txt and .mt files there;
#  - a snapshot perf script cannot read (a cut perf.data: perf dies of
#    SIGBUS, saying nothing): exit 3, how perf ended said, -o FILE left
#    as it was.
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need cos recursion
[ "$(id -u)" -eq 0 ] || { echo "skip: mount namespaces need root"; exit 0; }
need_uprobes
perf script --dlfilter /dev/null -i /dev/null 2>&1 | grep -q 'unknown option' &&
	{ echo "skipped: this perf has no --dlfilter"; exit 0; }

out=cos-fine
pts_record cos fine
A=$PWD/cos-fine.data
out=recursion-fine
pts_record recursion fine
# ptsynth's times all begin at 1000 s: B is moved 0.7 ms later (the
# TIME_ZERO of its AUXTRACE_INFO, priv[3]), so that it begins inside A
# and ends after it, as overlapping snapshots do
perl -e 'local $/; open my $f, "<", $ARGV[0] or die; binmode $f; my $d = <$f>;
	my $p = pack("VvvVV", 70, 0, 8 + 8 + 17 * 8, 1, 0); my $i = index($d, $p);
	die "no AUXTRACE_INFO\n" if $i < 0; substr($d, $i + length($p) + 24, 8) = pack("Q<", 700000);
	open my $o, ">", $ARGV[1] or die; binmode $o; print $o $d' recursion-fine.data later.data ||
	fail "cannot move recursion-fine.data"
B=$PWD/later.data

cat >inns.sh <<'S'
mkdir -p ov && mount -t tmpfs none ov && mkdir -p ov/u/intel_pt/caps ov/w &&
	echo 1 >ov/u/intel_pt/caps/psb_cyc &&
	mount -t overlay overlay -o "lowerdir=/sys/bus/event_source/devices,upperdir=$PWD/ov/u,workdir=$PWD/ov/w" \
		/sys/bus/event_source/devices || exit 77
exec "$@"
S
# inpt CMD...: CMD where /sys says there is Intel PT
inpt() {
	unshare -m sh inns.sh "$@"
}
inpt true || { [ $? -eq 77 ] && { echo "skipped: no overlay mount here"; exit 0; }; fail "unshare"; }
MT_PERF=$MT_TOP/tests/fake-perf-record
FAKE_PERF_LOG=$PWD/perf.log
export MT_PERF FAKE_PERF_LOG FAKE_PERF_DATA

# norm STREAM: mt-dump without offsets, STRING records (and so END's
# counts), and the times and threads of trigger and snapshot marks (when
# the hits came)
norm() {
	mt-dump "$1" | sed -E '/^0x[0-9a-f]* STRING /d; s/^0x[0-9a-f]* //; s/^END .*/END/;
		/ kind=(snapshot|trigger) /s/time=[^ ]* pid=[^ ]* tid=[^ ]*/time=T pid=P tid=P/'
}
is_stream() {
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211MTS' ] ||
		fail "$1 is not an mt stream: $(head -c 60 "$1" | od -c | head -2)"
}

# one snapshot, at the exit
FAKE_PERF_DATA=$A
inpt mt-record --backend pt -- true >one.mt 2>one.err || { cat one.err >&2; fail "mt-record --backend pt failed"; }
grep -q -- '--snapshot=e' perf.log || fail "perf record was not run: $(cat perf.log)"
is_stream one.mt
mt-record -i "$A" >want.mt 2>/dev/null || fail "mt-record -i failed"
norm one.mt >one.txt
norm want.mt >want.txt
grep -q '^BRANCH ' one.txt || fail "no branch in the stream"
same_file want.txt one.txt
inpt mt-record --backend pt --text -- true >one.perf 2>one.err || { cat one.err >&2; fail "--text failed"; }
mt-record -i "$A" --text >want.perf 2>/dev/null
cmp want.perf one.perf || fail "--text: not the text of mt-record -i --text"
# -v shows the dlfilter; no line on stderr otherwise but mt-record's own
inpt mt-record --backend pt -v -- true 2>v.err >/dev/null
contains v.err "--dlfilter"

# a trigger hit three times, then the exit: three snapshots A A B
FAKE_PERF_DATA=$A:$A:$B
prog=$MT_TESTBIN/progs/marks
inpt mt-record --backend pt --trigger mark --repeat 0 -- "$prog" -k 3 -c 10 >rep.mt 2>rep.err ||
	{ cat rep.err >&2; fail "--repeat 0 failed"; }
[ "$(grep -c 'trigger mark hit by' rep.err)" -eq 3 ] || fail "hits: $(cat rep.err)"
is_stream rep.mt
inpt mt-record --backend pt --trigger mark --repeat 0 --text -- "$prog" -k 3 -c 10 >rep.perf 2>rep.err ||
	{ cat rep.err >&2; fail "--repeat 0 --text failed"; }
mt-script-parse rep.perf >rep.text.mt || fail "mt-script-parse of the text"
norm rep.mt >rep.txt
norm rep.text.mt >rep.text.txt
[ "$(grep -c 'kind=snapshot' rep.txt)" -eq 3 ] || fail "not three snapshots: $(grep kind=snapshot rep.txt)"
[ "$(grep -c 'kind=trigger' rep.txt)" -eq 3 ] || fail "not three trigger marks"
if ! diff rep.text.txt rep.txt >rep.diff; then
	head -20 rep.diff >&2
	fail "the stream differs from the text path's ($(grep -c '^[<>]' rep.diff) lines)"
fi
# A twice: the second copy is left out whole; of B, what comes after A
mt-record -i "$B" 2>/dev/null | mt-dump >b.dump
last=$(awk '/^BRANCH / { t = $2 } END { sub("time=", "", t); print t }' want.txt)
more=$(awk -v last="$last" '/ BRANCH / { t = $3; sub("time=", "", t); if (t > last) n++ } END { print n + 0 }' b.dump)
[ "$more" -gt 0 ] && [ "$more" -lt "$(grep -c ' BRANCH ' b.dump)" ] || fail "B does not overlap A's end ($more)"
[ "$(grep -c '^BRANCH ' rep.txt)" -eq "$(($(grep -c '^BRANCH ' want.txt) + more))" ] ||
	fail "branches: $(grep -c '^BRANCH ' rep.txt), not A's and the $more of B after A"
[ "$(grep -c '^THREAD ' rep.txt)" -eq "$(grep -c '^THREAD ' rep.text.txt)" ] || fail "THREAD records"
mt-script-parse rep.mt | mt-stacks | mt-fxt -o rep.fxt || fail "the pipeline on the stream"
fxt-check rep.fxt >report 2>&1 || { cat report >&2; fail "fxt-check"; }

# -o DIR/: a stream each
inpt mt-record --backend pt --trigger mark --repeat 0 -o snaps/ -- "$prog" -k 3 -c 10 2>dir.err ||
	{ cat dir.err >&2; fail "-o snaps/ failed"; }
[ "$(ls snaps | wc -l)" -eq 3 ] || fail "in snaps/: $(ls snaps)"
for f in snaps/*; do
	is_stream "$f"
	norm "$f" | grep -v 'kind=snapshot' >"$f.norm"
done
[ "$(ls snaps/*.mt | wc -l)" -eq 3 ] || fail "not three snapshot-NNN.mt: $(ls snaps)"
same_file snaps/snapshot-000.mt.norm snaps/snapshot-001.mt.norm
grep -q '^BRANCH ' snaps/snapshot-002.mt.norm || fail "snapshot 2: no branch"
# a text snapshot already there takes its number: the next run goes on
touch snaps/snapshot-003.txt
inpt mt-record --backend pt --trigger mark --repeat 0 -o snaps/ -- "$prog" -k 1 -c 10 2>dir.err ||
	{ cat dir.err >&2; fail "-o snaps/ again failed"; }
[ -s snaps/snapshot-004.mt ] && [ ! -e snaps/snapshot-003.mt ] || fail "the next stream: $(ls snaps)"
# perf script dies on the snapshot
head -c 150000 "$A" >cut.data
FAKE_PERF_DATA=$PWD/cut.data
echo keep >keep.out
expect_exit 3 inpt mt-record --backend pt -o keep.out -- true 2>cut.err
contains cut.err "perf script failed on "
grep -q -e "killed by signal" -e "exit status" cut.err || fail "how perf ended is not said: $(cat cut.err)"
if grep -q "messages are above" cut.err && ! grep -v '^mt-record' cut.err | grep -q .; then
	fail "'its messages are above' with none above: $(cat cut.err)"
fi
echo keep >want.keep
same_file want.keep keep.out
echo "one snapshot: $(grep -c '^BRANCH ' one.txt) branches; --repeat: $(grep -c '^BRANCH ' rep.txt)"
