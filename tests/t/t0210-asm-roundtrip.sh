#!/bin/sh
# mt-asm is the inverse of mt-dump: the dump of mt-mkstream's stream and of
# mt-script-parse's streams of the real perf fixtures assemble back into
# streams that dump the same (string ids and offsets aside), with or without
# the offset column; every kind and flag name mt-dump prints reads back;
# omitted fields take their defaults; bad lines stop it with FILE:LINE.
. "$MT_TOP/tests/lib.sh"

# the dump without what may differ: offsets, STRING records, END's counts
norm() {
	grep -v -E '^0x[0-9a-f]+ (STRING|END) ' "$1" | cut -d' ' -f2- >"$2"
}

# roundtrip NAME: a.txt (a dump) assembles into a stream that dumps the same
roundtrip() {
	mt-asm a.txt >b.mt 2>err || { cat err >&2; fail "$1: mt-asm failed"; }
	[ ! -s err ] || fail "$1: stderr not empty: $(cat err)"
	mt-dump b.mt >b.txt || fail "$1: mt-dump of the assembled stream"
	norm a.txt a.n
	norm b.txt b.n
	same_file a.n b.n
	# the same without the offset column, from standard input
	cut -d' ' -f2- a.txt | mt-asm >c.mt
	cmp b.mt c.mt || fail "$1: without offsets: another stream"
	# a second round gives the very same bytes
	mt-asm b.txt >d.mt
	cmp b.mt d.mt || fail "$1: second round: another stream"
}

mt-mkstream >s.mt
mt-dump s.mt >a.txt
roundtrip mt-mkstream
# mkstream's "" (a string of its own, not none) stays a string
contains b.txt 'META key="perf.command" value=""'

for f in "$MT_FIXTURES"/perf-script/magic-trace-*.txt; do
	name=$(basename "$f")
	mt-script-parse "$f" >s.mt
	mt-dump s.mt >a.txt
	roundtrip "$name"
	for t in THREAD BRANCH; do
		grep -q " $t " a.txt || fail "$name: no $t record"
	done
done

# every name mt-dump prints reads back as the same value
: >names.txt
for k in none call return jcc jmp int iret syscall sysret async hwint \
	txabort vmentry vmexit 99; do
	echo "BRANCH kind=$k" >>names.txt
done
for f in - BEGIN END INTX INTRDIS INTRTOG PROBE MISS NOTTAKEN NOFLAGS 0xfe00 \
	'BEGIN|NOFLAGS|0x8000'; do
	echo "BRANCH kind=none flags=$f" >>names.txt
done
for c in decode lost 0 7; do echo "ERROR class=$c" >>names.txt; done
for k in trigger snapshot wallclock cbr power evtrace generic 0 200; do
	echo "MARK kind=$k flags=- value=5" >>names.txt
done
for k in psb ptwrite; do echo "MARK kind=$k flags=0x3 value=0xdeadbeef" >>names.txt; done
for k in function untraced syscall kernel gap interrupt 0 255; do
	echo "SPAN depth=0 kind=$k" >>names.txt
done
for f in INFERRED OPEN CLIPSTART CLIPEND 'INFERRED|OPEN|CLIPSTART|CLIPEND|0xfff0'; do
	echo "SPAN depth=-3 kind=function flags=$f" >>names.txt
done
mt-asm names.txt | mt-dump >out
n=0
while IFS= read -r line; do
	n=$((n + 1))
	got=$(sed -n "$((n + 1))p" out)
	for field in ${line#* }; do
		case " $got " in
		*" $field "*) ;;
		*) fail "names.txt:$n: '$field' dumped as: $got" ;;
		esac
	done
done <names.txt

# omitted fields: none for times, ids and offsets, 0 or - for the rest;
# short times, decimal mark values, comments, blank lines
cat >short.txt <<'EOF'
# a comment, then a blank line

BRANCH time=1.000000100 pid=1 tid=1 kind=call from=0x401010 "main"+0x10 "/bin/a" to=0x402000 "foo"+0x0 "/bin/a"
  BRANCH
THREAD
ERROR
MARK
SAMPLE
SPAN
META
THREAD pid=7 comm="a \"b\" \\ \n\t\x01\xff"
MARK time=3 kind=psb value=16
SAMPLE time=2.5 nframes=2 frames=[0x1 - -, 0x2 "x"+0x3 "y"]
SPAN start=1.1 end=1.25 depth=-2147483648
0x00000000 HEADER version=1.2
0x00000010 STRING id=1 "ignored"
UNKNOWN type=0x42 body=00ff
UNKNOWN type=0x7f len=0 body=-
0x00000685 END records=47 bytes=1669
EOF
cat >short.expect <<'EOF'
HEADER version=1.2
BRANCH time=1.000000100 pid=1 tid=1 cpu=- kind=call flags=- from=0x401010 "main"+0x10 "/bin/a" to=0x402000 "foo"+0x0 "/bin/a"
BRANCH time=- pid=- tid=- cpu=- kind=none flags=- from=0x0 - - to=0x0 - -
THREAD pid=- tid=- comm=- time=-
ERROR time=- pid=- tid=- cpu=- class=0 ip=0x0 code=0 type=0 count=0 msg=-
MARK time=- pid=- tid=- cpu=- kind=0 flags=- value=0 ip=0x0 name=- text=-
SAMPLE time=- pid=- tid=- cpu=- flags=- period=0 event=- nframes=0 frames=[]
SPAN start=- end=- pid=- tid=- depth=0 kind=0 flags=- address=0x0 name=- dso=-
META key=- value=-
THREAD pid=7 tid=- comm="a \"b\" \\ \n\t\x01\xff" time=-
MARK time=3.000000000 pid=- tid=- cpu=- kind=psb flags=- value=0x10 ip=0x0 name=- text=-
SAMPLE time=2.500000000 pid=- tid=- cpu=- flags=- period=0 event=- nframes=2 frames=[0x1 - -, 0x2 "x"+0x3 "y"]
SPAN start=1.100000000 end=1.250000000 pid=- tid=- depth=-2147483648 kind=0 flags=- address=0x0 name=- dso=-
UNKNOWN type=0x42 len=2 body=00ff
UNKNOWN type=0x7f len=0 body=-
EOF
mt-asm short.txt >s.mt
mt-dump s.mt >out
norm out out.n
same_file short.expect out.n
tail -n 1 out | grep -q ' END records=20 bytes=' || fail "bad END: $(tail -n 1 out)"

