#!/bin/sh
# ptsynth on a Go program: goroutines on several threads, parked and
# resumed (often on another thread), a recursion that grows its stack
# through runtime.morestack (the stack is copied), a panic recovered in a
# deferred function, the runtime's preemption signals. perf's branches
# must equal the truth's on every thread, and the pipeline's spans the
# truth's spans, exactly (a goroutine's run on a thread is a segment of
# its own: tests/ptsynth/README.md, "Go").
#
# Known limit, counted, not compared: the frames of a resumed goroutine
# that its run never returns into (the truth's H lines). They are on the
# thread's stack, but no branch of the run comes from or goes to them, so
# no trace of branches can show them.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
[ -x "$CORPUS/go" ] || { echo "skipped: no Go compiler when the corpus was built"; exit 0; }
ptsynth_need go

GOMAXPROCS=2
export GOMAXPROCS
bad=
pts_run go fine
pts_verdict go ""
echo "    known limit: $(grep -c '^H' go-fine.truth) frames of resumed goroutines never shown by their runs (H lines, not in the branch stream)"
sed -n 's/^# go: /    truth: /p' go-fine.truth
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"

grep -q 'runtime\.morestack' go-fine.perf || fail "go: no runtime.morestack in the trace"
grep -q '=> *[0-9a-f]* runtime\.recovery+0x0 ' go-fine.perf || fail "go: no runtime.recovery in the trace"
n=$(cut -f2 go-fine.tb | sort -u | wc -l)
[ "$n" -ge 2 ] || fail "go: only $n thread(s) traced"
# the truth followed goroutines and stack copies
grep -q '^# go: [1-9][0-9]* goroutine runs .*, [1-9][0-9]* stack copies, 0 stack pointers on no known stack$' go-fine.truth ||
	fail "go: the truth saw no goroutine runs or stack copies: $(grep '^# go' go-fine.truth)"
