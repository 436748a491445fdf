#!/bin/sh
# mt run, attach and decode with a stand-in mt-record that records its
# arguments and prints a fixture: the trace is what the pipeline run by
# hand writes, and fxt-check accepts it; trace.fxt by default, the previous
# one moved to trace.fxt.old; -o with .gz and -; -v shows the pipeline;
# arguments with spaces and shell characters reach mt-record unchanged; the
# stages are found beside mt first, then in PATH; --dry-run runs mt-record
# alone.
. "$MT_TOP/tests/lib.sh"
# the scratch directory is shared by every test: work in one of our own
rm -rf t1000.d && mkdir t1000.d && cd t1000.d

fixture=$MT_FIXTURES/perf-script/magic-trace-tests.txt

# recorder FILE: a stand-in mt-record that writes its arguments, one per
# line in brackets, to FILE.argv and prints the fixture
recorder() {
	cat >"$1" <<EOF
#!/bin/sh
for a in "\$@"; do printf '[%s]\n' "\$a"; done >"$PWD/$(basename "$1").argv"
cat "$fixture"
EOF
	chmod +x "$1"
}
recorder rec
MT_RECORD=$PWD/rec
export MT_RECORD

mt-script-parse "$fixture" | mt-stacks 2>/dev/null | mt-fxt >want.fxt

# run: trace.fxt by default, the same trace as the pipeline by hand
mt run -- ./prog >out 2>err
[ ! -s out ] || fail "mt run wrote on stdout: $(cat out)"
cmp want.fxt trace.fxt || fail "trace.fxt is not what the pipeline writes"
fxt-check trace.fxt >check || { cat check >&2; fail "fxt-check trace.fxt"; }
contains err "mt: wrote trace.fxt; to view it: mt view trace.fxt"
contains err "ui.perfetto.dev"
for f in .trace.fxt.*; do [ ! -e "$f" ] || fail "$f left behind"; done
[ ! -e trace.fxt.old ] || fail "trace.fxt.old without a previous trace"
printf '[--command-stdout]\n[3]\n[--]\n[./prog]\n' >want
same_file want rec.argv

# a second run moves the first trace to trace.fxt.old, a third replaces it
echo first >trace.fxt
mt run -- ./prog 2>err
contains err "moved the previous trace.fxt to trace.fxt.old"
echo first >want
same_file want trace.fxt.old
cmp want.fxt trace.fxt || fail "second trace.fxt"
echo second >trace.fxt
mt run -- ./prog 2>/dev/null
echo second >want
same_file want trace.fxt.old

# -o, in every spelling; .gz is compressed; - is the standard output
mt run -o a.fxt -- x 2>/dev/null
cmp want.fxt a.fxt || fail "-o a.fxt"
mt run -ob.fxt -- x 2>/dev/null
cmp want.fxt b.fxt || fail "-ob.fxt"
mt run --output c.fxt -- x 2>/dev/null
cmp want.fxt c.fxt || fail "--output c.fxt"
mt run --output=d.fxt -- x 2>/dev/null
cmp want.fxt d.fxt || fail "--output=d.fxt"
mt run -o 'with space.fxt' -- x 2>err
cmp want.fxt 'with space.fxt' || fail "-o 'with space.fxt'"
contains err "mt view 'with space.fxt'"
mt run -o t.fxt.gz -- x 2>/dev/null
for f in .t.fxt.gz.*; do [ ! -e "$f" ] || fail "$f left behind"; done
gunzip -c t.fxt.gz >t.fxt || fail "t.fxt.gz is not gzip"
cmp want.fxt t.fxt || fail "-o t.fxt.gz"
mt run -o - -- x >stdout.fxt 2>err
cmp want.fxt stdout.fxt || fail "-o -"
grep -q wrote err && fail "-o -: $(cat err)"
for f in ./- ./.-.*; do [ ! -e "$f" ] || fail "-o - made a file: $f"; done

# -v: the pipeline, quoted as a shell reads it, and the filters' counts
mt run -v -o v.fxt -- ./prog 'a b' >out 2>err
# (mt-fxt writes to the private temporary, its standard output)
grep -q "^mt: running: $PWD/rec --command-stdout 3 -- ./prog 'a b' | $MT_BIN/mt-script-parse -v | $MT_BIN/mt-stacks -v | $MT_BIN/mt-fxt -v --empty-ok >\.v\.fxt\.[A-Za-z0-9]\{6\}\$" err ||
	fail "-v: $(cat err)"
contains err "mt-script-parse: <stdin>: 1762 lines read"
contains err "mt-fxt: <stdout>: 978 spans"

# arguments reach mt-record unchanged: mt's own options are taken out, the
# rest keeps its order
nl='
'
mt run -v --trigger 'a b' --functions '^x$|y' -o args.fxt --backend=pt -- \
	./prog 'two words' '$HOME' '*' ';' '|' '' "it's" '\n' "x${nl}y" '-o' '-v' \
	'--' >out 2>err
