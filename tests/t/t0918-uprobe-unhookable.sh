#!/bin/sh
# A return probe on a function not entered by a call replaces a word that
# is no return address: on _start, the program's argc (outer -n 5 then
# ran its default 300 iterations). The engine probes the entry point (and
# the other functions of common/unhookable.h) without a return probe and
# says so; the program computes what it does untraced, under uprobe-rec
# and mt-record's uprobe backend, whose stream says _start is entry-only
# (its call an instant, not a frame that never ends).
. "$MT_TOP/tests/lib.sh"
need_uprobes
cp "$MT_TESTBIN/progs/outer" ./outer
said="got no return probe (it would change what the program does): only their calls are recorded"

uprobe-rec --functions '^(_start|outer)$' -- ./outer -n 5 >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
contains err "$said"
n=$(grep -c ' probe_outer:outer: ' lines)
[ "$n" -eq 5 ] || fail "uprobe-rec: $n calls of outer, not the 5 of outer -n 5"
[ "$(grep -c ' probe_outer:_start: ' lines)" -eq 1 ] || fail "uprobe-rec: _start's call not recorded once"
grep -q '_start__return' lines && fail "uprobe-rec: a return probe on _start"

mt-record --backend uprobe --functions '^(_start|outer)$' -o rec.mt -- ./outer -n 5 2>err ||
	{ cat err >&2; fail "mt-record failed"; }
contains err "$said"
mt-dump rec.mt >records
contains records 'name="entry-only" text="_start"'
mt-stacks rec.mt | mt-dump - >dump
n=$(grep -c ' SPAN .* name="outer"' dump)
[ "$n" -eq 5 ] || fail "mt-record: $n spans of outer, not 5"
# _start: an instant
grep ' SPAN .* name="_start"' dump | awk '{ s = $3; e = $4; sub(/start=/, "", s)
	sub(/end=/, "", e); if (s != e) bad = 1; n++ } END { exit bad || n != 1 }' ||
	fail "_start: not one instant: $(grep ' SPAN .*_start' dump)"
