#!/bin/sh
# When a stage of mt run fails, mt names it, exits with its status and
# writes no trace: no trace.fxt, no temporary file, an existing trace and
# its .old untouched. A writer killed by SIGPIPE because its reader failed
# is not blamed; a stage killed by a signal gives 128+n. An output that
# cannot be written fails before mt-record runs. A command that is not
# executable, a directory or not found: mt-record's message, its status 1.
# mt-fxt's own "the trace is empty" is not said on top of mt-record's failure.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1001.d && mkdir t1001.d && cd t1001.d

fixture=$MT_FIXTURES/perf-script/magic-trace-tests.txt
MT_RECORD=$PWD/rec
export MT_RECORD

# stand_in BODY: the stand-in mt-record runs the shell text BODY, after
# noting that it ran
stand_in() {
	printf '#!/bin/sh\n: >"%s/ran"\n%s\n' "$PWD" "$1" >rec
	chmod +x rec
	rm -f ran
}

# no_trace: neither a trace nor a temporary file
no_trace() {
	for f in trace.fxt trace.fxt.old .trace.fxt.*; do
		[ ! -e "$f" ] || fail "$f exists"
	done
}

# mt-record fails: its status, its name
stand_in 'echo "mt-record: no such process" >&2; exit 1'
expect_exit 1 mt run -- ./prog >out 2>err
contains err "mt-record: no such process"
contains err "mt: mt-record failed with exit status 1; no trace written"
# one message says what happened: mt-fxt, given nothing, says nothing
grep -q 'mt-fxt' err && fail "mt-fxt spoke after mt-record failed: $(cat err)"
[ "$(wc -l <err)" -eq 2 ] || fail "more than two lines: $(cat err)"
no_trace
stand_in 'echo "mt-record: bad option" >&2; exit 2'
expect_exit 2 mt attach -p 1 --bogus >out 2>err
contains err "mt: mt-record failed with exit status 2; no trace written"
no_trace

# ...after printing part of a trace
stand_in "head -n 500 '$fixture'; exit 3"
expect_exit 3 mt run -- ./prog >out 2>err
contains err "mt: mt-record failed with exit status 3; no trace written"
no_trace

# a filter fails on what mt-record printed; mt-record, writing on, dies
# of SIGPIPE and is not blamed
stand_in 'echo garbage; exec yes "more garbage"'
expect_exit 1 mt run -- ./prog >out 2>err
contains err "mt-script-parse: <stdin>:1: not perf script output"
contains err "mt: mt-script-parse failed with exit status 1; no trace written"
grep -q 'mt: mt-record' err && fail "mt-record blamed: $(cat err)"
no_trace

# a stage killed by a signal
stand_in 'kill -TERM $$'
expect_exit 143 mt run -- ./prog >out 2>err
contains err "mt: mt-record was killed by signal 15 (Terminated); no trace written"
no_trace

# an existing trace and its .old stay as they were
echo old >trace.fxt
echo older >trace.fxt.old
stand_in 'exit 1'
expect_exit 1 mt run -- ./prog >out 2>err
echo old >want
same_file want trace.fxt
echo older >want
same_file want trace.fxt.old
for f in .trace.fxt.*; do [ ! -e "$f" ] || fail "$f left behind"; done
rm -f trace.fxt trace.fxt.old

# the same with -o FILE.gz
stand_in 'exit 1'
expect_exit 1 mt run -o t.fxt.gz -- ./prog >out 2>err
for f in t.fxt.gz .t.fxt.gz.*; do [ ! -e "$f" ] || fail "-o t.fxt.gz: a file left: $f"; done

# an output that cannot be written: mt-record never runs
stand_in "cat '$fixture'"
expect_exit 3 mt run -o no-such-dir/t.fxt -- ./prog >out 2>err
contains err "mt: no-such-dir/t.fxt: cannot create a temporary file in no-such-dir/: No such file or directory"
[ ! -e ran ] || fail "mt-record ran though the output cannot be written"
mkdir adir
expect_exit 3 mt run -o adir -- ./prog >out 2>err
contains err "mt: adir: is a directory"
[ ! -e ran ] || fail "mt-record ran though the output is a directory"

# a stage that cannot be found
expect_exit 3 env MT_RECORD="$PWD/no-such-recorder" mt run -- ./prog >out 2>err
contains err "MT_RECORD=$PWD/no-such-recorder: not an executable file"
expect_exit 3 env MT_RECORD=no-such-recorder-mt mt run -- ./prog >out 2>err
contains err "MT_RECORD=no-such-recorder-mt: not found in PATH"
mkdir lone
cp "$MT_BIN/mt" lone/
expect_exit 3 env -u MT_RECORD PATH="$PWD/lone:/usr/bin:/bin" lone/mt run -- ./prog >out 2>err
contains err "mt: mt-record: not found in $PWD/lone nor in PATH"
no_trace

# the real mt-record on a command it cannot run: its message, its status
printf 'not a program\n' >plain
for c in "$PWD/plain:not executable" "$PWD/adir:is a directory" \
	 "./no-such-command:command not found"; do
	expect_exit 1 env -u MT_RECORD mt run --backend sample -- "${c%%:*}" >out 2>err
	contains err "mt-record: ${c%%:*}: ${c#*:}"
	contains err "mt: mt-record failed with exit status 1; no trace written"
	no_trace
done
