#!/bin/sh
# mt-report --calls (uftrace's replay) and --folded (flame graph stacks),
# against what code of its own reads from the same trace: a generated
# trace of 3 threads as a stream, its FXT file and that gzip'd.
# - --calls --json on the FXT: every slice fxt-check (the test FXT
#   reader, Perfetto's rules) lists, instants too, with the same thread,
#   start, end, depth and name; the gzip'd file gives the same; the
#   stream gives the same calls (not the instants its marks and errors
#   become only in the FXT);
# - --calls --from/--to: the same as mt-slice --from/--to then --calls
#   (calls cut at the window's edges, instants in it);
# - --min-duration, --max-depth, --tid keep what they say;
# - --folded: each distinct stack's self time, as python3 computes it
#   from fxt-check's slices (per thread, a slice's length less its
#   children's); --per-thread the same per thread;
# - the text: one line a call, in time order, indented by depth; colored
#   on a terminal (script(1)), not in a pipe nor with NO_COLOR.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 30000 --seed 11 --threads 3 | mt-script-parse | mt-stacks >s.mt ||
	fail "the stream"
mt-fxt s.mt >s.fxt || fail "mt-fxt"
gzip -1 -c s.fxt >s.fxt.gz
fxt-check --slices s.fxt >slices 2>summary || fail "fxt-check: $(cat summary)"

# JSON lines as "pid tid start end depth name", sorted; $2: all, or
# calls (not instants)
tolines() {
	python3 - "$1" "$2" <<'PY'
import json, sys
out = []
for e in json.load(open(sys.argv[1])):
    if sys.argv[2] == "calls" and e.get("instant"):
        continue
    out.append("%d %d %d %d %d %s" % (e["pid"], e["tid"], e["ts"], e["ts"] + e["dur"], e["depth"], e["name"]))
print("\n".join(sorted(out)))
PY
}

mt-report --calls --json s.fxt >fxt.json || fail "--calls --json s.fxt"
tolines fxt.json all >fxt.lines
sort slices >want.lines
[ "$(wc -l <want.lines)" -gt 1000 ] || fail "few slices: $(wc -l <want.lines)"
same_file want.lines fxt.lines
mt-report --calls --json s.fxt.gz >gz.json || fail "--calls --json s.fxt.gz"
cmp -s fxt.json gz.json || fail "the gzip'd FXT's calls differ"
mt-report --calls --json s.mt >mt.json || fail "--calls --json s.mt"
tolines mt.json calls >mt.lines
tolines fxt.json calls >fxtcalls.lines
same_file fxtcalls.lines mt.lines
# in time order, over every thread
python3 - fxt.json <<'PY' || fail "--calls not in time order"
import json, sys
ts = [e["ts"] for e in json.load(open(sys.argv[1]))]
assert ts == sorted(ts)
PY

# a window: as mt-slice cuts the trace
mt-report --calls --json --from 1ms --to 3ms s.fxt >win.json || fail "--from --to"
mt-slice --from 1ms --to 3ms s.fxt >win.fxt || fail "mt-slice"
mt-report --calls --json win.fxt >sliced.json || fail "--calls on the slice"
tolines win.json all >win.lines
tolines sliced.json all >sliced.lines
[ -s win.lines ] || fail "nothing in the window"
same_file sliced.lines win.lines

# the filters
mt-report --calls --json --min-duration 2us s.fxt >min.json
python3 - min.json fxt.json <<'PY' || fail "--min-duration"
import json, sys
got = json.load(open(sys.argv[1]))
want = [e for e in json.load(open(sys.argv[2])) if e.get("instant") or e["dur"] >= 2000]
assert len(got) == len(want) and all(e.get("instant") or e["dur"] >= 2000 for e in got), (len(got), len(want))
PY
mt-report --calls --json --max-depth 2 s.fxt >depth.json
python3 - depth.json fxt.json <<'PY' || fail "--max-depth"
import json, sys
got = json.load(open(sys.argv[1]))
want = [e for e in json.load(open(sys.argv[2])) if e["depth"] < 2]
assert got == want, (len(got), len(want))
PY
tid=$(awk 'NR == 1 { print $2 }' want.lines)
mt-report --calls --json --tid "$tid" s.fxt >tid.json
python3 - tid.json "$tid" <<'PY' || fail "--tid"
import json, sys
got = json.load(open(sys.argv[1]))
assert got and all(e["tid"] == int(sys.argv[2]) for e in got)
PY

