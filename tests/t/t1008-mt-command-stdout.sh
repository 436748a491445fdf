#!/bin/sh
# mt run: the traced command's standard output is mt's (mt-record's
# descriptor 3, --command-stdout 3), or mt's standard error with -o -,
# where the trace goes; the trace text still reaches the pipeline. With a
# stand-in mt-record, then the real one (sample backend).
. "$MT_TOP/tests/lib.sh"
rm -rf t1008.d && mkdir t1008.d && cd t1008.d
fixture=$MT_FIXTURES/perf-script/magic-trace-tests.txt

# the stand-in writes to descriptor 3 as the command would
cat >rec <<EOF
#!/bin/sh
echo "via 3" >&3
cat "$fixture"
EOF
chmod +x rec
MT_RECORD=$PWD/rec mt run -o s.fxt -- ./prog >o 2>e || { cat e >&2; fail "stand-in"; }
echo "via 3" >want
same_file want o
fxt-check s.fxt >check || { cat check >&2; fail "fxt-check s.fxt"; }
MT_RECORD=$PWD/rec mt run -o - -- ./prog >s2.fxt 2>e || { cat e >&2; fail "stand-in -o -"; }
contains e "via 3"
cmp s.fxt s2.fxt || fail "-o -: not the same trace"

# the real mt-record
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/stopper
run() {
	mt run --backend sample --frequency 5000 "$@"
}
run -- sh -c "echo hello; exec '$prog' -n 2000000" >out.txt 2>e ||
	{ cat e >&2; fail "mt run"; }
contains out.txt "hello"
contains out.txt "done "
[ -s trace.fxt ] || fail "no trace.fxt"
contains e "mt: wrote trace.fxt"
fxt-check trace.fxt >check || { cat check >&2; fail "fxt-check trace.fxt"; }

run -o t.fxt -- sh -c "echo out; echo err >&2; exec '$prog' -n 2000000" >o 2>e ||
	{ cat e >&2; fail "mt run -o t.fxt"; }
grep -qx out o || fail "out not in o: $(cat o)"
grep -q err o && fail "err in o: $(cat o)"
grep -qx err e || fail "err not in e: $(cat e)"
grep -qx out e && fail "out in e: $(cat e)"
grep -q "standard output goes to the standard error" e && fail "a note: $(cat e)"
contains e "mt: wrote t.fxt"

# -o -: the trace on stdout, the command's output on stderr
run -o - -- sh -c "echo out; exec '$prog' -n 2000000" >stdout.fxt 2>e ||
	{ cat e >&2; fail "mt run -o -"; }
grep -qx out e || fail "-o -: out not in e: $(cat e)"
fxt-check stdout.fxt >check || { cat check >&2; fail "fxt-check stdout.fxt"; }
