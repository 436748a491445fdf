#!/bin/sh
# ptsynth --timing coarse: a TSC only every 500 ns of program time (and
# before each trace start), so that several branches share a timestamp, as
# with real Intel PT. perf's branches and their times must still equal the
# truth's, and mt-stacks --no-spread must rebuild the truth's spans. Also
# one run with ASLR on (--aslr).
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need cos jumps threads tailcall recursion

bad=
for p in cos jumps threads tailcall; do
	pts_run "$p" coarse
	pts_verdict "$p" ""
	b=$(wc -l <"$p-coarse.tb")
	t=$(cut -f3 "$p-coarse.tb" | sort -u | wc -l)
	[ $((t * 3)) -lt "$b" ] ||
		fail "$p: $t distinct times for $b branches: timing is not coarse"
done
PTS_TAG=aslr
pts_run recursion fine --aslr
pts_verdict recursion ""
[ -z "$bad" ] || fail "spans differ from the truth for:$bad"
