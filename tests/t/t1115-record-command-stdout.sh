#!/bin/sh
# mt-record's command keeps mt-record's standard output with -o FILE (and
# -o DIR/), gets --command-stdout's descriptor, and without either writes
# to the standard error, said in one line when it starts: the trace text
# never mixes with what the command prints. --command-stdout's errors.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
cmd='echo out; echo err >&2'
note="mt-record: the command's standard output goes to the standard error (the trace text is on the standard output; use -o FILE)"

# -o FILE: the command's output where mt-record's stdout was
mt-record --backend sample -o t.txt -- sh -c "$cmd" >o 2>e || { cat e >&2; fail "-o t.txt"; }
echo out >want
same_file want o
contains e "err"
contains t.txt "# mt: wallclock "
grep -qx out t.txt && fail "-o t.txt: the command's output in the trace text"
grep -qF "$note" e && fail "-o t.txt: $(cat e)"

# without -o: the trace text alone on stdout, the command's on stderr,
# said once
mt-record --backend sample -- sh -c "$cmd" >s.txt 2>e || { cat e >&2; fail "no -o"; }
contains s.txt "# mt: wallclock "
grep -qx out s.txt && fail "no -o: the command's output in the trace text"
grep -qx out e || fail "no -o: the command's output not on stderr: $(cat e)"
[ "$(grep -cxF "$note" e)" -eq 1 ] || fail "no -o: not one note: $(cat e)"

# --command-stdout FD: that descriptor, with or without -o
mt-record --backend sample --command-stdout 5 -- sh -c "$cmd" >s.txt 2>e 5>c.txt ||
	{ cat e >&2; fail "--command-stdout 5"; }
same_file want c.txt
contains s.txt "# mt: wallclock "
grep -qx out s.txt && fail "--command-stdout: the command's output in the trace text"
grep -qF "$note" e && fail "--command-stdout: $(cat e)"
mt-record --backend sample -o t.txt --command-stdout 5 -- sh -c "$cmd" >o 2>e 5>c.txt ||
	{ cat e >&2; fail "-o t.txt --command-stdout 5"; }
same_file want c.txt
[ ! -s o ] || fail "-o t.txt --command-stdout 5: stdout: $(cat o)"

# no note without a command, nor for --dry-run
sleep 30 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
mt-record --dry-run --backend sample -- sh -c "$cmd" >o 2>e
grep -qF "$note" e && fail "--dry-run: $(cat e)"

# errors: a usage error, nothing run
expect_exit 2 mt-record --command-stdout x -- true >o 2>e
contains e "mt-record: --command-stdout x: expected a descriptor number, as 3"
expect_exit 2 mt-record --command-stdout 9 -- true >o 2>e 9>&-
contains e "mt-record: --command-stdout 9: not an open descriptor"
expect_exit 2 mt-record --command-stdout 1 -p "$pid" >o 2>e
contains e "mt-record: --command-stdout needs -- COMMAND"
[ ! -s o ] || fail "errors: stdout: $(cat o)"
