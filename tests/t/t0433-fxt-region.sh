#!/bin/sh
# A stop indicator's region (a MARK of kind region, stream 1.1) becomes
# what magic-trace's trace_writer.ml writes for a trigger hit: a complete
# event "hit SYMBOL" on a process of its own, "Snapshot symbol hits",
# thread "hits", from the passed time to the hit, with the arguments
# timestamp_passed, arg (signed), timestamp, tid and ip; a region whose
# start is not known (or after the hit) is zero-length at the hit and has
# no timestamp_passed. Checked in FXT (fxt-check: the slices and names
# Perfetto imports) and in JSON (python3's json: the arguments).
. "$MT_TOP/tests/lib.sh"

cat >in.txt <<'EOF2'
THREAD pid=10 tid=11 comm="app" time=1.000000000
SPAN start=1.000000000 end=1.000900000 pid=10 tid=11 depth=0 kind=function flags=- address=0x401000 name="handle" dso=-
MARK time=1.000800000 pid=10 tid=11 cpu=- kind=trigger flags=- value=0 ip=0x401234 name="trigger" text="magic_trace_stop_indicator"
MARK time=1.000800000 pid=10 tid=11 cpu=- kind=region flags=- value=18446744073709551609 ip=0x401234 name="region" text="magic_trace_stop_indicator" start=1.000250000
MARK time=1.000850000 pid=10 tid=11 cpu=- kind=region flags=- value=5 ip=0x401234 name="region" text="magic_trace_stop_indicator" start=-
MARK time=1.000860000 pid=10 tid=11 cpu=- kind=region flags=- value=6 ip=0x401234 name="region" text="magic_trace_stop_indicator" start=1.000870000
EOF2
mt-asm in.txt >in.mt || fail "mt-asm"
mt-dump in.mt | grep -q 'kind=region .* start=1.000250000$' || fail "mt-dump: $(mt-dump in.mt)"
mt-fxt in.mt >out.fxt || fail "mt-fxt"
fxt-check --slices out.fxt >slices 2>summary || fail "fxt-check: $(cat summary)"
grep -q 'problems: none' summary || fail "$(cat summary)"
# pid tid start end depth name
grep ' hit magic_trace_stop_indicator$' slices | cut -d' ' -f3-5 >hits
printf '%s\n' '1000250000 1000800000 0' '1000850000 1000850000 0' \
	'1000860000 1000860000 0' >want
cmp -s hits want || fail "hits: $(cat hits), want $(cat want)"
hp=$(grep ' hit magic_trace_stop_indicator$' slices | cut -d' ' -f1 | sort -u)
[ "$hp" = 2147483632 ] || fail "the hits' process: $hp"
grep -q ' handle$' slices || fail "the span is gone: $(cat slices)"
fxt-check --names out.fxt >names
grep -qx 'process 2147483632 Snapshot symbol hits' names || fail "names: $(cat names)"
grep -qx 'thread 2147483632 2147483633 hits' names || fail "names: $(cat names)"

mt-fxt --json in.mt >out.json || fail "mt-fxt --json"
python3 - out.json <<'EOF2' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
hits = [e for e in ev if e.get("name") == "hit magic_trace_stop_indicator"]
assert len(hits) == 3, hits
a = hits[0]["args"]
assert a == {"timestamp_passed": 1000250000, "arg": -7, "timestamp": 1000800000,
             "tid": 11, "ip": "0x401234"}, a
assert abs(hits[0]["dur"] - 550.0) < 1e-6, hits[0]
assert "timestamp_passed" not in hits[1]["args"] and hits[1]["dur"] == 0, hits[1]
names = {(e["pid"], e["tid"], e["name"]): e["args"]["name"] for e in ev if e.get("ph") == "M"}
assert names[(2147483632, 2147483632, "process_name")] == "Snapshot symbol hits", names
assert names[(2147483632, 2147483633, "thread_name")] == "hits", names
EOF2
