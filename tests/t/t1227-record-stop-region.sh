#!/bin/sh
# The stop indicator's arguments (issue 30), as magic-trace reads them: a
# C program using include/magic_trace.h handles 40 requests, each from
# magic_trace_mark_start() to magic_trace_take_snapshot_with_arg(request
# number), three of them 20 ms long, the rest 0.3 ms, and prints
# CLOCK_MONOTONIC read before and after each of the two calls. With the
# patch backend and `--trigger .`:
# - the snapshot (the first request's) has a region MARK: from the time
#   the program passed to the hit, the value its number, its length
#   between the least and the most the program's clock reads allow (the
#   hit after the last read before the call, before the one after it;
#   2 us and 0.1% for the TSC's conversion), and within 1% of what the
#   program measured; mt-fxt makes it magic-trace's "hit
#   magic_trace_stop_indicator";
# - with --slower-than 10ms --repeat 0, exactly the three slow requests
#   are snapshots (magic-trace's Min_duration without code), each ending
#   at its hit, its region and trigger MARK the request's length;
# - with the uprobe backend (root), the same region from the uprobe's
#   registers, between the program's reads (its trap, some us, makes a
#   0.3 ms region more than 1% longer); with the sample backend, as a
#   "# mt: region" line among perf's.
# A machine without an invariant TSC (a virtual CPU that hides it) has no
# clock to put the passed TSC on: the regions' start is then unknown
# ("-"), their values still the requests', and --slower-than on the
# stop indicator is refused with the reason.
. "$MT_TOP/tests/lib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "skip: the patch backend patches x86-64" >&2; exit 0; }

cat >req.c <<'C'
#include <stdio.h>
#include <time.h>
#include <magic_trace.h>
static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
__attribute__((noinline)) static void spin(long long ns)
{
	long long end = now() + ns;
	while (now() < end)
		;
}
int main(void)
{
	long i;
	for (i = 0; i < 40; i++) {
		long long t0 = now(), t0b, t1, t1b;
		magic_trace_mark_start();
		t0b = now();
		spin(i == 7 || i == 20 || i == 33 ? 20000000 : 300000);
		t1 = now();
		magic_trace_take_snapshot_with_arg(i + 1000);
		t1b = now();
		printf("req %ld %lld %lld %lld %lld\n", i + 1000, t0, t0b, t1, t1b);
	}
	return 0;
}
C
gcc -O2 -Wall -Wextra -Werror -I"$MT_TOP/include" -o req req.c || fail "the program"
# whether the TSC is invariant (CPUID 0x80000007 EDX bit 8), as mt asks
cat >invtsc.c <<'C'
#include <cpuid.h>
#include <stdio.h>
int main(void)
{
	unsigned a, b, c, d;
	int inv = __get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
		  __get_cpuid(0x80000007, &a, &b, &c, &d) && ((d >> 8) & 1);
	printf("%d\n", inv);
	return 0;
}
C
gcc -O2 -o invtsc invtsc.c || fail "invtsc.c"
inv=$(./invtsc)
[ "$inv" = 1 ] || echo "no invariant TSC here: regions without their start" >&2

# regions DUMP: "region ARG START END" for each region MARK (ns)
regions() {
	awk '/ MARK / && /kind=region/ {
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "time" || kv[1] == "start") { split(kv[2], s, "."); v[kv[1]] = sprintf("%.0f", s[1] * 1e9 + s[2]) }
			if (kv[1] == "start" && kv[2] == "-") v["start"] = "-"
			if (kv[1] == "value") v["value"] = kv[2]
		}
		printf "region %s %s %s\n", v["value"], v["start"], v["time"] }' "$1"
}

# check REGIONS: each region's value and length against the program's
# reads ("req ARG T0 T0B T1 T1B": before and after mark_start, before and
# after take_snapshot): at least T1 - T0B, at most T1B - T0 (2 us and
# 0.1% more either way: the TSC as CLOCK_MONOTONIC), and (unless PCT is
# given: 100) within PCT% of T1 - T0 when the reads say that closely when
# it began and ended (the program not stopped between them: a machine
# busy with something else may)
check() {
	awk -v pct="${2:-1}" -v inv="$inv" 'FNR == NR { lo[$2] = $5 - $4; hi[$2] = $6 - $3; d[$2] = $5 - $3; next }
	{ if (!($2 in d)) { print "region of no request: " $0; bad = 1; next }
	  if (inv != 1) { if ($3 != "-") { print "a start without an invariant TSC: " $0; bad = 1 } next }
	  got = $4 - $3; slack = 2000 + d[$2] / 1000
	  if (got < lo[$2] - slack || got > hi[$2] + slack || (hi[$2] - lo[$2] <= d[$2] * pct / 100 && (got < d[$2] * (1 - pct / 100) || got > d[$2] * (1 + pct / 100)))) {
		printf "request %s: region %.0f ns, the program read between %.0f and %.0f (%.0f)\n", $2, got, lo[$2], hi[$2], d[$2]; bad = 1 } }
	END { exit bad }' req.out "$1"
}

mt-record --backend patch --functions '^spin$' --trigger . -o one.mt -- ./req >req.out 2>one.err ||
	{ cat one.err >&2; fail "mt-record --trigger ."; }
