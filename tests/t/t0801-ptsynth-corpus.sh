#!/bin/sh
# ptsynth on the C corpus (tests/ptsynth/corpus), exact timing (a TSC
# before every TNT and TIP): perf's branches must equal the truth's, and
# perf script | mt-script-parse | mt-stacks --no-spread must rebuild the
# truth's call spans (stacks-check), except where the known limits below
# say why not.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need cos recursion tailcall jumps threads signal

# known limits: program and reason (none today; add "NAME) echo REASON ;;")
limit() {
	case $1 in
	esac
}

bad=
for p in cos recursion tailcall jumps threads signal; do
	pts_run "$p" fine
	pts_verdict "$p" "$(limit "$p")"
done
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"
# the timer's signal came between two instructions (FUP, TIP.PGD)
grep -q '	tr end async$' signal-fine.pb || fail "signal: no asynchronous trace end"
# the threads really ran as threads: three tids, each with its own trace
n=$(cut -f2 threads-fine.tb | sort -u | wc -l)
[ "$n" -eq 3 ] || fail "threads: $n threads in perf's branches, expected 3"