cat >want <<'EOF'
[--trigger]
[a b]
[--functions]
[^x$|y]
[--backend=pt]
[--command-stdout]
[3]
[--]
[./prog]
[two words]
[$HOME]
[*]
[;]
[|]
[]
[it's]
[\n]
[x
y]
[-o]
[-v]
[--]
EOF
same_file want rec.argv
cmp want.fxt args.fxt || fail "args.fxt"

# attach: -p and everything else go to mt-record, as do words after --
mt attach -p 42,43 --kernel -o at.fxt --snapshot-size 4M -- extra 'x y' 2>/dev/null
printf '[-p]\n[42,43]\n[--kernel]\n[--snapshot-size]\n[4M]\n[--]\n[extra]\n[x y]\n' >want
same_file want rec.argv
cmp want.fxt at.fxt || fail "attach"
mt attach -p42 -o at2.fxt 2>/dev/null
printf '[-p42]\n' >want
same_file want rec.argv
mt attach --pid=7 -o at3.fxt 2>/dev/null
printf '[--pid=7]\n' >want
same_file want rec.argv
# without -p: picked with fzf (its --filter mode standing in for the
# user) among the processes, by the command line
if command -v fzf >/dev/null 2>&1; then
	cp "$(command -v sleep)" ./mt-pick-target-$$
	./mt-pick-target-$$ 30 &
	victim=$!
	# exact, not fuzzy: a long command line of some other process on the
	# machine can hold the letters of any pattern in order
	wait_for grep -q mt-pick-target "/proc/$victim/cmdline" ||
		fail "the process to pick did not start"
	FZF_DEFAULT_OPTS="--exact --filter=mt-pick-target-$$" mt attach -o at4.fxt 2>err ||
		{ kill $victim; cat err >&2; fail "attach with a picked process"; }
	kill $victim
	printf '[-p]\n[%s]\n' "$victim" >want
	same_file want rec.argv
	grep -qx "mt: attaching to $victim ./mt-pick-target-$$ 30" err ||
		fail "no 'attaching to' line: $(cat err)"
	expect_exit 2 env FZF_DEFAULT_OPTS="--exact --filter=zz-no-such-process-$$-zz" \
		mt attach -o at5.fxt >out 2>err
	contains err "give the process with -p pid (nothing was picked)"
fi

# decode: the last word is the file, given to mt-record as -i FILE
mt decode --timing -o dec.fxt 'my perf.data' 2>/dev/null
printf '[--timing]\n[-i]\n[my perf.data]\n' >want
same_file want rec.argv
cmp want.fxt dec.fxt || fail "decode"
mt decode -o dec2.fxt -- -odd.data 2>/dev/null
printf '[-i]\n[-odd.data]\n' >want
same_file want rec.argv
mt decode perf.data 2>/dev/null
printf '[-i]\n[perf.data]\n' >want
same_file want rec.argv
cmp want.fxt trace.fxt || fail "decode to trace.fxt"

# --dry-run: mt-record alone, on the standard output, no trace
rm -f trace.fxt
mt run --dry-run -- ./prog >out 2>err
cmp "$fixture" out || fail "--dry-run: not mt-record's output"
for f in trace.fxt .trace.fxt.*; do [ ! -e "$f" ] || fail "--dry-run wrote a trace: $f"; done
printf '[--dry-run]\n[--]\n[./prog]\n' >want
same_file want rec.argv

# the stages beside mt come first: a copy of the tools with its own
# mt-record, and a failing one earlier in PATH
mkdir -p side decoy
for t in mt mt-script-parse mt-stacks mt-fxt; do cp "$MT_BIN/$t" side/; done
recorder side/mt-record
printf '#!/bin/sh\necho decoy >&2\nexit 9\n' >decoy/mt-record
chmod +x decoy/mt-record
(unset MT_RECORD; PATH=$PWD/decoy:$PATH side/mt run -o side.fxt -- ./beside) 2>err ||
	{ cat err >&2; fail "mt did not use the mt-record beside it"; }
printf '[--command-stdout]\n[3]\n[--]\n[./beside]\n' >want
same_file want mt-record.argv
cmp want.fxt side.fxt || fail "side.fxt"

# then PATH: mt alone in a directory, mt-record and the filters in PATH
mkdir -p lone fake
cp "$MT_BIN/mt" lone/
recorder fake/mt-record
rm -f mt-record.argv
(unset MT_RECORD; PATH=$PWD/fake:$MT_BIN:$PATH lone/mt run -o lone.fxt -- ./inpath) 2>err ||
	{ cat err >&2; fail "mt did not find the tools in PATH"; }
printf '[--command-stdout]\n[3]\n[--]\n[./inpath]\n' >want
same_file want mt-record.argv
cmp want.fxt lone.fxt || fail "lone.fxt"

# MT_RECORD may be a name looked up in PATH
(PATH=$PWD/fake:$PATH MT_RECORD=mt-record mt run -o named.fxt -- ./named) 2>/dev/null
printf '[--command-stdout]\n[3]\n[--]\n[./named]\n' >want
same_file want mt-record.argv
