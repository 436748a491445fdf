#!/bin/sh
# ptsynth on a Go program: goroutines on several threads, a recursion that
# grows its stack through runtime.morestack, the runtime's preemption
# signals. perf's branches must equal the truth's on every thread. The
# spans are compared and reported, not required: the truth follows the
# stack pointer, which Go's stack switches (systemstack, mcall, gogo) and
# stack copies (morestack) move between stacks, so its spans are not a
# ground truth for Go (see tests/ptsynth/README.md).
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
[ -x "$CORPUS/go" ] || { echo "skipped: no Go compiler when the corpus was built"; exit 0; }
ptsynth_need go

GOMAXPROCS=2
export GOMAXPROCS
bad=
pts_run go fine
pts_verdict go "the truth's stacks do not model Go's stack switching"
grep -q 'runtime\.morestack' go-fine.perf || fail "go: no runtime.morestack in the trace"
n=$(cut -f2 go-fine.tb | sort -u | wc -l)
[ "$n" -ge 2 ] || fail "go: only $n thread(s) traced"
