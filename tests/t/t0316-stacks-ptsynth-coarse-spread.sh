#!/bin/sh
# Real perf on ptsynth --timing coarse (a TSC every 500 ns and before each
# trace start, as real PT without cycle-accurate packets): mt-stacks
# spreading equal timestamps must rebuild the truth's spans with other
# times (stacks-check --no-times), each [syscall] and [untraced] span a
# child of the frame that stopped the trace, in the order of the text, and
# inside that frame's interval as Perfetto nests spans. Every trace start
# has a time of its own, so every trace end is the last event of its
# timestamp group, and after a call in that group, with nothing left of its
# time, the [syscall] started at the next timestamp, zero-length at the end
# of the system call's wrapper (write, getpid: they return right after the
# trace starts again) and nested beside it. signal has both kinds: system
# calls, and a timer signal between two instructions. t0802 checks
# --no-spread.
# tests/run: two at a time
. "$MT_TOP/tests/lib.sh"
. "$MT_TOP/tests/ptsynth/lib.sh"
ptsynth_need signal


bad=
for p in signal; do
	out=$p
	pts_record "$p" coarse
	mt-record -i "$p.data" --text >"$p.perf" 2>"$p.perr" ||
		{ cat "$p.perr" >&2; fail "mt-record -i failed on $p"; }
	truth_spans "$p.truth" "$p.spans"
	np=$(grep -c '	\[\(syscall\|untraced\)\]$' "$p.spans")
	ne=$(group_ends "$p.perf")
	[ "$ne" -ge 10 ] || fail "$p: only $ne trace ends end their timestamp group after a call"
	mt-script-parse "$p.perf" | mt-stacks >"$p.mt" || fail "$p: mt-script-parse | mt-stacks failed"
	if stacks-check --no-times "$p.spans" "$p.mt" >"$p.report" 2>&1; then
		echo "$p (coarse, spread$reused): $np pseudo-spans ($ne ending a timestamp group after a call): $(tail -n 1 "$p.report")"
	else
		echo "$p: mt-stacks' spread spans differ from the truth:" >&2
		sed 's/^/    | /' "$p.report" | head -30 >&2
		bad="$bad $p"
	fi
	spans-check "$p.mt" >"$p.sc" 2>&1 || { cat "$p.sc" >&2; bad="$bad $p(spans-check)"; }
done
[ -z "$bad" ] || fail "spread spans differ from the truth for:$bad"
