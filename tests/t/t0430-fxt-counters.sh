#!/bin/sh
# cbr marks (cpu frequency) read back as Perfetto would import them: a
# counter track per CPU when the stream gives the cpu, per thread when it
# does not, each holding exactly the values of its CPU (or thread) in time
# order, never several CPUs' values zig-zagging on one track. FXT through
# fxt-check --counters (Perfetto's track key: process and
# "name:arg:counter id"); JSON through python3, keyed as Perfetto's JSON
# importer keys C events (process, name + " id: " + id + " " + arg).
. "$MT_TOP/tests/lib.sh"

# 6 threads of pid 100 moving over 4 CPUs, each CPU at its own frequencies
# (1000 * (cpu + 1) + step), 48 marks; then 10 marks without a cpu from
# threads 201 and 202 of pid 200
awk 'BEGIN {
	for (j = 0; j < 8; j++) for (i = 0; i < 6; i++) {
		cpu = (i + j) % 4; t = 1000000 + j * 600 + i * 100
		printf "MARK time=5.00%07d pid=100 tid=%d cpu=%d kind=cbr flags=- value=%d ip=0x0 name=\"cbr\" text=-\n", t, 101 + i, cpu, 1000 * (cpu + 1) + j
	}
	for (j = 0; j < 10; j++)
		printf "MARK time=6.00%07d pid=200 tid=%d kind=cbr flags=- value=%d ip=0x0 name=\"cbr\" text=-\n", j * 100, 201 + j % 2, 3000 + j
}' >cbr.txt
mt-asm cbr.txt >cbr.mt

# what each track must hold: pid, ns, MHz, track, in file order
awk '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	ns = f["time"]; sub(/\./, "", ns)
	if ("cpu" in f) track = "cpu frequency of cpu:MHz:" f["cpu"]
	else track = "cpu frequency of thread:MHz:" f["tid"]
	sub(/^0*/, "", ns)
	print f["pid"], ns, f["value"], track
	delete f
}' cbr.txt >want

mt-fxt cbr.mt >cbr.fxt
fxt-check cbr.fxt >check || { cat check >&2; fail "fxt-check found problems"; }
fxt-check --counters cbr.fxt >got 2>/dev/null
same_file want got
# one track per CPU of pid 100, one per thread of pid 200
ntracks=$(awk '{ $2 = $3 = ""; print }' got | sort -u | wc -l)
[ "$ntracks" -eq 6 ] || fail "$ntracks counter tracks, not 4 CPUs + 2 threads"
# and no track holds two CPUs' values
awk '$1 == 100 { c = int($3 / 1000) - 1; k = $NF; if ((k in cpu) && cpu[k] != c) bad = 1; cpu[k] = c }
	END { exit bad }' got || fail "a track mixes CPUs: $(cat got)"

# JSON: the same tracks, as Perfetto's JSON importer names them
mt-fxt --json cbr.mt >cbr.json
python3 - cbr.json >jgot <<'EOF'
import json, sys
with open(sys.argv[1], "rb") as f:
    events = json.load(f)["traceEvents"]
for e in events:
    if e["ph"] != "C":
        continue
    for k, v in e["args"].items():
        # Perfetto: name, " id: " + id when id is a string, " " + arg
        name = e["name"] + (" id: " + e["id"] if isinstance(e.get("id"), str) else "")
        print(e["pid"], round(e["ts"] * 1000), v, name + " " + k)
EOF
sed 's/:MHz:\([0-9]*\)$/ id: \1 MHz/' want >jwant
same_file jwant jgot
