#!/bin/sh
# --json at a large uptime: times above 2^53 ns (104 days) come back to the
# nanosecond when read the way Perfetto reads them (ts and dur as doubles
# of microseconds, ns = llround(x * 1000)) plus the base the metadata gives,
# so every span keeps its exact start and end and children stay inside
# their parents; instants and counters too. Small times keep base 0.
. "$MT_TOP/tests/lib.sh"

# 4 threads x 500 calls from 9,100,000 s (2^53 ns is 9,007,199.25 s): a
# parent and a child starting at the same odd ns, a second child ending at
# the same ns as the parent (a tail call), written when they end (children
# first); each thread's main, starting 10 s before the first span written,
# comes last; a snapshot and a cbr mark
awk 'BEGIN {
	for (i = 0; i < 500; i++) for (t = 0; t < 4; t++) {
		s = 100000000 + i * 1000003 + t * 7919 + 1
		printf "SPAN start=9100010.%09d end=9100010.%09d pid=50 tid=%d depth=2 kind=function flags=- address=0x401000 name=\"leaf\" dso=-\n", s, s + 333, 51 + t
		printf "SPAN start=9100010.%09d end=9100010.%09d pid=50 tid=%d depth=2 kind=function flags=- address=0x401100 name=\"leaf2\" dso=-\n", s + 401, s + 999, 51 + t
		printf "SPAN start=9100010.%09d end=9100010.%09d pid=50 tid=%d depth=1 kind=function flags=- address=0x401200 name=\"handle\" dso=-\n", s, s + 999, 51 + t
	}
	printf "MARK time=9100010.700000001 pid=50 tid=51 cpu=1 kind=cbr flags=- value=2400 ip=0x0 name=\"cbr\" text=-\n"
	printf "MARK time=9100010.700000003 pid=50 tid=51 kind=snapshot flags=- value=1 ip=0x0 name=- text=-\n"
	for (t = 0; t < 4; t++)
		printf "SPAN start=9100000.000000%03d end=9100010.900000%03d pid=50 tid=%d depth=0 kind=function flags=- address=0x400000 name=\"main\" dso=-\n", 2 * t + 1, 2 * t + 1, 51 + t
}' >big.txt
mt-asm big.txt >big.mt

# every time as exact ns, in file order: kind start end (instants: end -)
awk '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if ($1 == "SPAN") { s = f["start"]; e = f["end"] } else { s = f["time"]; e = "-" }
	sub(/\./, "", s); sub(/\./, "", e)
	print ($1 == "SPAN" ? "X" : f["kind"] == "cbr" ? "C" : "i"), s, e
	delete f
}' big.txt >want

cat >perfetto-ns.py <<'EOF'
import json, math, sys
# Perfetto's json_trace_tokenizer CoerceToTs: an integral double is
# multiplied by 1000, any other is llround(x * 1000.0)
def ns(x):
    if isinstance(x, int) or x == math.trunc(x):
        return int(x) * 1000
    v = x * 1000.0
    r = math.floor(v)
    return r + 1 if v - r >= 0.5 else r
with open(sys.argv[1], "rb") as f:
    trace = json.load(f)
base = trace.get("metadata", {}).get("perf_time_ns_at_ts_0", 0)
print("base", base)
for e in trace["traceEvents"]:
    if e["ph"] == "M":
        continue
    assert isinstance(e["ts"], float) and e["ts"] >= 0, e
    start = ns(e["ts"]) + base
    end = start + ns(e["dur"]) if e["ph"] == "X" else "-"
    print(e["ph"], start, end)
EOF

mt-fxt --json big.mt >big.json 2>err
[ ! -s err ] || fail "stderr: $(cat err)"
python3 perfetto-ns.py big.json >got
# the base: the first time less 2^50 ns, in whole seconds
[ "$(sed -n 1p got)" = "base 7974110000000000" ] || fail "$(sed -n 1p got)"
sed 1d got >events
same_file want events
# and so each parent holds its children as in the stream (times of 16
# digits, compared as strings: awk's numbers are doubles)
awk 'NR > 6000 { exit bad > 0 }
	NR % 3 == 1 { ls = $2 ""; le = $3 "" } NR % 3 == 2 { ms = $2 ""; me = $3 "" }
	NR % 3 == 0 && !(ls == $2 "" && le < ms && me <= $3 "") { bad++ }
	END { exit bad > 0 }' events || fail "children outside their parents"

# small times (a few days of uptime) keep their absolute values: base 0
cat >small.txt <<'END'
SPAN start=300000.000000001 end=300000.000000002 pid=7 tid=7 depth=0 kind=function flags=- address=0x401000 name="f" dso=-
END
mt-asm small.txt | mt-fxt --json >small.json
python3 perfetto-ns.py small.json >got
printf 'base 0\nX 300000000000001 300000000000002\n' >want
same_file want got
grep -q '"ts":300000000000.001,' small.json || fail "ts not absolute: $(cat small.json)"

# a time more than 13 days before the first cannot be exact: a warning
cat >far.txt <<'END'
SPAN start=9100000.000000001 end=9100000.000000002 pid=7 tid=7 depth=0 kind=function flags=- address=0x401000 name="f" dso=-
SPAN start=1.000000000 end=9100000.000000003 pid=7 tid=7 depth=0 kind=function flags=- address=0x401000 name="g" dso=-
END
mt-asm far.txt | mt-fxt --json >far.json 2>err
contains err "mt-fxt: <stdin>: 2 times or durations lie more than 13 days from the first time"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' far.json