# --folded against self times from the slices
cat >folded.py <<'PY'
import sys
per_thread = sys.argv[2] == "1"
rows = []
for line in open(sys.argv[1]):
    pid, tid, start, end, depth, name = line.rstrip("\n").split(" ", 5)
    rows.append((int(pid), int(tid), int(start), int(depth), int(end), name))
rows.sort()
acc = {}
stack = []  # [name, start, end, children]
def pop(th):
    n, s, e, ch = stack.pop()
    key = ";".join(([th] if per_thread else []) + [f[0] for f in stack] + [n])
    acc[key] = acc.get(key, 0) + max(e - s - ch, 0)
    if stack:
        stack[-1][3] += e - s
cur = None
for pid, tid, start, depth, end, name in rows:
    th = "[thread %d]" % tid
    if (pid, tid) != cur:
        while stack:
            pop(cur_th)
        cur, cur_th = (pid, tid), th
    if start == end and name in instants:
        continue
    while len(stack) > depth:
        pop(th)
    stack.append([name.replace(";", "_"), start, end, 0])
while stack:
    pop(cur_th)
for k in sorted(acc):
    if acc[k]:
        print(k, acc[k])
PY
# the FXT's instants: not frames
python3 - fxt.json >instants <<'PY'
import json, sys
print("\n".join(sorted({e["name"] for e in json.load(open(sys.argv[1])) if e.get("instant")})))
PY
sed -i "1i instants = set(open('instants').read().split('\\\\n'))" folded.py
for pt in 0 1; do
	opt=
	[ $pt = 1 ] && opt=--per-thread
	python3 folded.py want.lines $pt >want.folded || fail "folded.py"
	for f in s.fxt s.mt; do
		mt-report --folded $opt $f >got.raw || fail "--folded $opt $f"
		awk '$NF != 0' got.raw | sort >got.folded
		same_file want.folded got.folded
	done
done
[ "$(wc -l <want.folded)" -gt 50 ] || fail "few stacks: $(wc -l <want.folded)"

# the text: in a pipe no color; on a terminal, color
mt-report --calls s.fxt >text || fail "--calls text"
[ "$(($(wc -l <text) - 1))" -eq "$(wc -l <want.lines)" ] || fail "text: $(wc -l <text) lines"
! grep -q "$(printf '\033')" text || fail "escape codes in a pipe"
head -n 1 text | grep -q 'duration .* tid .*function' || fail "no header: $(head -n 1 text)"
if command -v script >/dev/null 2>&1; then
	# a terminal's TERM, whatever this one's (CI may have none)
	pty_start p - env TERM=xterm mt-report --calls --max-depth 1 s.fxt
	pty_end
	grep -q "$(printf '\033')\[3[13]m" p.log || fail "no color on a terminal: $(head -c 300 p.log)"
	pty_start n - env TERM=xterm NO_COLOR=1 mt-report --calls --max-depth 1 s.fxt
	pty_end
	! grep -q "$(printf '\033')\[3[136]m" n.log || fail "color with NO_COLOR"
fi

# usage
expect_exit 2 mt-report --calls --folded s.fxt 2>err
contains err "--calls and --folded: give one of them"
expect_exit 2 mt-report --from 1ms s.fxt 2>err
contains err "go with --calls"
expect_exit 2 mt-report --calls --by self s.fxt 2>err
contains err "--by and -n go with the report"
