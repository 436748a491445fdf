#!/bin/sh
# uprobe engine: a snapshot ring smaller than the recording (--ring 4000:
# 100 events of 40 bytes per CPU ring) keeps only the newest events: with
# the program (and the recorder) on one CPU, its last 100 events exactly (the same sequence as
# the tail of a full recording), which still nest properly.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }
# a copy of its own: the probes fire in every process running the file, and
# another's events (a test run beside this one) would take room in the ring
cp "$MT_TESTBIN/progs/outer" ./outer
outer=$PWD/outer
pin=
command -v taskset >/dev/null && pin="taskset -c $(first_cpu)"

# event names in order, per thread, without times and addresses
names() {
	sed 's/.*: *\(probe_[a-z_:]*\): .*/\1/' "$1"
}

$pin uprobe-rec --functions '^(work|outer)$' -- "$outer" >full 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
[ "$(wc -l <full)" -eq 1800 ] || fail "full recording: $(wc -l <full) lines"
$pin uprobe-rec --ring 4000 --functions '^(work|outer)$' -- "$outer" >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec --ring 4000 failed"; }
contains err "1800 events"
n=$(wc -l <lines)
if [ -n "$pin" ]; then
	[ "$n" -eq 100 ] || fail "$n lines, expected the last 100"
	names full | tail -n 100 >want
	names lines >got
	same_file want got
else
	rings=$(sed -n 's/.* \([0-9]*\) rings$/\1/p' err)
	[ "$n" -gt 0 ] && [ "$n" -le $((100 * rings)) ] || fail "$n lines for $rings rings"
	names full | tail -n "$n" >want
	names lines >got
	same_file want got
fi
tail -n 1 lines | grep -q 'probe_outer:outer__return:' || fail "the last event is not outer's return"

mt-script-parse lines | mt-stacks >spans.mt 2>stacks.err
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt >dump
# whole outer spans hold two work spans each, one level deeper
awk '
function field(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
/ SPAN / && /kind=function/ && !/INFERRED/ {
	name = field("name"); s = field("start") + 0; e = field("end") + 0; d = field("depth") + 0
	if (name == "\"outer\"") { no++; os[no] = s; oe[no] = e; od[no] = d }
	if (name == "\"work\"") { nw++; ws[nw] = s; we[nw] = e; wd[nw] = d }
}
END {
	if (no < 10) { print no " whole outer spans" > "/dev/stderr"; exit 1 }
	for (j = 1; j <= no; j++) {
		k = 0
		for (i = 1; i <= nw; i++)
			if (os[j] <= ws[i] && we[i] <= oe[j] && wd[i] == od[j] + 1) k++
		if (k != 2) { print "outer span " j " holds " k " work spans" > "/dev/stderr"; exit 1 }
	}
}' dump || fail "work spans do not nest in outer spans"
