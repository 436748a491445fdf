#!/bin/sh
# mt-slice's command line: --help agrees with the man page; bad times and
# conflicting options are usage errors; FXT input passes unchanged with no
# options (tests/t/t0502 for the rest); a branch stream
# windowed before mt-stacks keeps the events inside, like perf script
# --time, and mt-stacks infers the frames already open.
. "$MT_TOP/tests/lib.sh"

synopsis "$MT_TOP/docs/mt-slice.1" >syn
grep -q '^mt-slice ' syn || fail "no SYNOPSIS in the man page"
help_usage mt-slice | sed 's/^usage: //' >usage
same_file syn usage
expect_exit 2 mt-slice --from 2 </dev/null >out 2>err
contains err "--from 2: syntax error"
expect_exit 2 mt-slice --to 5ms --duration 1ms </dev/null >out 2>err
expect_exit 2 mt-slice --from 5ms --to 1ms </dev/null >out 2>err
contains err "--to is before --from"

gen-perf-script --lines 5000 --seed 3 | mt-script-parse >branches.mt
mt-stacks branches.mt | mt-fxt >t.fxt
mt-slice t.fxt >out
cmp t.fxt out || fail "FXT input changed by mt-slice without options"

# a window on branches: every event kept is inside it, none outside lost
base=$(mt-dump branches.mt | grep -m1 ' BRANCH ' | sed 's/.* time=\([0-9.]*\) .*/\1/' | tr -d .)
mt-slice --from 2us --to 5us branches.mt >w.mt
mt-dump w.mt | grep ' BRANCH ' | sed 's/.* time=\([0-9.]*\) .*/\1/' | tr -d . >times
lo=$(($base + 2000)); hi=$(($base + 5000))
awk -v lo="$lo" -v hi="$hi" '$1 + 0 < lo || $1 + 0 >= hi { bad++ } END { exit bad > 0 }' times ||
	fail "events outside the window were kept"
inside=$(mt-dump branches.mt | grep ' BRANCH ' | sed 's/.* time=\([0-9.]*\) .*/\1/' | tr -d . |
	awk -v lo="$lo" -v hi="$hi" '$1 + 0 >= lo && $1 + 0 < hi' | wc -l)
[ "$inside" -eq "$(wc -l <times)" ] || fail "$inside events inside, $(wc -l <times) kept"
[ "$inside" -gt 0 ] || fail "empty window"
mt-stacks w.mt >ws.mt 2>/dev/null
spans-check ws.mt >check || { cat check >&2; fail "stacks of a window: spans-check"; }
mt-dump ws.mt | grep -q 'flags=INFERRED' || fail "no frame inferred as open at the window's start"
