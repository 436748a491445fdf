#!/bin/sh
# mt-report against the truth: calls, total, self and the quantiles of
# every function of mt-stacks' spans, computed without a stack from
# mt-dump's text (report_truth; median and p99 within the sketch's bound:
# report_close); the calls agree with gen-perf-script's
# truth; the same numbers from the stream's FXT file (mt-fxt), gzip'd,
# and from begin/end pairs (fxt-be, fxt-mtrace); the text prints the
# JSON's numbers; --by and -n order and cut the rows; the orders of spans
# mt-slice writes (--match, a window) change nothing.
. "$MT_TOP/tests/lib.sh"

gen-perf-script --lines 12000 --seed 5 --threads 3 --start-depth 4 --no-errors \
	--truth truth.txt | mt-script-parse | mt-stacks --no-spread >spans.mt
report_truth spans.mt >want
[ "$(wc -l <want)" -gt 50 ] || fail "too few functions: $(wc -l <want)"
mt-report --json spans.mt >r.json
report_json r.json >got
report_close want got

# calls: gen-perf-script's truth, less its pseudo-spans
awk -F'\t' '$7 != "[syscall]" && $7 != "[untraced]" { n[$7]++ } END { for (x in n) print x, n[x] }' truth.txt | sort >calls.want
awk '{ n = $0; for (i = 0; i < 7; i++) sub(/ [^ ]*$/, "", n); print n, $(NF - 6) }' got |
	sort >calls.got
same_file calls.want calls.got

# FXT: mt-fxt's, gzip'd, fxt-be's begin/end pairs of the same slices and
# fxt-mtrace's (magic-trace's layout: begins of inferred frames last)
mt-fxt spans.mt >t.fxt
gzip -c t.fxt >t.fxt.gz
fxt-check --slices t.fxt 2>/dev/null | fxt-be >be.fxt
fxt-check --slices t.fxt 2>/dev/null | sort -n -s -k1,1 -k2,2 -k3,3 | fxt-mtrace >mtr.fxt
for f in t.fxt t.fxt.gz be.fxt mtr.fxt; do
	mt-report --json $f >f.json
	report_json f.json >fgot
	report_close want fgot
	same_file got fgot # the sketch is the same: exactly the stream's
done
# the untraced and syscall pseudo-spans too, known in FXT by their names
report_truth spans.mt 'function|untraced|syscall' >want.all
mt-report --json --kind all spans.mt >a.json
report_json a.json >got.all
report_close want.all got.all
mt-report --json --kind function,untraced,syscall t.fxt >af.json
report_json af.json >got.fall
report_close want.all got.fall
same_file got.all got.fall

# the text: the JSON's rows, in order, times with their unit
mt-report spans.mt >r.txt
python3 -c '
import json, sys
def t(ns):
    if ns < 1000: return "%8d ns" % ns
    if ns < 1000000: return "%8.3f us" % (ns / 1e3)
    if ns < 1000000000: return "%8.3f ms" % (ns / 1e6)
    return "%8.3f s " % (ns / 1e9)
d = json.load(open(sys.argv[1]))
print("%11s %11s %10s %11s %11s %11s %11s  %s" % ("total", "self", "calls",
      "min", "median", "p99", "max", "function"))
for f in d["functions"]:
    print(" " + " ".join([t(f["total_ns"]), t(f["self_ns"]), "%10d" % f["calls"]] +
          [t(f[k]) for k in ("min_ns", "median_ns", "p99_ns", "max_ns")]) +
          "  " + f["name"])' r.json >r.want
same_file r.want r.txt

# --by: the key never grows down the rows; -n cuts them
for key in total self calls; do
	mt-report --by $key --json spans.mt >k.json
	python3 -c '
import json, sys
fs = json.load(open(sys.argv[1]))["functions"]
k = {"total": "total_ns", "self": "self_ns", "calls": "calls"}[sys.argv[2]]
v = [(-f[k], f["name"]) for f in fs]
sys.exit(v != sorted(v))' k.json $key || fail "--by $key: rows out of order"
	mt-report --by $key -n 3 spans.mt >n3
	mt-report --by $key --limit=3 spans.mt >l3
	mt-report --by $key spans.mt | head -n 4 >h4
	same_file h4 n3
	same_file h4 l3
done

# whatever the order of the spans: mt-slice --match writes descendants
# walking back, a window's spans open at its start last
mt-slice --match '^(__poll|sysmalloc)$' spans.mt >m.mt
mt-slice --from 200us --to 400us spans.mt >w.mt
for f in m.mt w.mt; do
	report_truth $f >want.m
	[ -s want.m ] || fail "$f: no spans"
	mt-report --json $f >m.json
	report_json m.json >got.m
	report_close want.m got.m
done
