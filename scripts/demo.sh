#!/bin/sh
# scripts/demo.sh BUILD: what `make demo` shows until capture lands (issues 8
# and 9). It makes the perf script text that perf prints for Intel PT
# branches of a simulated multi-threaded program (gen-perf-script), runs the
# pipeline that turns it into a timeline, and writes demo.fxt.
set -eu
BUILD=${1:-build}
out=$BUILD/demo
mkdir -p "$out"
"$BUILD/tests/gen-perf-script" --lines 200000 --seed 1 --threads 4 --start-depth 3 \
	>"$out/demo.perf.txt"
"$BUILD/bin/mt-script-parse" "$out/demo.perf.txt" >"$out/demo.mt"
"$BUILD/bin/mt-stacks" -v "$out/demo.mt" >"$out/demo.spans"
"$BUILD/bin/mt-fxt" -v -o demo.fxt "$out/demo.spans"
echo
echo "perf script text ($out/demo.perf.txt), first lines:"
head -3 "$out/demo.perf.txt" | cut -c1-150
echo
echo "call spans ($out/demo.spans), a few:"
"$BUILD/bin/mt-dump" "$out/demo.spans" | grep ' SPAN ' | sed -n '100,104p' | cut -c1-150
echo
echo "Wrote demo.fxt: open https://ui.perfetto.dev, click \"Open trace file\" and"
echo "choose demo.fxt. (This trace is of a simulated program; tracing a running"
echo "one with mt-record arrives with issues 8 and 9.)"