# a sample of many frames
awk 'BEGIN {
	printf "SAMPLE nframes=300 frames=["
	for (i = 1; i <= 300; i++)
		printf "%s0x%x \"f%d\"+0x%x \"/lib/x.so\"", (i > 1 ? ", " : ""), i, i, i
	print "]"
}' >many.txt
mt-asm many.txt | mt-dump >a.txt
grep -q 'nframes=300 .* 0x12c "f300"+0x12c "/lib/x.so"]$' a.txt ||
	fail "300 frames: not all kept"
roundtrip many-frames

# an empty input is an empty stream
mt-asm </dev/null | mt-dump >out
printf '0x00000000 HEADER version=1.2\n0x00000010 END records=0 bytes=16\n' >want
same_file want out

# a forged critical record: mt-asm writes it, readers refuse it
echo 'UNKNOWN type=0x80 len=1 body=00' | mt-asm >s.mt
expect_exit 1 mt-dump s.mt >out 2>err
contains err "critical"

# bad lines: exit 1, FILE:LINE and what was expected
bad() {
	printf 'BRANCH pid=1\n# ok so far\n\n%s\n' "$1" >bad.txt
	expect_exit 1 mt-asm bad.txt >/dev/null 2>err
	contains err "mt-asm: bad.txt:4: $2"
}
bad 'BRANK time=1' 'expected a record'
bad 'BRANCH time=1.x' 'BRANCH time=: expected a time'
bad 'BRANCH time=1.0000000001' 'BRANCH time=: expected a time'
bad 'BRANCH time=18446744074' 'BRANCH time=: time too large'
bad 'THREAD comm="abc' 'THREAD comm=: unterminated string'
bad 'THREAD comm="a\"' 'THREAD comm=: unterminated string'
bad 'THREAD comm="\q"' 'THREAD comm=: expected an escape'
bad 'THREAD comm="\x0"' 'THREAD comm=: expected \xHH'
bad 'THREAD comm="\x00"' 'THREAD comm=: a string cannot hold a NUL byte'
bad 'THREAD pid=4294967296' 'THREAD pid=: number too large'
bad 'THREAD tid=1 pid=1' 'THREAD: field repeated or out of order'
bad 'THREAD pid=1 pid=1' 'THREAD: field repeated or out of order'
bad 'THREAD cpu=1' 'THREAD: unknown field'
bad 'THREAD pid' 'THREAD: expected NAME=VALUE'
bad 'THREAD pid=1x' 'THREAD pid=: unexpected text after the value'
bad 'BRANCH kind=cal' 'BRANCH kind=: expected a kind name or number'
bad 'BRANCH kind=256' 'BRANCH kind=: number too large'
bad 'BRANCH flags=BEGIN|' 'BRANCH flags=: expected flag names'
bad 'BRANCH from=0x1 "a"' 'BRANCH from=: expected '"' '"' and a DSO'
bad 'SAMPLE frames=[0x1 - -' 'SAMPLE frames=: expected '"', '"' or '"']'"
bad 'SAMPLE nframes=2 frames=[0x1 - -]' 'SAMPLE: nframes=2 but 1 frames'
bad 'SPAN depth=2147483648' 'SPAN depth=: depth out of range'
bad 'UNKNOWN type=0x42 len=3 body=0102' 'UNKNOWN: len=3 but the body has 2 bytes'
bad 'UNKNOWN type=0x42 body=010' 'UNKNOWN body=: expected hex bytes'
bad 'UNKNOWN type=0' 'UNKNOWN: type 0x00 is END'
bad 'UNKNOWN body=-' 'UNKNOWN: type= is required'
bad '0xzz BRANCH' 'expected an offset'

# from standard input; usage errors
printf 'BRANCH\nnope\n' | { expect_exit 1 mt-asm >/dev/null 2>err; }
contains err "mt-asm: <stdin>:2: expected a record"
expect_exit 3 mt-asm no-such-file >/dev/null 2>err
contains err "mt-asm: no-such-file:"
expect_exit 2 mt-asm a b >/dev/null 2>err
contains err "usage: mt-asm [file]"
