#!/bin/sh
# mt-report's command line and bad input: --help agrees with the man page;
# bad options exit 2; a truncated or corrupt stream, a truncated FXT file, a
# record of size 0 and bad gzip data exit 1 naming the file and the byte
# offset; a trace with no spans says so and exits 1; names are quoted in
# the text and escaped in the JSON; -o writes the file.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-report.1" >syn
grep -q '^mt-report ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-report | sed 's/^usage: //' >usage
same_file syn usage
mt-report --version | grep -q '^mt-report ' || fail "--version"
for bad in '--by time' '-n x' '-n -1' '--kind func' '--kind ,' '--tid 1x' \
	'--pid' '--nope' 'a b'; do
	expect_exit 2 mt-report $bad </dev/null >out 2>err
	[ -s err ] || fail "mt-report $bad: no message"
done
contains err "usage: mt-report"

cat >in.txt <<'END'
SPAN start=1.000000000 end=1.000000100 pid=1 tid=1 depth=0 kind=function name="a\x1b[31m\"b"
SPAN start=1.000000000 end=1.000000200 pid=1 tid=1 depth=0 kind=function name="\xc3\xa9t\xc3\xa9"
END
mt-asm in.txt >in.mt
mt-report in.mt >out
contains out '  a\x1b[31m\"b'
contains out '  \xc3\xa9t\xc3\xa9'
mt-report --json in.mt >j
contains j '"name":"a\u001b[31m\"b"'
contains j '"name":"\u00c3\u00a9t\u00c3\u00a9"'
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' j || fail "bad JSON"
mt-report -o r.txt in.mt
same_file out r.txt

# no spans, no input, not a trace
printf 'MARK time=1.0 pid=1 tid=1 kind=trigger\n' | mt-asm >nospan.mt
expect_exit 1 mt-report nospan.mt >out 2>err
contains err "nospan.mt: no spans"
[ ! -s out ] || fail "output with no spans"
expect_exit 1 mt-report </dev/null >out 2>err
contains err "<stdin>"
echo hello >text
expect_exit 1 mt-report text >out 2>err
contains err "text"
mt-fxt in.mt >in.fxt
head -c 8 in.fxt >nospan.fxt
expect_exit 1 mt-report nospan.fxt >out 2>err
contains err "nospan.fxt: no spans"

# truncated and corrupt
size=$(wc -c <in.mt)
head -c $((size - 5)) in.mt >cut.mt
expect_exit 1 mt-report cut.mt >out 2>err
contains err "cut.mt: byte offset 0x"
size=$(wc -c <in.fxt)
head -c $((size - 4)) in.fxt >cut.fxt
expect_exit 1 mt-report cut.fxt >out 2>err
contains err "cut.fxt: byte offset 0x"
contains err "truncated record"
# a header word of size 0 after the magic
{ head -c 8 in.fxt; printf '\000\000\000\000\000\000\000\000'; } >zero.fxt
expect_exit 1 mt-report zero.fxt >out 2>err
contains err "zero.fxt: byte offset 0x8: record of size 0"
gzip -c in.fxt | head -c 30 >cut.fxt.gz
expect_exit 1 mt-report cut.fxt.gz >out 2>err
contains err "cut.fxt.gz: gzip data ends early"
gzip -c text >text.gz
expect_exit 1 mt-report text.gz >out 2>err
contains err "text.gz: gzip data holding neither"
# a gzip'd stream is read too
gzip -c in.mt >in.mt.gz
mt-report in.mt.gz >out
mt-report in.mt >want
same_file want out
