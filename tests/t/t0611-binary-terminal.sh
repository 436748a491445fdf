#!/bin/sh
# Binary output is not written to a terminal (as gzip refuses): on a real
# pty (script(1)), mt-script-parse, mt-stacks, mt-fxt and mt-slice without
# -o exit 2 with one line saying how to send it elsewhere, and write nothing to the
# terminal; text (mt-fxt --json) goes to it, and -o FILE or a pipe is fine.
. "$MT_TOP/tests/lib.sh"
command -v script >/dev/null || fail "script(1) is needed (util-linux, scripts/deps.sh)"

gen-perf-script -n 200 >perf.txt
mt-script-parse perf.txt >s.mt
mt-stacks s.mt >spans.mt

# on_pty NAME CMD: run the shell command CMD with its stdout on a pty, its
# stderr in NAME.err and its exit status in NAME.rc; the pty's text in
# NAME.log (the shell is sh whatever the user's SHELL)
on_pty() {
	SHELL=/bin/sh script -qec "$2 2>$1.err; echo \$? >$1.rc" /dev/null </dev/null >"$1.log" 2>&1 ||
		fail "$1: script failed: $(cat "$1.log")"
	tr -d '\r' <"$1.log" >"$1.txt"
}

refused() { # NAME WHAT
	[ "$(cat "$1.rc")" = 2 ] || fail "$1: exit $(cat "$1.rc"), not 2: $(cat "$1.err")"
	echo "${1%%.*}: not writing $2 to a terminal: give -o FILE or a pipe" >want
	same_file want "$1.err"
	[ ! -s "$1.txt" ] || fail "$1: wrote to the terminal: $(head -c 200 "$1.txt" | od -c | head -3)"
}
on_pty mt-script-parse "mt-script-parse perf.txt"
refused mt-script-parse "an mt stream"
on_pty mt-stacks "mt-stacks s.mt"
refused mt-stacks "an mt stream"
on_pty mt-fxt "mt-fxt spans.mt"
refused mt-fxt "an FXT trace"
on_pty mt-fxt.gz "mt-fxt --gzip spans.mt"
refused mt-fxt.gz "compressed data"
mt-fxt -o t.fxt spans.mt
on_pty mt-slice "mt-slice --min-duration 1ns t.fxt"
refused mt-slice "a trace"

# text is fine on a terminal, and so is a file or a pipe
on_pty json "mt-fxt --json spans.mt"
[ "$(cat json.rc)" = 0 ] || fail "--json: exit $(cat json.rc): $(cat json.err)"
grep -q '"traceEvents"' json.txt || fail "--json: no JSON on the terminal"
on_pty file "mt-stacks -o out.mt s.mt"
[ "$(cat file.rc)" = 0 ] && [ -s out.mt ] || fail "-o FILE: exit $(cat file.rc): $(cat file.err)"
on_pty pipe "mt-stacks s.mt | wc -c >pipe.n"
[ "$(cat pipe.n)" -gt 0 ] || fail "a pipe: nothing went through it"
