#!/bin/sh
# magic-trace's -events, -trace-kernel-only, -callgraph-mode lbr-no-stitch
# and High sampling resolution in mt-record (issue 15):
# --events: each sample of the extra event is an instant on its thread,
#   named by the event, with the sampled function; the stacks ignore it.
#   Ground truth: the kernel's own count of minor faults (getrusage) across
#   tests/progs/faults' touch_pages() equals the minor-faults instants in
#   touch_pages, in the stream and in the FXT file.
# --kernel-only (sample): every sampled frame is the kernel's; pt refuses it.
# --call-graph lbr / lbr-no-stitch, --frequency max: the perf command lines.
. "$MT_TOP/tests/lib.sh"
command -v perf >/dev/null 2>&1 || fail "perf not installed (make deps installs linux-perf)"
prog=$MT_TESTBIN/progs/faults

# ---- --events, for real ----
mt-record --backend sample --events minor-faults -o ev.txt -- "$prog" 1000 \
	>truth 2>err || { cat err >&2; fail "mt-record --events failed"; }
want=$(cat truth)
[ "$want" -ge 1000 ] || fail "faults counted $want minor faults for 1000 pages"
grep -q '^# mt: event minor-faults$' ev.txt || fail "no '# mt: event' line"
mt-script-parse ev.txt >ev.mt || fail "mt-script-parse failed"
mt-stacks -v ev.mt >ev.st 2>st.err || { cat st.err >&2; fail "mt-stacks failed"; }
mt-dump ev.st >ev.dump
got=$(grep -c 'MARK .*kind=event .*name="minor-faults" text="touch_pages"' ev.dump)
[ "$got" -eq "$want" ] ||
	fail "$got minor-faults instants in touch_pages, the kernel counted $want"
# every sample of the event is an instant, none a stack
nsamp=$(mt-dump ev.mt | grep -c 'SAMPLE .*event="minor-faults"')
nev=$(grep -c 'MARK .*kind=event' ev.dump)
[ "$nev" -eq "$nsamp" ] || fail "$nsamp samples of the event, $nev instants"
contains st.err "$nev samples of --events, written as instants"
# the instant's value is the period (1), its ip inside touch_pages
grep 'MARK .*text="touch_pages"' ev.dump | grep -qv ' value=1 ' &&
	fail "an instant's value is not the period 1: $(grep 'text="touch_pages"' ev.dump | grep -v ' value=1 ' | head -1)"
grep -q 'MARK .*kind=event .*text="touch_pages"' ev.dump || fail "no touch_pages instant"
# the same stream without the event line: its samples make stacks (the
# line is what keeps them out)
grep -v '^# mt: event ' ev.txt | mt-script-parse | mt-stacks | mt-dump >noev.dump
grep -q 'kind=event' noev.dump && fail "instants without the event line"
[ "$(span_count noev.dump touch_pages)" -gt 0 ] ||
	fail "without the event line the faults in touch_pages made no stack"
# FXT: as many zero-length page-faults slices on the thread, and JSON
mt-fxt -o ev.fxt ev.st 2>err || { cat err >&2; fail "mt-fxt failed"; }
fxt_slices ev.fxt >slices
nf=$(awk '$6 == "minor-faults" && $3 == $4' slices | wc -l)
[ "$nf" -eq "$nev" ] || fail "$nf minor-faults instants in the FXT, $nev in the stream"
mt-fxt --json ev.st >ev.json 2>err || fail "mt-fxt --json failed"
nj=$(grep -o '"name":"minor-faults","ts":[0-9.]*,"args":{"function":"touch_pages","value":1,"ip":"0x[0-9a-f]*"}' ev.json | wc -l)
[ "$nj" -eq "$want" ] || fail "$nj JSON instants in touch_pages, want $want"

# ---- --events: the command lines, and what is refused ----
mt-record --dry-run --backend sample --events branch-misses,cache-misses=7 -- /bin/true >dry 2>err ||
	fail "--dry-run --events failed: $(cat err)"
contains dry "-e cpu-clock/freq=1000,overwrite/u -e branch-misses/period=50,overwrite/u -e cache-misses/period=7,overwrite/u "
contains dry " -F comm,pid,tid,time,event,period,ip,sym,symoff,dso"
mt-record --dry-run --backend pt --events page-faults=3 -- /bin/true >dry 2>err ||
	fail "--dry-run --backend pt --events failed: $(cat err)"
contains dry "-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u -e page-faults/period=3/u -p PID "
expect_exit 2 mt-record --events sched:sched_switch -- /bin/true 2>err
contains err "mt-record: --events sched:sched_switch: 'sched:': a tracepoint or raw event syntax"
expect_exit 2 mt-record --events page-faults=0 -- /bin/true 2>err
contains err "'page-faults=0': expected a period of 1 or more"
expect_exit 2 mt-record --events 'page-faults,' -- /bin/true 2>err
contains err "expected NAME[=PERIOD],..."
mt-record --dry-run --backend uprobe --events page-faults -- /bin/true >dry 2>err ||
	fail "--dry-run --backend uprobe --events failed"
contains err "mt-record: --events does not apply to the uprobe backend"

# ---- --kernel-only ----
mt-record --backend sample --kernel-only --frequency 5000 -o k.txt -- \
	dd if=/dev/zero of=/dev/null bs=512 count=300000 2>err ||
	{ cat err >&2; fail "mt-record --kernel-only failed"; }
nk=$(grep -c ' cpu-clock' k.txt)
[ "$nk" -gt 5 ] || fail "--kernel-only: $nk samples"
awk '/^\t/ && $NF != "([kernel.kallsyms])" { bad++ } END { exit bad > 0 }' k.txt ||
	fail "--kernel-only: a frame outside the kernel: $(awk '/^\t/ && $NF != "([kernel.kallsyms])"' k.txt | head -1)"
mt-script-parse k.txt | mt-stacks | mt-dump >k.dump
grep -q 'SPAN .*kind=kernel' k.dump || fail "--kernel-only: no kernel span"
grep 'SPAN ' k.dump | grep -qv 'kind=kernel' && fail "--kernel-only: a span not of the kernel"
mt-record --dry-run --backend sample --kernel-only -- /bin/true >dry 2>&1
contains dry "-e dummy -e cpu-clock/freq=1000,overwrite/k -k mono --call-graph fp --kernel-callchains "
expect_exit 2 mt-record --dry-run --backend pt --kernel-only -- /bin/true 2>err
contains err "--kernel-only: the pt backend does not decode kernel-only traces yet"
expect_exit 2 mt-record --kernel --kernel-only -- /bin/true 2>err
contains err "--kernel and --kernel-only: choose one"

# ---- --call-graph lbr (stitched) and lbr-no-stitch; --frequency max ----
mt-record --dry-run --backend sample --call-graph lbr -- /bin/true >dry 2>&1
contains dry "--call-graph lbr "
contains dry "perf script -i DIR/perf.data --ns --stitch-lbr -F "
mt-record --dry-run --backend sample --call-graph lbr-no-stitch -- /bin/true >dry 2>&1
contains dry "--call-graph lbr "
grep -q -- '--stitch-lbr' dry && fail "lbr-no-stitch stitches"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
mt-record --dry-run --backend sample --frequency max -- /bin/true >dry 2>&1
contains dry "-e cpu-clock/freq=$max,overwrite/u "
expect_exit 2 mt-record --frequency fast -- /bin/true 2>err
contains err "--frequency fast: expected hertz, 1 to 1000000, or max"
exit 0