mt-dump one.mt >one.dump
regions one.dump >one.reg
[ "$(wc -l <one.reg)" -eq 1 ] || fail "regions: $(cat one.reg)"
grep -q '^region 1000 ' one.reg || fail "the first request's number: $(cat one.reg)"
check one.reg || fail "region lengths"
mt-stacks one.mt | mt-fxt --json >one.json || fail "mt-fxt"
python3 - one.json one.reg <<'PY' || fail "the FXT's hit slice"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
reg = open(sys.argv[2]).read().split()
hits = [e for e in ev if e.get("name") == "hit magic_trace_stop_indicator"]
assert len(hits) == 1, hits
h = hits[0]
assert h["args"]["arg"] == 1000, h
if reg[2] == "-":
    assert "timestamp_passed" not in h["args"] and h["dur"] == 0, h
else:
    assert h["args"]["timestamp_passed"] == int(reg[2]), h
    assert abs(h["dur"] * 1000 - (int(reg[3]) - int(reg[2]))) < 2, h
PY

if [ "$inv" != 1 ]; then
	expect_exit 1 mt-record --backend patch --functions '^spin$' --trigger . --slower-than 10ms \
		-o slow.mt -- ./req 2>slow.err
	contains slow.err "which this machine's patch runtime does not use (no invariant TSC)"
	echo "skipped: --slower-than on the stop indicator (no invariant TSC)" >&2
	exit 0
fi

mt-record --backend patch --functions '^spin$' --trigger . --slower-than 10ms --repeat 0 \
	-o slow.mt -- ./req >req.out 2>slow.err || { cat slow.err >&2; fail "--slower-than"; }
[ "$(grep -c '^mt-record: trigger magic_trace_stop_indicator hit by .*: a region of ' slow.err)" -eq 3 ] ||
	fail "hits: $(grep hit slow.err)"
mt-dump slow.mt >slow.dump
regions slow.dump >slow.reg
awk '{ print $2 }' slow.reg | tr '\n' ' ' >got
[ "$(cat got)" = "1007 1020 1033 " ] || fail "the slow requests: $(cat got)"
check slow.reg || fail "slow region lengths"
# the trigger MARK's value: the region's length
awk '/ MARK / && /kind=trigger/ { for (i = 1; i <= NF; i++) if ($i ~ /^value=/) print substr($i, 7) }' \
	slow.dump >trig
paste -d' ' slow.reg trig | awk '{ d = $4 - $3 - $5; if (d < -1000 || d > 1000) { print; exit 1 } }' ||
	fail "trigger values: $(cat trig)"
# each snapshot ends at its hit: no spin call after it
mt-stacks slow.mt | mt-dump >slow.stacks
[ "$(grep -c 'kind=snapshot' slow.stacks)" -eq 3 ] || fail "$(grep -c 'kind=snapshot' slow.stacks) snapshots"

if [ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" -eq 0 ]; then
	mt-record --backend uprobe --functions '^spin$' --trigger . --trigger-via uprobe -o u.mt -- \
		./req >req.out 2>u.err || { cat u.err >&2; fail "uprobe: mt-record --trigger ."; }
	mt-dump u.mt >u.dump
	regions u.dump >u.reg
	[ "$(wc -l <u.reg)" -eq 1 ] && grep -q '^region 1000 ' u.reg || fail "uprobe regions: $(cat u.reg)"
	# the uprobe's hit comes after its trap (some us): the reads only
	check u.reg 100 || fail "uprobe region length"
	# the sample backend's: perf's text with the "# mt: region" line,
	# which mt-script-parse reads back
	mt-record --backend sample --trigger . --trigger-via uprobe -o s.txt -- ./req \
		>req.out 2>s.err || { cat s.err >&2; fail "sample: mt-record --trigger ."; }
	grep -q '^# mt: region [0-9.]* [0-9.]* 1000 [0-9]*/[0-9]* 0x[0-9a-f]* magic_trace_stop_indicator$' s.txt ||
		fail "sample: no region line: $(grep '^# mt:' s.txt)"
	mt-script-parse s.txt | mt-dump >s.dump
	regions s.dump >s.reg
	[ "$(wc -l <s.reg)" -eq 1 ] || fail "sample regions: $(cat s.reg)"
	check s.reg 100 || fail "sample region length"
	# --slower-than on a uprobe's stop indicator called 5,000 times, its
	# short regions passed over as they come: the one slow region is the
	# hit, none dropped behind the others
	cat >many.c <<'C'
#include <stdio.h>
#include <time.h>
#include <magic_trace.h>
static long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
int main(void)
{
	long i;
	for (i = 0; i < 5000; i++) {
		magic_trace_mark_start();
		if (i == 4000) {
			long long end = now() + 20000000;
			while (now() < end)
				;
		}
		magic_trace_take_snapshot_with_arg(i);
	}
	puts("done");
	return 0;
}
C
	gcc -O2 -I"$MT_TOP/include" -o many many.c || fail "many.c"
	mt-record --backend uprobe --functions '^main$' --trigger . --trigger-via uprobe \
		--slower-than 10ms -o many.mt -- ./many >many.out 2>many.err ||
		{ cat many.err >&2; fail "uprobe --slower-than on a busy stop indicator"; }
	grep -q '^mt-record: trigger magic_trace_stop_indicator hit by .*: a region of [0-9]*\.' many.err ||
		fail "the slow region not the hit: $(cat many.err)"
	! grep -q dropped many.err || fail "hits dropped: $(cat many.err)"
	mt-dump many.mt | grep -q 'kind=region .* value=4000 ' || fail "not request 4000's region"
else
	echo "skipped: the uprobe backend (needs root and uprobes)" >&2
fi
