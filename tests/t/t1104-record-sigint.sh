#!/bin/sh
# Ctrl+C in a terminal reaches every process of the pipeline: SIGINT sent
# to the whole process group of
#   mt-record -p PID | mt-script-parse | mt-stacks | mt-fxt > t.fxt
# still gives a complete trace: every stage exits 0, the span stream ends
# with its END record, the FXT file checks clean and holds the spans; for
# the uprobe and the sample backends.
. "$MT_TOP/tests/lib.sh"
need_uprobes
command -v perl >/dev/null 2>&1 || { echo "skip: no perl for setpgrp" >&2; exit 0; }
prog=$MT_TESTBIN/progs/stopper

"$prog" -l -u 200 >/dev/null &
pid=$!
"$prog" -l >/dev/null & # busy: for the sampler
busy=$!
wait_mapped $pid "$prog"
wait_mapped $busy "$prog"
trap 'kill $pid $busy 2>/dev/null || true' EXIT

for be in uprobe sample; do
	rm -f st st2 spans.mt t.fxt rec.err
	case $be in
	uprobe) rec="mt-record --backend uprobe --functions '^(work|outer)\$' -p $pid" ;;
	sample) rec="mt-record --backend sample --frequency 2000 -p $busy" ;;
	esac
	# a new process group, as a shell gives a pipeline in a terminal
	perl -e '$SIG{INT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV' bash -c "$rec 2>rec.err | mt-script-parse | mt-stacks -o spans.mt; echo \${PIPESTATUS[*]} >st" &
	g=$!
	wait_for grep -qs recording rec.err || fail "$be: no recording: $(cat rec.err)"
	sleep 0.5
	kill -INT -$g
	wait $g || true
	[ "$(cat st)" = "0 0 0" ] || fail "$be: exit statuses $(cat st)"
	mt-dump spans.mt >dump || fail "$be: the span stream is cut"
	[ "$(span_count dump outer)" -gt 0 ] || fail "$be: no outer span"

	: >rec.err # no "recording" from the run above
	perl -e '$SIG{INT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV' bash -c "$rec 2>rec.err | mt-script-parse | mt-stacks | mt-fxt >t.fxt; echo \${PIPESTATUS[*]} >st2" &
	g=$!
	wait_for grep -qs recording rec.err || fail "$be: no recording: $(cat rec.err)"
	sleep 0.5
	kill -INT -$g
	wait $g || true
	[ "$(cat st2)" = "0 0 0 0" ] || fail "$be: exit statuses $(cat st2)"
	fxt-check t.fxt >check || { cat check >&2; fail "$be: t.fxt does not check"; }
	contains check "problems: none"
	fxt-check --names t.fxt >names 2>/dev/null || true
done
kill -0 $pid || fail "the target died"
